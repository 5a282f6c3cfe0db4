import type { SqlRunner } from '../db/sql'
import { hashSecret, newSecret } from '../secrets'
import { csrfTokenFor } from './csrf'
import { insertSession, type SessionKind } from './session.repo'

/**
 * Opens a session, on the store or inside the caller's transaction; the returned value goes into an httpOnly
 * cookie and is stored only as a hash.
 */
export async function createSession(
  db: SqlRunner,
  input: { kind: SessionKind; subjectId: string; ttlSeconds: number; now: Date },
): Promise<{ value: string; expiresAt: Date }> {
  const value = newSecret()
  const expiresAt = new Date(input.now.getTime() + input.ttlSeconds * 1000)
  await insertSession(db, {
    id: hashSecret(value),
    kind: input.kind,
    subjectId: input.subjectId,
    csrfHash: hashSecret(csrfTokenFor(value)),
    createdAt: input.now,
    expiresAt,
  })
  return { value, expiresAt }
}
