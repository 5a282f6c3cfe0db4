import type { SqlRunner } from '../db/sql'

// Every SQL statement about owners' one-time links (invitations and password resets, docs/protocol.md §7). Only the
// SHA-256 of a link's secret is stored.

export type OwnerLinkKind = 'invitation' | 'reset'

export interface OwnerLinkRow {
  id: string
  ownerId: string
  kind: OwnerLinkKind
  expiresAt: Date
  usedAt: Date | null
}

export async function insertOwnerLink(
  db: SqlRunner,
  l: { id: string; ownerId: string; kind: OwnerLinkKind; tokenHash: string; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db.run(`INSERT INTO "OwnerLink" ("id", "ownerId", "kind", "tokenHash", "createdAt", "expiresAt") VALUES ($1, $2, $3, $4, $5, $6)`, [
    l.id,
    l.ownerId,
    l.kind,
    l.tokenHash,
    l.createdAt,
    l.expiresAt,
  ])
}

/** Deletes the owner's unused links of one kind: a newer link replaces them. */
export async function deleteUnusedOwnerLinks(db: SqlRunner, ownerId: string, kind: OwnerLinkKind): Promise<void> {
  await db.run(`DELETE FROM "OwnerLink" WHERE "ownerId" = $1 AND "kind" = $2 AND "usedAt" IS NULL`, [ownerId, kind])
}

export async function findOwnerLinkByHash(db: SqlRunner, tokenHash: string): Promise<OwnerLinkRow | null> {
  const [row] = await db.all<OwnerLinkRow>(`SELECT "id", "ownerId", "kind", "expiresAt", "usedAt" FROM "OwnerLink" WHERE "tokenHash" = $1`, [
    tokenHash,
  ])
  return row ?? null
}

/**
 * Marks a link used if it is still unused and unexpired at `now`; whether it did. The condition is in the UPDATE, so
 * of two uses at the same time exactly one changes the row.
 */
export async function markOwnerLinkUsed(db: SqlRunner, id: string, now: Date): Promise<boolean> {
  const changed = await db.run(`UPDATE "OwnerLink" SET "usedAt" = $1 WHERE "id" = $2 AND "usedAt" IS NULL AND "expiresAt" > $1`, [now, id])
  return changed === 1
}
