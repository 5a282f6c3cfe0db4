import type { Deps } from '../deps'
import { GnapError } from '../../kernel/errors'
import { matchAccess } from '../access/access-rules'
import { secretsInclude } from '../../kernel/secrets'
import { isRevoked } from '../grant/grant-state'
import { countSecretFailure } from '../rate-limit/secret-failure-limit'
import { findTokenForIntrospection, isTokenExpired } from './access-token.repo'
import { storedClient } from '../client/client-instance'
import { parseIntrospectRequest, type IntrospectedClient, type IntrospectRequest, type IntrospectResponse } from './access-token.wire'

const wrongSecret = () => new GnapError('invalid_client', 'introspection requires Authorization: Bearer <introspection secret>')

/** Whether `authorization` is `Bearer <secret>` with one of INTROSPECTION_SECRET's entries, compared in constant time. */
function presentsIntrospectionSecret(deps: Deps, authorization: string | null): boolean {
  const m = /^Bearer (\S+)$/.exec(authorization?.trim() ?? '')
  return m?.[1] !== undefined && secretsInclude(m[1], deps.config.introspectionSecrets)
}

/**
 * The resource server's credential: `Authorization: Bearer <secret>`, one of INTROSPECTION_SECRET's entries, compared
 * in constant time (docs/protocol.md §7).
 * @throws GnapError invalid_client (401)
 */
export function authenticateResourceServer(deps: Deps, authorization: string | null): void {
  if (!presentsIntrospectionSecret(deps, authorization)) throw wrongSecret()
}

/** Who asks: the `Authorization` header as sent, and the caller's address for the failure limit (null: unknown). */
export interface IntrospectionCaller {
  authorization: string | null
  ip: string | null
}

/**
 * POST /introspect, and POST / of the introspection listener: the whole operation after the body's JSON, the same
 * for both (docs/protocol.md §2.6). The secret is compared first. A wrong one is counted on the caller's failure
 * counter (401, or 429 once the window's failures are used up); the right one is answered whatever the counters
 * say, so other callers' wrong secrets never switch introspection off.
 * @throws GnapError invalid_client (401), request_denied (429), invalid_request (400)
 */
export async function introspectForResourceServer(deps: Deps, caller: IntrospectionCaller, body: unknown): Promise<IntrospectResponse> {
  if (!presentsIntrospectionSecret(deps, caller.authorization)) return countSecretFailure(deps, 'introspection', caller.ip, wrongSecret())
  return introspectToken(deps, parseIntrospectRequest(body))
}

/**
 * POST / of the introspection listener with INTROSPECTION_PORT_AUTH=none (docs/protocol.md §2.6): Rafiki's backend
 * introspects without credentials, so none is asked for and nothing is counted; body and answer as /introspect's.
 * The public POST /introspect never comes here: it always goes through introspectForResourceServer.
 * @throws GnapError invalid_request (400)
 */
export async function introspectWithoutCredentials(deps: Deps, body: unknown): Promise<IntrospectResponse> {
  return introspectToken(deps, parseIntrospectRequest(body))
}

/** Tells a resource server whether a token is live and what it grants (docs/protocol.md §2.6). */
export async function introspectToken(deps: Deps, input: IntrospectRequest): Promise<IntrospectResponse> {
  const token = await findTokenForIntrospection(deps.sql, input.accessToken)
  const live = token !== null && token.state === 'active' && !isTokenExpired(token, deps.clock()) && !isRevoked(token.grant)
  const client = live ? introspectedClient(deps, token.grant) : null
  if (!live || client === null) {
    deps.metrics.introspection(false)
    return { active: false }
  }
  deps.metrics.introspection(true)
  return {
    active: true,
    grant: token.grant.id,
    // Without `access`, every item of the grant, as granted (docs/protocol.md §2.6): the cached, frozen list itself.
    access: input.access ? matchAccess(token.grant.access, input.access) : token.grant.access,
    client,
  }
}

/**
 * token-introspection.yaml client: `{jwk}` for a directed identity (docs/protocol.md §4.5), `{walletAddress}` for
 * every other client. With INTROSPECTION_CLIENT_FORMAT=string, the wallet address alone, as backends up to Rafiki v2.3
 * read it; such a backend cannot check a directed identity's key, so that token gets null (answered inactive).
 */
function introspectedClient(deps: Deps, grant: { client: string; clientJwk: string | null }): IntrospectedClient | string | null {
  const { id, jwk } = storedClient(grant)
  if (deps.config.introspectionClientFormat === 'string') return jwk ? null : id
  return jwk ? { jwk } : { walletAddress: id }
}
