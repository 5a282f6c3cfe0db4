import type { SqlRunner } from '../db/sql'

/**
 * Records a signature nonce; false when it was already seen within the window. The primary key decides,
 * so two instances sharing one database can never both accept the same nonce. A record whose window has passed
 * is dropped first, so the same nonce may come back after it.
 */
export async function rememberSignatureNonce(db: SqlRunner, keyRef: string, nonce: string, expiresAt: Date, now: Date): Promise<boolean> {
  await db.run(`DELETE FROM "SignatureNonce" WHERE "keyRef" = $1 AND "nonce" = $2 AND "expiresAt" < $3`, [keyRef, nonce, now])
  const inserted = await db.run(
    `INSERT INTO "SignatureNonce" ("keyRef", "nonce", "expiresAt") VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
    [keyRef, nonce, expiresAt],
  )
  return inserted === 1
}
