import type { SqlRunner } from '../db/sql'

// Every SQL statement about browser sessions (owners' and administrators'). Only hashes are stored: the id is the
// SHA-256 of the cookie value, `csrfHash` that of the session's CSRF token.

export type SessionKind = 'owner' | 'admin'

export interface SessionRow {
  id: string
  kind: SessionKind
  subjectId: string
  csrfHash: string
  createdAt: Date
  expiresAt: Date
}

export async function insertSession(db: SqlRunner, s: SessionRow): Promise<void> {
  await db.run(`INSERT INTO "Session" ("id", "kind", "subjectId", "csrfHash", "createdAt", "expiresAt") VALUES ($1, $2, $3, $4, $5, $6)`, [
    s.id,
    s.kind,
    s.subjectId,
    s.csrfHash,
    s.createdAt,
    s.expiresAt,
  ])
}

export async function findSessionRow(db: SqlRunner, id: string): Promise<SessionRow | null> {
  const [row] = await db.all<SessionRow>(`SELECT "id", "kind", "subjectId", "csrfHash", "createdAt", "expiresAt" FROM "Session" WHERE "id" = $1`, [
    id,
  ])
  return row ?? null
}

export async function deleteSession(db: SqlRunner, id: string): Promise<void> {
  await db.run(`DELETE FROM "Session" WHERE "id" = $1`, [id])
}

/** Deletes up to `take` sessions expired at `now` (as `findSession` sees them); the number deleted. */
export function deleteExpiredSessions(db: SqlRunner, now: Date, take: number): Promise<number> {
  return db.run(`DELETE FROM "Session" WHERE "id" IN (SELECT "id" FROM "Session" WHERE "expiresAt" <= $1 LIMIT $2)`, [now, take])
}

/** Ends every session of one account; how many there were. */
export function deleteSessionsOf(db: SqlRunner, kind: SessionKind, subjectId: string): Promise<number> {
  return db.run(`DELETE FROM "Session" WHERE "kind" = $1 AND "subjectId" = $2`, [kind, subjectId])
}

/** The live sessions of one account at `now`, newest first. */
export function listSessionsOf(db: SqlRunner, kind: SessionKind, subjectId: string, now: Date): Promise<SessionRow[]> {
  return db.all<SessionRow>(
    `SELECT "id", "kind", "subjectId", "csrfHash", "createdAt", "expiresAt" FROM "Session"
     WHERE "kind" = $1 AND "subjectId" = $2 AND "expiresAt" > $3 ORDER BY "createdAt" DESC, "id"`,
    [kind, subjectId, now],
  )
}

/** Ends every session of one account but `keepId`; the number ended. */
export function deleteOtherSessionsOf(db: SqlRunner, kind: SessionKind, subjectId: string, keepId: string): Promise<number> {
  return db.run(`DELETE FROM "Session" WHERE "kind" = $1 AND "subjectId" = $2 AND "id" <> $3`, [kind, subjectId, keepId])
}
