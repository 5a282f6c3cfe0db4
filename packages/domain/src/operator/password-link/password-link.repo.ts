import type { SqlRunner } from '../../kernel/db/sql'

// Every SQL statement about one-time links to set a password (invitations and resets, docs/protocol.md §7, §2.14),
// an owner's or an administrator's. Only the SHA-256 of a link's secret is stored.

/** Whose password a link sets: an owner's or an administrator's (as a session's kind names its account). */
export type LinkSubject = 'owner' | 'admin'

export type LinkKind = 'invitation' | 'reset'

export interface PasswordLinkRow {
  id: string
  subjectId: string
  kind: LinkKind
  expiresAt: Date
  usedAt: Date | null
}

export async function insertPasswordLink(
  db: SqlRunner,
  l: { id: string; subject: LinkSubject; subjectId: string; kind: LinkKind; tokenHash: string; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db.run(
    `INSERT INTO "PasswordLink" ("id", "subjectKind", "subjectId", "kind", "tokenHash", "createdAt", "expiresAt") VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [l.id, l.subject, l.subjectId, l.kind, l.tokenHash, l.createdAt, l.expiresAt],
  )
}

/**
 * Deletes every unused link of an account, invitation or reset (docs/security.md, "Password links"): a link is for
 * the password the account had when it was issued, so a new link, a password set or changed, and a disable or
 * enable end them. Used links stay (they say "already used"). The number deleted.
 */
export function deleteUnusedPasswordLinks(db: SqlRunner, subject: LinkSubject, subjectId: string): Promise<number> {
  return db.run(`DELETE FROM "PasswordLink" WHERE "subjectKind" = $1 AND "subjectId" = $2 AND "usedAt" IS NULL`, [subject, subjectId])
}

/** Deletes every link of an account (the account is being deleted). */
export async function deletePasswordLinksOf(db: SqlRunner, subject: LinkSubject, subjectId: string): Promise<void> {
  await db.run(`DELETE FROM "PasswordLink" WHERE "subjectKind" = $1 AND "subjectId" = $2`, [subject, subjectId])
}

/** The link with this hash for an account of this kind: an administrator's secret opens nothing on the owners' page. */
export async function findPasswordLinkByHash(db: SqlRunner, subject: LinkSubject, tokenHash: string): Promise<PasswordLinkRow | null> {
  const [row] = await db.all<PasswordLinkRow>(
    `SELECT "id", "subjectId", "kind", "expiresAt", "usedAt" FROM "PasswordLink" WHERE "tokenHash" = $1 AND "subjectKind" = $2`,
    [tokenHash, subject],
  )
  return row ?? null
}

/**
 * Marks a link used if it is still unused and unexpired at `now`; whether it did. The condition is in the UPDATE, so
 * of two uses at the same time exactly one changes the row.
 */
export async function markPasswordLinkUsed(db: SqlRunner, id: string, now: Date): Promise<boolean> {
  const changed = await db.run(`UPDATE "PasswordLink" SET "usedAt" = $1 WHERE "id" = $2 AND "usedAt" IS NULL AND "expiresAt" > $1`, [now, id])
  return changed === 1
}
