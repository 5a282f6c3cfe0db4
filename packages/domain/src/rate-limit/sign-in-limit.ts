import type { SqlRunner } from '../db/sql'
import { rateLimited } from '../errors'
import { fixedWindow, hitRateLimit } from './rate-limit'
import { findRateLimitCount } from './rate-limit.repo'

/** Failed sign-ins allowed per account and per caller address in one window, before sign-in pauses. */
export const SIGN_IN_LIMITS = { failuresPerEmail: 10, failuresPerIp: 50, windowSeconds: 15 * 60 } as const

type Scope = 'owner' | 'admin'

const keysFor = (scope: Scope, email: string, ip: string | null) => [
  { key: `${scope}-sign-in:email:${email}`, limit: SIGN_IN_LIMITS.failuresPerEmail },
  // Without a known address (no TRUST_PROXY) there is no per-address counter: a shared one would let anyone lock
  // every account out. The per-account counter still bounds guessing.
  ...(ip ? [{ key: `${scope}-sign-in:ip:${ip}`, limit: SIGN_IN_LIMITS.failuresPerIp }] : []),
]

/**
 * Refuses a sign-in while its account or address has used up its failures for the window, before the password
 * is even checked (so a paused account cannot be probed).
 * @throws GnapError request_denied (429, retryAfterSeconds)
 */
export async function assertSignInAllowed(db: SqlRunner, scope: Scope, email: string, ip: string | null, now: Date): Promise<void> {
  const { windowStart, retryAfterSeconds } = fixedWindow(now, SIGN_IN_LIMITS.windowSeconds)
  for (const { key, limit } of keysFor(scope, email, ip)) {
    if ((await findRateLimitCount(db, key, windowStart)) >= limit) {
      throw rateLimited(`too many failed sign-ins: try again in ${Math.ceil(retryAfterSeconds / 60)} min`, retryAfterSeconds)
    }
  }
}

/** Counts a failed sign-in against its account and address. */
export async function countFailedSignIn(db: SqlRunner, scope: Scope, email: string, ip: string | null, now: Date): Promise<void> {
  for (const { key, limit } of keysFor(scope, email, ip)) await hitRateLimit(db, key, limit, SIGN_IN_LIMITS.windowSeconds, now)
}
