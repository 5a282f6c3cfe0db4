import type { AuditLog, Prisma } from '../../kernel/db/generated/client'
import type { SqlRunner } from '../../kernel/db/sql'
import type { ReadModels } from '../../kernel/db/read-models'
import { newId } from '../../kernel/secrets'

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
  | 'admin.reset-two-step'
  | 'admin.set-password'
  | 'admin.password-change'
  | 'admin.session-end'
  | 'admin.totp-enable'
  | 'admin.totp-disable'
  | 'admin.recovery-codes-renew'
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
  | 'client.block'
  | 'client.unblock'
  | 'api-key.create'
  | 'api-key.revoke'
  | 'webhook.create'
  | 'webhook.update'
  | 'webhook.enable'
  | 'webhook.disable'
  | 'webhook.rotate-secret'
  | 'webhook.delete'
  | 'webhook.test'
  | 'webhook.replay'

/** Every action, for the log's filter (an exact action filter must name one of these). */
export const AUDIT_ACTIONS = [
  'grant.revoke',
  'token.revoke',
  'admin.sign-in',
  'admin.sign-out',
  'admin.password-change',
  'admin.session-end',
  'admin.totp-enable',
  'admin.totp-disable',
  'admin.recovery-codes-renew',
  'owner.create',
  'owner.edit',
  'owner.wallet-address.add',
  'owner.wallet-address.remove',
  'owner.disable',
  'owner.enable',
  'owner.delete',
  'owner.link',
  'owner.set-password',
  'owner.import',
  'admin.invite',
  'admin.role',
  'admin.disable',
  'admin.enable',
  'admin.reset-password',
  'admin.sign-out-everywhere',
  'admin.reset-two-step',
  'admin.set-password',
  'client.block',
  'client.unblock',
  'api-key.create',
  'api-key.revoke',
  'webhook.create',
  'webhook.update',
  'webhook.enable',
  'webhook.disable',
  'webhook.rotate-secret',
  'webhook.delete',
  'webhook.test',
  'webhook.replay',
] as const satisfies readonly AuditAction[]

// An action added to the type but not to the list fails the type check here.
type UnlistedAction = Exclude<AuditAction, (typeof AUDIT_ACTIONS)[number]>
const everyActionListed: [UnlistedAction] extends [never] ? true : UnlistedAction = true
void everyActionListed

export async function insertAuditEntry(
  db: SqlRunner,
  /** `tenantId`: the tenant whose owner, grant or endpoint the entry is about (docs/protocol.md §2.21); none: no one tenant's. */
  input: { actor: string; action: AuditAction; target: string; detail?: string | null; now: Date; tenantId?: string | null },
): Promise<void> {
  await db.run(`INSERT INTO "AuditLog" ("id", "actor", "action", "target", "detail", "createdAt", "tenantId") VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
    newId(),
    input.actor,
    input.action,
    input.target,
    input.detail ?? null,
    input.now,
    input.tenantId ?? null,
  ])
}

/** A text column's filter: the whole value, or its beginning. */
export interface TextMatch {
  value: string
  match: 'exact' | 'prefix'
}

export interface AuditFilters {
  actor?: TextMatch | undefined
  action?: TextMatch | undefined
  target?: TextMatch | undefined
  /** Inclusive. */
  createdFrom?: Date | undefined
  /** Exclusive. */
  createdTo?: Date | undefined
}

// The highest code point: every string that starts with a prefix sorts below prefix + this (binary collation).
const AFTER_ALL = '\u{10FFFF}'

/**
 * A prefix is a range, not LIKE (docs/protocol.md §2.15): exact and case-sensitive, `%` and `_` are plain
 * characters, and the (column, createdAt) index bounds the scan. SQLite compares text in binary; on PostgreSQL the
 * three columns are COLLATE "C" for the same order.
 */
const textCondition = (m: TextMatch) => (m.match === 'exact' ? m.value : { gte: m.value, lt: m.value + AFTER_ALL })

/** Every filter is one conjunct of a single AND: no filter can widen another. */
function auditConjuncts(f: AuditFilters): Prisma.AuditLogWhereInput[] {
  const and: Prisma.AuditLogWhereInput[] = []
  if (f.actor !== undefined) and.push({ actor: textCondition(f.actor) })
  if (f.action !== undefined) and.push({ action: textCondition(f.action) })
  if (f.target !== undefined) and.push({ target: textCondition(f.target) })
  if (f.createdFrom !== undefined) and.push({ createdAt: { gte: f.createdFrom } })
  if (f.createdTo !== undefined) and.push({ createdAt: { lt: f.createdTo } })
  return and
}

/**
 * Newest first; `after` is the last entry of the previous page (keyset on createdAt, then id), written as
 * `createdAt <= v AND (createdAt < v OR id < i)` so the index bounds the scan.
 */
export function findAuditEntries(
  reads: ReadModels,
  input: {
    filters?: AuditFilters
    after: { createdAt: Date; id: string } | null
    take: number
    /** Each keeps one tenant's entries only (tenants.ts rowsOfTenant): the caller's binding, the tenant filter. */
    tenants?: Prisma.AuditLogWhereInput[]
  },
): Promise<AuditLog[]> {
  const and = [...auditConjuncts(input.filters ?? {}), ...(input.tenants ?? [])]
  const after = input.after
  if (after) and.push({ createdAt: { lte: after.createdAt } }, { OR: [{ createdAt: { lt: after.createdAt } }, { id: { lt: after.id } }] })
  return reads.auditLog.findMany({
    where: { AND: and },
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
