import type { Deps } from '../deps'
import { rateLimited } from '../../kernel/errors'
import { hitRateLimit } from '../../kernel/rate-limit/rate-limit'

const MINUTE = 60

// 429 is not in auth-server.yaml post-request: a deliberate deviation (docs/differences.md). RFC 9635 §3.6 has no code for
// rate limiting; request_denied ("the request was denied for an unspecified reason") is the closest, and clients
// treat it as final for this request while Retry-After says when to try again.
const tooMany = (retryAfterSeconds: number) => rateLimited(`too many grant requests: retry after ${retryAfterSeconds} s`, retryAfterSeconds)

/**
 * Counts a grant request (POST /) against the caller's address, before anything else is looked at.
 * `ip` is null when the address is not known (no TRUST_PROXY): such requests are not limited per address, since
 * one shared counter would let any caller exhaust the allowance of everyone; the per-client limit still applies.
 * @throws GnapError request_denied (429) with retryAfterSeconds
 */
export async function admitGrantRequestFromIp(deps: Deps, ip: string | null): Promise<void> {
  if (ip === null) return
  const hit = await hitRateLimit(deps.sql, `grant:ip:${ip}`, deps.config.grantRequestsPerMinutePerIp, MINUTE, deps.clock())
  if (!hit.allowed) {
    deps.metrics.rateLimited('grant_per_ip')
    throw tooMany(hit.retryAfterSeconds)
  }
}

/**
 * Counts a grant request against its client wallet address. Called after the signature verified, so nobody can
 * spend another client's allowance by naming its wallet address.
 * @throws GnapError request_denied (429) with retryAfterSeconds
 */
export async function admitGrantRequestFromClient(deps: Deps, client: string): Promise<void> {
  const hit = await hitRateLimit(deps.sql, `grant:client:${client}`, deps.config.grantRequestsPerMinutePerClient, MINUTE, deps.clock())
  if (!hit.allowed) {
    deps.log.info({ client }, 'grant request rate limited')
    deps.metrics.rateLimited('grant_per_client')
    throw tooMany(hit.retryAfterSeconds)
  }
}

/**
 * Counts a grant request of a directed identity (client.jwk, docs/protocol.md §4.5) against the allowance all of
 * them share: a new key costs nothing, so a per-key allowance alone would bound nobody. The shared allowance is the
 * per-address one (RATE_LIMIT_GRANTS_PER_MINUTE_PER_IP); 0 switches it off with it.
 * @throws GnapError request_denied (429) with retryAfterSeconds
 */
export async function admitDirectedIdentityGrantRequest(deps: Deps): Promise<void> {
  const hit = await hitRateLimit(deps.sql, 'grant:directed-identities', deps.config.grantRequestsPerMinutePerIp, MINUTE, deps.clock())
  if (!hit.allowed) {
    deps.log.info('grant request of a directed identity rate limited (shared allowance)')
    deps.metrics.rateLimited('grant_directed_identities')
    throw tooMany(hit.retryAfterSeconds)
  }
}
