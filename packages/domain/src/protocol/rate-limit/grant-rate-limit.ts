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
 * The part of the directed identities' shared allowance one caller address may spend: a quarter (docs/protocol.md
 * §4.5), so that at least four addresses are needed to exhaust it, while one address still gets several grants a
 * minute out of it. At least 1 when the shared allowance is on; 0 (no limit) when it is off.
 */
export function directedIdentityShareOfAddress(sharedAllowance: number): number {
  return sharedAllowance <= 0 ? 0 : Math.max(1, Math.floor(sharedAllowance / 4))
}

/**
 * Counts a grant request of a directed identity (client.jwk, docs/protocol.md §4.5) against the allowance all of
 * them share: a new key costs nothing, so a per-key allowance alone would bound nobody. The shared allowance is the
 * per-address one (RATE_LIMIT_GRANTS_PER_MINUTE_PER_IP); 0 switches it off with it. When the caller's address is
 * known, the request first counts against that address's share of it (directedIdentityShareOfAddress), so one
 * address cannot exhaust the allowance of every other directed identity; with no address known only the shared
 * allowance applies.
 * @throws GnapError request_denied (429) with retryAfterSeconds
 */
export async function admitDirectedIdentityGrantRequest(deps: Deps, address: string | null): Promise<void> {
  const shared = deps.config.grantRequestsPerMinutePerIp
  if (address !== null) {
    const share = directedIdentityShareOfAddress(shared)
    const own = await hitRateLimit(deps.sql, `grant:directed-identities:address:${address}`, share, MINUTE, deps.clock())
    if (!own.allowed) {
      deps.log.info('grant request of a directed identity rate limited (share of one address)')
      deps.metrics.rateLimited('grant_directed_identity_per_address')
      throw tooMany(own.retryAfterSeconds)
    }
  }
  const hit = await hitRateLimit(deps.sql, 'grant:directed-identities', shared, MINUTE, deps.clock())
  if (!hit.allowed) {
    deps.log.info('grant request of a directed identity rate limited (shared allowance)')
    deps.metrics.rateLimited('grant_directed_identities')
    throw tooMany(hit.retryAfterSeconds)
  }
}
