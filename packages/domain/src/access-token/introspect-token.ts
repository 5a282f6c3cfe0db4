import { z } from 'zod'
import type { Deps } from '../deps'
import { GnapError } from '../errors'
import { AccessItemSchema, type AccessItem } from '../access/access.wire'
import { matchAccess } from '../access/access-rules'
import { rowToAccessItem } from '../access/access.repo'
import { secretsEqual } from '../secrets'
import { isRevoked, type GrantStatus } from '../grant/grant-state'
import { zodToGnap } from '../grant/grant.wire'
import { sqlOf } from '../db/client'
import { findTokenByValue, isTokenExpired } from './access-token.repo'

export const IntrospectRequestSchema = z.strictObject({
  access_token: z.string().min(1).max(1024),
  // An empty list asks for nothing and gets `access: []`; the contract sets no minimum here.
  access: z.array(AccessItemSchema).max(3).optional(),
})

export type IntrospectResponse =
  | { active: false }
  | { active: true; grant: string; access: AccessItem[]; client: { walletAddress: string } }

/** The resource server's credential: `Authorization: Bearer <INTROSPECTION_SECRET>`, compared in constant time. */
export function authenticateResourceServer(deps: Deps, authorization: string | null): void {
  const m = /^Bearer (\S+)$/.exec(authorization?.trim() ?? '')
  if (!m?.[1] || !secretsEqual(m[1], deps.config.introspectionSecret)) {
    throw new GnapError('invalid_client', 'introspection requires Authorization: Bearer <introspection secret>')
  }
}

/**
 * POST /introspect — tells a resource server whether a token is live and what it grants (PROTOCOL.md §2.6).
 * @throws GnapError invalid_request (400)
 */
export async function introspectToken(deps: Deps, body: unknown): Promise<IntrospectResponse> {
  const parsed = IntrospectRequestSchema.safeParse(body)
  if (!parsed.success) throw zodToGnap(parsed.error)
  const token = await findTokenByValue(sqlOf(deps.db), parsed.data.access_token)
  if (!token || token.state !== 'active' || isTokenExpired(token, deps.clock()) || isRevoked(token.grant as GrantStatus)) {
    return { active: false }
  }
  const granted = token.grant.accessItems.map(rowToAccessItem)
  return {
    active: true,
    grant: token.grant.id,
    access: parsed.data.access ? matchAccess(granted, parsed.data.access) : [],
    client: { walletAddress: token.grant.client },
  }
}
