import type { AuditLog } from '../db/generated/client'
import type { SqlRunner } from '../db/sql'
import type { ReadModels } from '../db/read-models'
import { newId } from '../secrets'

// The audit log: written through SQL in the transaction of the action it records, listed by the console through
// its read models.

/** What the console records. Dotted `<what>.<verb>`, stable: the console filters and words them. */
export type AuditAction =
  | 'grant.revoke'
  | 'token.revoke'
  | 'admin.sign-in'
  | 'admin.sign-out'
  | 'admin.invite'
  | 'admin.role'
  | 'admin.disable'
  | 'admin.enable'
  | 'admin.reset-password'
  | 'admin.sign-out-everywhere'
  | 'admin.set-password'
  | 'owner.create'
  | 'owner.edit'
  | 'owner.wallet-address.add'
  | 'owner.wallet-address.remove'
  | 'owner.disable'
  | 'owner.enable'
  | 'owner.delete'
  | 'owner.link'
  | 'owner.set-password'
  | 'owner.import'

export async function insertAuditEntry(
  db: SqlRunner,
  input: { actor: string; action: AuditAction; target: string; detail?: string | null; now: Date },
): Promise<void> {
  await db.run(`INSERT INTO "AuditLog" ("id", "actor", "action", "target", "detail", "createdAt") VALUES ($1, $2, $3, $4, $5, $6)`, [
    newId(),
    input.actor,
    input.action,
    input.target,
    input.detail ?? null,
    input.now,
  ])
}

/** Newest first; `after` is the last entry of the previous page (keyset on createdAt, then id). */
export function findAuditEntries(reads: ReadModels, input: { after: { createdAt: Date; id: string } | null; take: number }): Promise<AuditLog[]> {
  const after = input.after
  return reads.auditLog.findMany({
    where: after
      ? { AND: [{ createdAt: { lte: after.createdAt } }, { OR: [{ createdAt: { lt: after.createdAt } }, { id: { lt: after.id } }] }] }
      : {},
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: input.take,
  })
}

/** The newest entries about one target (`owner:<id>`), newest first. */
export function findAuditEntriesAbout(
  db: SqlRunner,
  target: string,
  take: number,
): Promise<{ id: string; actor: string; action: string; detail: string | null; createdAt: Date }[]> {
  return db.all(
    `SELECT "id", "actor", "action", "detail", "createdAt" FROM "AuditLog" WHERE "target" = $1 ORDER BY "createdAt" DESC, "id" DESC LIMIT $2`,
    [target, take],
  )
}
