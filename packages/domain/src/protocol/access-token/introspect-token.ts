import type { Deps } from '../deps'
import { GnapError } from '../../kernel/errors'
import { matchAccess } from '../access/access-rules'
import { secretsInclude } from '../../kernel/secrets'
import { isRevoked } from '../grant/grant-state'
import {
  checkSecretFailures,
  countSecretFailure,
  refuseWhenTooManyFailures,
  secretFailureWindow,
  type SecretFailureWindow,
} from '../rate-limit/secret-failure-limit'
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
 * counter (401, or 429 once the window's failures are used up). With the right one, the counter is read in the same
 * statement as the token, and a caller whose failures are used up gets 429 instead of the answer; a body of the
 * wrong shape reads it on its own before its 400, so no answer tells a right guess from a wrong one.
 * @throws GnapError invalid_client (401), request_denied (429), invalid_request (400)
 */
export async function introspectForResourceServer(deps: Deps, caller: IntrospectionCaller, body: unknown): Promise<IntrospectResponse> {
  const window = secretFailureWindow(deps, 'introspection', caller.ip)
  if (!presentsIntrospectionSecret(deps, caller.authorization)) return countSecretFailure(deps, window, wrongSecret())
  let input: IntrospectRequest
  try {
    input = parseIntrospectRequest(body)
  } catch (e) {
    await checkSecretFailures(deps, window)
    throw e
  }
  return introspectToken(deps, input, window)
}

/**
 * Tells a resource server whether a token is live and what it grants (docs/protocol.md §2.6). With `failures`, the
 * caller's failure counter refuses it when full (429): read in the same statement as a known token, on its own for
 * an unknown one.
 * @throws GnapError request_denied (429)
 */
export async function introspectToken(deps: Deps, input: IntrospectRequest, failures?: SecretFailureWindow): Promise<IntrospectResponse> {
  const found = await findTokenForIntrospection(deps.sql, input.accessToken, failures ?? NO_COUNTER)
  if (failures) {
    if (found) refuseWhenTooManyFailures(deps, failures, found.secretFailures)
    else await checkSecretFailures(deps, failures)
  }
  const token = found?.token
  if (!token || token.state !== 'active' || isTokenExpired(token, deps.clock()) || isRevoked(token.grant)) {
    deps.metrics.introspection(false)
    return { active: false }
  }
  deps.metrics.introspection(true)
  return {
    active: true,
    grant: token.grant.id,
    // Without `access`, every item of the grant, as granted (docs/protocol.md §2.6): the cached, frozen list itself.
    access: input.access ? matchAccess(token.grant.access, input.access) : token.grant.access,
    client: introspectedClient(token.grant),
  }
}

/**
 * token-introspection.yaml client: `{jwk}` for a directed identity (docs/protocol.md §4.5), `{walletAddress}` for
 * every other client, as before.
 */
function introspectedClient(grant: { client: string; clientJwk: string | null }): IntrospectedClient {
  const { id, jwk } = storedClient(grant)
  return jwk ? { jwk } : { walletAddress: id }
}

/** A counter key no failure is ever counted on: the lookup without a caller. */
const NO_COUNTER = { key: '', windowStart: new Date(0) }
