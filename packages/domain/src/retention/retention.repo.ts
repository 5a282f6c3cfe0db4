import type { SqlRunner } from '../db/sql'

// The deletions of the retention job: dead access tokens (with the links of their successors), expired signature
// nonces and rate-limit counters of ended windows. Each takes at most `take` rows, so transactions stay short.

const placeholders = (n: number, first = 1) => Array.from({ length: n }, (_, i) => `$${first + i}`).join(', ')

/** Ids of tokens dead (expired, rotated or revoked) before `cutoff`, oldest first. */
export async function findDeadTokenIds(db: SqlRunner, cutoff: Date, take: number): Promise<string[]> {
  const rows = await db.all<{ id: string }>(
    `SELECT "id" FROM "AccessToken" WHERE "expiresAt" < $1 OR "rotatedAt" < $1 OR "revokedAt" < $1 ORDER BY "createdAt" ASC, "id" ASC LIMIT $2`,
    [cutoff, take],
  )
  return rows.map((r) => r.id)
}

/** Deletes these tokens, first setting the `previousId` of their successors to null; the number deleted. */
export async function deleteTokens(tx: SqlRunner, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0
  await tx.run(`UPDATE "AccessToken" SET "previousId" = NULL WHERE "previousId" IN (${placeholders(ids.length)})`, ids)
  return tx.run(`DELETE FROM "AccessToken" WHERE "id" IN (${placeholders(ids.length)})`, ids)
}

/** Deletes up to `take` signature nonces whose window closed before `now`; the number deleted. */
export function deleteExpiredSignatureNonces(db: SqlRunner, now: Date, take: number): Promise<number> {
  return db.run(
    `DELETE FROM "SignatureNonce" WHERE ("keyRef", "nonce") IN (SELECT "keyRef", "nonce" FROM "SignatureNonce" WHERE "expiresAt" < $1 LIMIT $2)`,
    [now, take],
  )
}

/** Deletes up to `take` rate-limit counters of windows that started before `cutoff`; the number deleted. */
export function deleteRateLimitsBefore(db: SqlRunner, cutoff: Date, take: number): Promise<number> {
  return db.run(
    `DELETE FROM "RateLimit" WHERE ("key", "windowStart") IN (SELECT "key", "windowStart" FROM "RateLimit" WHERE "windowStart" < $1 LIMIT $2)`,
    [cutoff, take],
  )
}
