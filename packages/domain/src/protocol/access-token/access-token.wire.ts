import { z } from 'zod'
import { GnapError, zodToGnap } from '../../kernel/errors'
import { AccessItemSchema, type AccessItem } from '../access/access.wire'
import type { Ed25519Jwk } from '../client/wallet-address'

// Wire shapes of post-token (rotation) and post-introspect (token-introspection.yaml). Spelling as the spec writes it.

/**
 * POST /token/{id} takes no body: RFC 9635 §6.1.1 key rotation is not part of Open Payments.
 * @throws GnapError invalid_rotation
 */
export function parseRotateRequest(json: unknown): void {
  if (json !== undefined) throw new GnapError('invalid_rotation', 'rotation takes no request body')
}

const IntrospectRequestSchema = z.strictObject({
  access_token: z.string().min(1).max(1024),
  // An empty list asks for nothing and gets `access: []`; the contract sets no minimum here.
  access: z.array(AccessItemSchema).max(3).optional(),
})

export interface IntrospectRequest {
  accessToken: string
  /** The access items the resource server asks about; null when it names none. */
  access: AccessItem[] | null
}

/**
 * Parses the body of POST /introspect (docs/protocol.md §2.6).
 * @throws GnapError invalid_request
 */
export function parseIntrospectRequest(json: unknown): IntrospectRequest {
  const parsed = IntrospectRequestSchema.safeParse(json)
  if (!parsed.success) throw zodToGnap(parsed.error)
  return { accessToken: parsed.data.access_token, access: parsed.data.access ?? null }
}

/** token-introspection.yaml: the client as a wallet address, or a directed identity's key (docs/protocol.md §4.5). */
export type IntrospectedClient = { walletAddress: string } | { jwk: Ed25519Jwk }

/** The answer; `access` may be the process's cached list of the grant's items (frozen, never to be changed). */
export type IntrospectResponse = { active: false } | { active: true; grant: string; access: readonly AccessItem[]; client: IntrospectedClient }
