import type { Deps } from '../deps'
import type { RateLimitName } from '../../kernel/metrics'
import { isGnapError, rateLimited, type GnapError } from '../../kernel/errors'
import { fixedWindow, hitRateLimit } from '../../kernel/rate-limit/rate-limit'
import { findRateLimitCount } from '../../kernel/rate-limit/rate-limit.repo'

/**
 * Wrong shared secrets allowed in one window before that caller is answered 429 (docs/protocol.md §7): per caller
 * address when it is known (TRUST_PROXY), else one counter for every caller of that secret.
 */
export const SECRET_FAILURE_LIMITS = { failuresPerIp: 10, failuresWhenAddressUnknown: 100, windowSeconds: 60 } as const

/** The shared secrets callers present: the resource server's introspection bearer, the identity provider's header. */
export type SharedSecret = 'introspection' | 'idp'

/** One caller's failure counter in the current window: which row, its limit, and when the window ends. */
export interface SecretFailureWindow {
  key: string
  /** The limit's name in the metrics. */
  name: RateLimitName
  limit: number
  windowStart: Date
  retryAfterSeconds: number
  now: Date
}

/** The counter that failures of `secret` by the caller at `ip` (null: unknown) go to now. No I/O. */
export function secretFailureWindow(deps: Deps, secret: SharedSecret, ip: string | null): SecretFailureWindow {
  const { key, limit } = ip
    ? { key: `${secret}-secret:ip:${ip}`, limit: SECRET_FAILURE_LIMITS.failuresPerIp }
    : { key: `${secret}-secret:any`, limit: SECRET_FAILURE_LIMITS.failuresWhenAddressUnknown }
  const now = deps.clock()
  const name = secret === 'introspection' ? 'introspection_secret_failures' : 'idp_secret_failures'
  return { key, name, limit, now, ...fixedWindow(now, SECRET_FAILURE_LIMITS.windowSeconds) }
}

const tooMany = (after: number) => rateLimited(`too many wrong secrets: retry after ${after} s`, after)

/**
 * Refuses a caller whose counter, read as `count`, has used up the window's failures: 429 whether the secret it
 * presents now is right or wrong, so the answer cannot tell a right guess from a wrong one.
 * @throws GnapError request_denied (429, retryAfterSeconds)
 */
export function refuseWhenTooManyFailures(deps: Deps, window: SecretFailureWindow, count: number): void {
  if (count < window.limit) return
  deps.metrics.rateLimited(window.name)
  throw tooMany(window.retryAfterSeconds)
}

/** Reads the caller's counter and refuses it when it is full (refuseWhenTooManyFailures). */
export async function checkSecretFailures(deps: Deps, window: SecretFailureWindow): Promise<void> {
  refuseWhenTooManyFailures(deps, window, await findRateLimitCount(deps.sql, window.key, window.windowStart))
}

/**
 * Counts one wrong secret and throws: `refusal` (the 401) while the window has room, 429 once it is full. The
 * conditional increment decides among concurrent failures on every instance: past the limit, this one is refused too.
 * @throws GnapError request_denied (429, retryAfterSeconds), or `refusal`
 */
export async function countSecretFailure(deps: Deps, window: SecretFailureWindow, refusal: GnapError): Promise<never> {
  const hit = await hitRateLimit(deps.sql, window.key, window.limit, SECRET_FAILURE_LIMITS.windowSeconds, window.now)
  if (!hit.allowed) {
    deps.metrics.rateLimited(window.name)
    throw tooMany(hit.retryAfterSeconds)
  }
  throw refusal
}

/**
 * Runs `check` (the comparison of a presented shared secret, which throws a 401 GnapError when it is wrong) under a
 * limit on failures. A caller that has used up its failures of the window is refused 429 before the secret is
 * compared, so the answer cannot tell a right guess from a wrong one; a failure is counted only after `check`
 * refused, so a right secret costs one read and no write. With a known address only that address's failures count,
 * so someone guessing elsewhere does not block a resource server or identity provider that has the secret.
 * (Introspection reads the counter inside its token lookup instead: docs/protocol.md §2.6.)
 * @throws GnapError request_denied (429, retryAfterSeconds), or what `check` throws
 */
export async function limitSecretFailures<T>(deps: Deps, secret: SharedSecret, ip: string | null, check: () => T): Promise<T> {
  const window = secretFailureWindow(deps, secret, ip)
  await checkSecretFailures(deps, window)
  try {
    return check()
  } catch (e) {
    if (!isGnapError(e) || e.status !== 401) throw e
    return countSecretFailure(deps, window, e)
  }
}
