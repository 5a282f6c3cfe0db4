import type { SqlRunner } from '../db/sql'
import { incrementRateLimit, insertFirstRateLimitHit } from './rate-limit.repo'

/** The longest window `hitRateLimit` supports: the retention job deletes counters older than this. */
export const MAX_RATE_LIMIT_WINDOW_SECONDS = 86_400

export interface RateLimitHit {
  /** True when this hit was counted within the limit; a refused hit is not counted. */
  allowed: boolean
  /** Whole seconds until the current window ends (at least 1): the `Retry-After` of a refusal. */
  retryAfterSeconds: number
}

/**
 * Counts one hit of `key` in the current fixed window of `windowSeconds` and says whether it is within `limit`
 * (a limit of 0 or less is no limit). The database decides, so every instance sharing it shares the counter: a
 * conditional increment (`count < limit`) succeeds for exactly `limit` hits per window, and the unique key of
 * (key, windowStart) lets one of two concurrent first hits create the row. For grant requests and sign-ins.
 */
export async function hitRateLimit(db: SqlRunner, key: string, limit: number, windowSeconds: number, now: Date): Promise<RateLimitHit> {
  if (!Number.isInteger(windowSeconds) || windowSeconds < 1 || windowSeconds > MAX_RATE_LIMIT_WINDOW_SECONDS) {
    throw new RangeError(`rate limit window must be 1–${MAX_RATE_LIMIT_WINDOW_SECONDS} s`)
  }
  const { windowStart, retryAfterSeconds } = fixedWindow(now, windowSeconds)
  if (limit <= 0) return { allowed: true, retryAfterSeconds }
  if (await incrementRateLimit(db, key, windowStart, limit)) return { allowed: true, retryAfterSeconds }
  if (await insertFirstRateLimitHit(db, key, windowStart)) return { allowed: true, retryAfterSeconds }
  // The row exists: full, or created by a concurrent first hit a moment ago.
  return { allowed: await incrementRateLimit(db, key, windowStart, limit), retryAfterSeconds }
}

/** The fixed window of `windowSeconds` that `now` falls in, and the whole seconds (at least 1) until it ends. */
export function fixedWindow(now: Date, windowSeconds: number): { windowStart: Date; retryAfterSeconds: number } {
  const windowMs = windowSeconds * 1000
  const start = Math.floor(now.getTime() / windowMs) * windowMs
  return { windowStart: new Date(start), retryAfterSeconds: Math.max(1, Math.ceil((start + windowMs - now.getTime()) / 1000)) }
}
