import { z } from 'zod'
import { GnapError, zodToGnap } from '../../kernel/errors'
import {
  IdentifierSchema,
  IncomingAccessSchema,
  OutgoingAccessSchema,
  QuoteAccessSchema,
  accessItemError,
  type AccessItem,
} from '../access/access.wire'
import type { RequestedAccess } from '../access/access-rules'
import type { Ed25519Jwk } from '../client/wallet-address'

// Wire shapes of post-token (rotation) and post-introspect (token-introspection.yaml). Spelling as the spec writes it.

/**
 * POST /token/{id} takes no body: RFC 9635 §6.1.1 key rotation is not part of Open Payments.
 * @throws GnapError invalid_rotation
 */
export function parseRotateRequest(json: unknown): void {
  if (json !== undefined) throw new GnapError('invalid_rotation', 'rotation takes no request body')
}

// token-introspection.yaml access as resource servers send it (docs/protocol.md §2.6). Rafiki's backend names the
// wallet address on every item it asks about, a quote's too (access-quote defines no identifier), and none when it
// checks an outgoing-payment grant itself. So here alone an outgoing payment's `identifier` is optional, and a quote's
// is accepted (checked as an identifier) and dropped; a grant request keeps the strict items of access.wire.ts.
const RequestedAccessSchema = z.discriminatedUnion(
  'type',
  [
    IncomingAccessSchema,
    OutgoingAccessSchema.extend({ identifier: IdentifierSchema.optional() }),
    QuoteAccessSchema.extend({ identifier: IdentifierSchema.optional() }),
  ],
  { error: accessItemError },
)

const IntrospectRequestSchema = z.strictObject({
  access_token: z.string().min(1).max(1024),
  // An empty list asks for nothing and gets `access: []`; the contract sets no minimum here.
  access: z.array(RequestedAccessSchema).max(3).optional(),
})

export interface IntrospectRequest {
  accessToken: string
  /** The access items the resource server asks about; null when it names none. */
  access: RequestedAccess[] | null
}

/**
 * Parses the body of POST /introspect (docs/protocol.md §2.6).
 * @throws GnapError invalid_request
 */
export function parseIntrospectRequest(json: unknown): IntrospectRequest {
  const parsed = IntrospectRequestSchema.safeParse(json)
  if (!parsed.success) throw zodToGnap(parsed.error)
  const access = parsed.data.access?.map((item): RequestedAccess => (item.type === 'quote' ? { type: item.type, actions: item.actions } : item))
  return { accessToken: parsed.data.access_token, access: access ?? null }
}

/** token-introspection.yaml: the client as a wallet address, or a directed identity's key (docs/protocol.md §4.5). */
export type IntrospectedClient = { walletAddress: string } | { jwk: Ed25519Jwk }

/**
 * The answer; `access` may be the process's cached list of the grant's items (frozen, never to be changed). `client`
 * is a string with INTROSPECTION_CLIENT_FORMAT=string (backends up to Rafiki v2.3).
 */
export type IntrospectResponse =
  { active: false } | { active: true; grant: string; access: readonly AccessItem[]; client: IntrospectedClient | string }
