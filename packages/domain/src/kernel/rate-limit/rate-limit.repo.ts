import type { SqlRunner } from '../db/sql'

// Every SQL statement about the fixed-window counters (the counting rule is `hitRateLimit`, rate-limit.ts).

/** The hits counted for `key` in the window starting at `windowStart`; 0 when none. */
export async function findRateLimitCount(db: SqlRunner, key: string, windowStart: Date): Promise<number> {
  const [row] = await db.all<{ count: number }>(`SELECT "count" FROM "RateLimit" WHERE "key" = $1 AND "windowStart" = $2`, [key, windowStart])
  return row?.count ?? 0
}

/** Counts one more hit in an existing window row while it is below `limit`; false when full or absent. */
export async function incrementRateLimit(db: SqlRunner, key: string, windowStart: Date, limit: number): Promise<boolean> {
  const changed = await db.run(`UPDATE "RateLimit" SET "count" = "count" + 1 WHERE "key" = $1 AND "windowStart" = $2 AND "count" < $3`, [
    key,
    windowStart,
    limit,
  ])
  return changed === 1
}

/** Creates a window row with its first hit; false when it exists already (the primary key decides). */
export async function insertFirstRateLimitHit(db: SqlRunner, key: string, windowStart: Date): Promise<boolean> {
  return (await db.run(`INSERT INTO "RateLimit" ("key", "windowStart", "count") VALUES ($1, $2, 1) ON CONFLICT DO NOTHING`, [key, windowStart])) === 1
}

/** Deletes up to `take` counters of windows that started before `cutoff`; the number deleted. */
export function deleteRateLimitsBefore(db: SqlRunner, cutoff: Date, take: number): Promise<number> {
  return db.run(
    `DELETE FROM "RateLimit" WHERE ("key", "windowStart") IN (SELECT "key", "windowStart" FROM "RateLimit" WHERE "windowStart" < $1 LIMIT $2)`,
    [cutoff, take],
  )
}

/**
 * Reserves one hit of `key` in the window starting at `windowStart` in one statement: creates the row with a count
 * of 1, or adds 1 to it while it is below `limit`. The new count, or null when the window is full (nothing written).
 * Concurrent reservations are serialised by the row (SQLite's one writer, PostgreSQL's row lock), so no more than
 * `limit` ever succeed.
 */
export async function reserveRateLimitHit(db: SqlRunner, key: string, windowStart: Date, limit: number): Promise<number | null> {
  const [row] = await db.all<{ count: number | string }>(
    `INSERT INTO "RateLimit" ("key", "windowStart", "count") VALUES ($1, $2, 1)
     ON CONFLICT ("key", "windowStart") DO UPDATE SET "count" = "RateLimit"."count" + 1 WHERE "RateLimit"."count" < $3
     RETURNING "count"`,
    [key, windowStart, limit],
  )
  return row ? Number(row.count) : null
}

/** Gives back one reserved hit of `key` in the window starting at `windowStart` (never below 0). */
export async function releaseRateLimitHit(db: SqlRunner, key: string, windowStart: Date): Promise<void> {
  await db.run(`UPDATE "RateLimit" SET "count" = "count" - 1 WHERE "key" = $1 AND "windowStart" = $2 AND "count" > 0`, [key, windowStart])
}
