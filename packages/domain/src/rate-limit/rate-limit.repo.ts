import type { SqlRunner } from '../db/sql'

// Reads of the fixed-window counters (the counting itself is `hitRateLimit`, rate-limit.ts).

/** The hits counted for `key` in the window starting at `windowStart`; 0 when none. */
export async function findRateLimitCount(db: SqlRunner, key: string, windowStart: Date): Promise<number> {
  const [row] = await db.all<{ count: number }>(`SELECT "count" FROM "RateLimit" WHERE "key" = $1 AND "windowStart" = $2`, [key, windowStart])
  return row?.count ?? 0
}
