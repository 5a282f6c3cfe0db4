import type { SqlRunner } from '../../kernel/db/sql'

/**
 * Records a signature nonce; false when it was already seen within the window. The primary key decides, so two
 * instances sharing one database can never both accept the same nonce. One statement: a new nonce is inserted, a
 * record whose window has passed (`expiresAt` before `now`) is taken over, and a live one is left alone (no row
 * changed: a replay).
 */
export async function rememberSignatureNonce(db: SqlRunner, keyRef: string, nonce: string, expiresAt: Date, now: Date): Promise<boolean> {
  const changed = await db.run(
    `INSERT INTO "SignatureNonce" ("keyRef", "nonce", "expiresAt") VALUES ($1, $2, $3)
     ON CONFLICT ("keyRef", "nonce") DO UPDATE SET "expiresAt" = excluded."expiresAt" WHERE "SignatureNonce"."expiresAt" < $4`,
    [keyRef, nonce, expiresAt, now],
  )
  return changed === 1
}

/** Deletes up to `take` nonces whose window closed before `now`; the number deleted. */
export function deleteExpiredSignatureNonces(db: SqlRunner, now: Date, take: number): Promise<number> {
  return db.run(
    `DELETE FROM "SignatureNonce" WHERE ("keyRef", "nonce") IN (SELECT "keyRef", "nonce" FROM "SignatureNonce" WHERE "expiresAt" < $1 LIMIT $2)`,
    [now, take],
  )
}
