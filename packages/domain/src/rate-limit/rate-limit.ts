import type { SqlRunner } from '../db/sql'

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
  const windowMs = windowSeconds * 1000
  const start = Math.floor(now.getTime() / windowMs) * windowMs
  const retryAfterSeconds = Math.max(1, Math.ceil((start + windowMs - now.getTime()) / 1000))
  if (limit <= 0) return { allowed: true, retryAfterSeconds }
  const windowStart = new Date(start)

  const increment = async () =>
    (await db.run(`UPDATE "RateLimit" SET "count" = "count" + 1 WHERE "key" = $1 AND "windowStart" = $2 AND "count" < $3`, [
      key,
      windowStart,
      limit,
    ])) === 1
  if (await increment()) return { allowed: true, retryAfterSeconds }
  const created = await db.run(`INSERT INTO "RateLimit" ("key", "windowStart", "count") VALUES ($1, $2, 1) ON CONFLICT DO NOTHING`, [
    key,
    windowStart,
  ])
  if (created === 1) return { allowed: true, retryAfterSeconds }
  // The row exists: full, or created by a concurrent first hit a moment ago.
  return { allowed: await increment(), retryAfterSeconds }
}
