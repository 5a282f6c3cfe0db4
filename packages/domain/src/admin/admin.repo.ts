import type { DbTx } from '../db/client'
import { newId } from '../secrets'

// Administrators and their audit log: every Prisma call of the admin accounts.

export function findAdminByEmail(db: DbTx, email: string) {
  return db.admin.findUnique({ where: { email } })
}

export function findAdminById(db: DbTx, id: string) {
  return db.admin.findUnique({ where: { id }, select: { id: true, email: true } })
}

export function countAdmins(db: DbTx): Promise<number> {
  return db.admin.count()
}

export async function insertAdmin(db: DbTx, input: { email: string; passwordHash: string }): Promise<{ id: string; email: string }> {
  return db.admin.create({
    data: { id: newId(), email: input.email, passwordHash: input.passwordHash },
    select: { id: true, email: true },
  })
}

export interface AuditInput {
  actor: string
  action: AuditAction
  target: string
  detail?: string | null
  now: Date
}

/** What the console records. Dotted `<what>.<verb>`, stable: the console filters and words them. */
export type AuditAction = 'grant.revoke' | 'token.revoke' | 'admin.sign-in' | 'admin.sign-out'

export async function insertAuditEntry(db: DbTx, input: AuditInput): Promise<void> {
  await db.auditLog.create({
    data: { id: newId(), actor: input.actor, action: input.action, target: input.target, detail: input.detail ?? null, createdAt: input.now },
  })
}

/** Newest first; `after` is the last entry of the previous page (keyset on createdAt, then id). */
export function findAuditEntries(db: DbTx, input: { after: { createdAt: Date; id: string } | null; take: number }) {
  const after = input.after
  return db.auditLog.findMany({
    where: after
      ? { AND: [{ createdAt: { lte: after.createdAt } }, { OR: [{ createdAt: { lt: after.createdAt } }, { id: { lt: after.id } }] }] }
      : {},
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: input.take,
  })
}
