import type { Deps } from '../deps'
import type { RateLimitName } from '../../kernel/metrics'
import { isGnapError, rateLimited, type GnapError } from '../../kernel/errors'
import { fixedWindow, hitRateLimit } from '../../kernel/rate-limit/rate-limit'

/**
 * Wrong shared secrets allowed in one window before more wrong ones are answered 429 (docs/protocol.md §2.6): per
 * caller address when it is known (the socket's, or the trusted proxies' entry with TRUST_PROXY), else one counter
 * for every caller of that secret. The right secret is never refused by these counters.
 */
export const SECRET_FAILURE_LIMITS = { failuresPerIp: 10, failuresWhenAddressUnknown: 100, windowSeconds: 60 } as const

/** The shared secrets callers present: the resource server's introspection bearer, the identity provider's header. */
export type SharedSecret = 'introspection' | 'idp'

/**
 * Counts one wrong secret of `secret` from the caller at `ip` (null: unknown) and throws: `refusal` (the 401) while
 * the window has room, 429 once it is full. The conditional increment decides among concurrent failures on every
 * instance: past the limit, this one is refused too.
 * @throws GnapError request_denied (429, retryAfterSeconds), or `refusal`
 */
export async function countSecretFailure(deps: Deps, secret: SharedSecret, ip: string | null, refusal: GnapError): Promise<never> {
  const { key, limit } = ip
    ? { key: `${secret}-secret:ip:${ip}`, limit: SECRET_FAILURE_LIMITS.failuresPerIp }
    : { key: `${secret}-secret:any`, limit: SECRET_FAILURE_LIMITS.failuresWhenAddressUnknown }
  const hit = await hitRateLimit(deps.sql, key, limit, SECRET_FAILURE_LIMITS.windowSeconds, deps.clock())
  if (!hit.allowed) {
    deps.metrics.rateLimited(secret === 'introspection' ? 'introspection_secret_failures' : 'idp_secret_failures')
    throw rateLimited(`too many wrong secrets: retry after ${hit.retryAfterSeconds} s`, hit.retryAfterSeconds)
  }
  throw refusal
}

/**
 * Runs `check` (the comparison of a presented shared secret, which throws a 401 GnapError when it is wrong) under a
 * limit on failures (docs/protocol.md §2.6). The right secret passes whatever the counters say, so nobody's wrong
 * guesses, from any address, can lock out a resource server or identity provider that has it: what keeps the secret
 * from being guessed is its length (docs/protocol.md §7). A wrong one is counted on its caller's counter and answered
 * 401, or 429 once that counter is full. A right secret costs no read and no write.
 * @throws GnapError request_denied (429, retryAfterSeconds), or what `check` throws
 */
export async function limitSecretFailures<T>(deps: Deps, secret: SharedSecret, ip: string | null, check: () => T | Promise<T>): Promise<T> {
  try {
    return await check()
  } catch (e) {
    if (!isGnapError(e) || e.status !== 401) throw e
    return countSecretFailure(deps, secret, ip, e)
  }
}
