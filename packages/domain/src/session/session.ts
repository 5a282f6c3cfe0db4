import { createHash } from 'node:crypto'
import type { DbTx } from '../db/client'
import { hashSecret, newSecret, secretMatches } from '../secrets'

export type SessionKind = 'owner' | 'admin'

/**
 * The CSRF token of a session, derived from the session's cookie value (which scripts and other sites cannot
 * read): forms carry it, and only its hash is stored.
 */
export const csrfTokenFor = (sessionValue: string): string =>
  createHash('sha256').update(`csrf:${sessionValue}`, 'utf8').digest('base64url')

/** Opens a session; the returned value goes into an httpOnly cookie and is stored only as a hash. */
export async function createSession(
  db: DbTx,
  input: { kind: SessionKind; subjectId: string; ttlSeconds: number; now: Date },
): Promise<{ value: string; expiresAt: Date }> {
  const value = newSecret()
  const expiresAt = new Date(input.now.getTime() + input.ttlSeconds * 1000)
  await db.session.create({
    data: { id: hashSecret(value), kind: input.kind, subjectId: input.subjectId, csrfHash: hashSecret(csrfTokenFor(value)), createdAt: input.now, expiresAt },
  })
  return { value, expiresAt }
}

/** The live session of this kind for a cookie value, or null. */
export async function findSession(db: DbTx, kind: SessionKind, value: string | null, now: Date) {
  if (!value || value.length > 128) return null
  const session = await db.session.findUnique({ where: { id: hashSecret(value) } })
  if (!session || session.kind !== kind || session.expiresAt.getTime() <= now.getTime()) return null
  return session
}

/** Whether a form's CSRF token belongs to the session (constant time). */
export const csrfMatches = (session: { csrfHash: string }, token: string | null): boolean =>
  typeof token === 'string' && token.length > 0 && token.length <= 128 && secretMatches(token, session.csrfHash)

export async function endSession(db: DbTx, value: string | null): Promise<void> {
  if (!value || value.length > 128) return
  await db.session.deleteMany({ where: { id: hashSecret(value) } })
}
