import type { SqlRunner } from '../db/sql'
import { hashSecret } from '../secrets'
import { findSessionRow, type SessionKind, type SessionRow } from './session.repo'

/** The live session of this kind for a cookie value, or null. */
export async function findSession(db: SqlRunner, kind: SessionKind, value: string | null, now: Date): Promise<SessionRow | null> {
  if (!value || value.length > 128) return null
  const session = await findSessionRow(db, hashSecret(value))
  if (!session || session.kind !== kind || session.expiresAt.getTime() <= now.getTime()) return null
  return session
}
