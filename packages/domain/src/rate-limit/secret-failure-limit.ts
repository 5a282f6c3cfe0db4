import type { Deps } from '../deps'
import { isGnapError, rateLimited } from '../errors'
import { fixedWindow, hitRateLimit } from './rate-limit'
import { findRateLimitCount } from './rate-limit.repo'

/**
 * Wrong shared secrets allowed in one window before that caller is answered 429 (docs/protocol.md §7): per caller
 * address when it is known (TRUST_PROXY), else one counter for every caller of that secret.
 */
export const SECRET_FAILURE_LIMITS = { failuresPerIp: 10, failuresWhenAddressUnknown: 100, windowSeconds: 60 } as const

/** The shared secrets callers present: the resource server's introspection bearer, the identity provider's header. */
export type SharedSecret = 'introspection' | 'idp'

/**
 * Runs `check` (the comparison of a presented shared secret, which throws a 401 GnapError when it is wrong) under a
 * limit on failures. A caller that has used up its failures of the window is refused 429 before the secret is
 * compared, so the answer cannot tell a right guess from a wrong one; a failure is counted only after `check`
 * refused, so a right secret costs one read and no write. With a known address only that address's failures count,
 * so someone guessing elsewhere does not block a resource server or identity provider that has the secret.
 * @throws GnapError request_denied (429, retryAfterSeconds), or what `check` throws
 */
export async function limitSecretFailures<T>(deps: Deps, secret: SharedSecret, ip: string | null, check: () => T): Promise<T> {
  const { key, limit } = ip
    ? { key: `${secret}-secret:ip:${ip}`, limit: SECRET_FAILURE_LIMITS.failuresPerIp }
    : { key: `${secret}-secret:any`, limit: SECRET_FAILURE_LIMITS.failuresWhenAddressUnknown }
  const now = deps.clock()
  const { windowStart, retryAfterSeconds } = fixedWindow(now, SECRET_FAILURE_LIMITS.windowSeconds)
  const tooMany = (after: number) => rateLimited(`too many wrong secrets: retry after ${after} s`, after)
  if ((await findRateLimitCount(deps.sql, key, windowStart)) >= limit) throw tooMany(retryAfterSeconds)
  try {
    return check()
  } catch (e) {
    if (!isGnapError(e) || e.status !== 401) throw e
    // The conditional increment decides among concurrent failures: past the limit, this one is refused too.
    const hit = await hitRateLimit(deps.sql, key, limit, SECRET_FAILURE_LIMITS.windowSeconds, now)
    if (!hit.allowed) throw tooMany(hit.retryAfterSeconds)
    throw e
  }
}
