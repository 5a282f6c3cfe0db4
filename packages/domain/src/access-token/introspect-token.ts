import type { Deps } from '../deps'
import { GnapError } from '../errors'
import { matchAccess } from '../access/access-rules'
import { secretsInclude } from '../secrets'
import { isRevoked } from '../grant/grant-state'
import { findTokenByValue, isTokenExpired } from './access-token.repo'
import type { IntrospectRequest, IntrospectResponse } from './access-token.wire'

/**
 * The resource server's credential: `Authorization: Bearer <secret>`, one of INTROSPECTION_SECRET's entries, compared
 * in constant time (docs/protocol.md §7).
 */
export function authenticateResourceServer(deps: Deps, authorization: string | null): void {
  const m = /^Bearer (\S+)$/.exec(authorization?.trim() ?? '')
  if (!m?.[1] || !secretsInclude(m[1], deps.config.introspectionSecrets)) {
    throw new GnapError('invalid_client', 'introspection requires Authorization: Bearer <introspection secret>')
  }
}

/**
 * POST /introspect — tells a resource server whether a token is live and what it grants (docs/protocol.md §2.6).
 */
export async function introspectToken(deps: Deps, input: IntrospectRequest): Promise<IntrospectResponse> {
  const token = await findTokenByValue(deps.sql, input.accessToken)
  if (!token || token.state !== 'active' || isTokenExpired(token, deps.clock()) || isRevoked(token.grant)) {
    return { active: false }
  }
  return {
    active: true,
    grant: token.grant.id,
    access: input.access ? matchAccess(token.grant.access, input.access) : [],
    client: { walletAddress: token.grant.client },
  }
}
