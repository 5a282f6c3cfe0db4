import type { SqlRunner, SqlValue } from '../../kernel/db/sql'
import type { FinalizedReason, GrantState } from '../../protocol/grant/grant-state'
import type { InteractionState } from '../../protocol/grant/grant-state'

// Every SQL statement of the owner's own account page: the owner with their wallet addresses, the grants of their
// tenant whose access items name one of those addresses (or a resource below one), and the owner's password and
// sessions.

export interface AccountOwner {
  id: string
  email: string
  name: string
  passwordHash: string
  /** Null: the operator tenant's (or, without one, the implicit tenant's) owner. */
  tenantId: string | null
  walletAddresses: string[]
}

export async function findAccountOwner(db: SqlRunner, id: string): Promise<AccountOwner | null> {
  const [owner] = await db.all<Omit<AccountOwner, 'walletAddresses'>>(
    // An owner of a deleted tenant has no account any more (docs/protocol.md §2.21): their sessions read as signed out.
    `SELECT o."id", o."email", o."name", o."passwordHash", o."tenantId" FROM "Owner" o
       LEFT JOIN "Tenant" t ON t."id" = o."tenantId" WHERE o."id" = $1 AND t."deletedAt" IS NULL`,
    [id],
  )
  if (!owner) return null
  const rows = await db.all<{ url: string }>(`SELECT "url" FROM "OwnerWalletAddress" WHERE "ownerId" = $1 ORDER BY "url"`, [id])
  return { ...owner, walletAddresses: rows.map((r) => r.url) }
}

/** A grant as the account page reads it, with its interaction's decision and its newest token's time. */
export interface AccountGrantRow {
  id: string
  client: string
  clientName: string | null
  state: GrantState
  finalizedReason: FinalizedReason | null
  createdAt: Date
  finalizedAt: Date | null
  interactionState: InteractionState | null
  decidedAt: Date | null
  lastTokenAt: Date | null
}

const GRANT_COLUMNS = `g."id", g."client", g."clientName", g."state", g."finalizedReason", g."createdAt", g."finalizedAt",
  i."state" AS "interactionState", i."decidedAt",
  (SELECT MAX(t."createdAt") FROM "AccessToken" t WHERE t."grantId" = g."id") AS "lastTokenAt"`

/**
 * Whose grants a query reads: those naming the owner's wallet addresses, of the owner's tenant only. `tenant` writes
 * the condition on a grant's `tenantId` column, pushing its parameters (protocol/tenant/tenants.ts sqlRowsOfTenant).
 */
export interface GrantScope {
  walletAddresses: string[]
  tenant: (column: string, params: SqlValue[]) => string
}

/**
 * `<alias>."identifier"` names one of `walletAddresses` or a resource below it, as stored: a condition over the
 * parameters pushed once, usable for several aliases. A pre-selection: protocol/owner/owns-access.ts decides.
 */
function naming(params: SqlValue[], walletAddresses: string[]): (alias: string) => string {
  const positions = walletAddresses.map((wa) => {
    params.push(wa, `${wa}/`, wa.length + 1)
    return params.length
  })
  return (a) => positions.map((n) => `${a}."identifier" = $${n - 2} OR substr(${a}."identifier", 1, $${n}) = $${n - 1}`).join(' OR ')
}

const LIVE = `(g."state" = 'approved' OR (g."state" = 'finalized' AND g."finalizedReason" = 'issued'))`

/** A date an aggregate returns: MAX() of a date column comes back as text on SQLite. */
const aggregateDate = (d: Date | string | null): Date | null => (d === null ? null : new Date(d))

/**
 * Grants of the scope's tenant with at least one access item naming one of its wallet addresses or a resource below it, as stored (a
 * pre-selection: the caller keeps those the owner owns in full, protocol/owner/owns-access.ts). Newest first, at most
 * `take` after skipping `skip`. `live` keeps approved and issued grants only; `consent` keeps those whose
 * interaction was approved (by the owner or the identity provider), or decided either way.
 */
export async function findGrantsNaming(
  db: SqlRunner,
  scope: GrantScope,
  options: { live: boolean; take: number; skip?: number; grantId?: string; consent?: 'approved' | 'decided' },
): Promise<AccountGrantRow[]> {
  if (scope.walletAddresses.length === 0) return []
  const params: SqlValue[] = []
  let where = `EXISTS (SELECT 1 FROM "AccessItem" a WHERE a."grantId" = g."id" AND (${naming(params, scope.walletAddresses)('a')}))`
  where += ` AND ${scope.tenant('g."tenantId"', params)}`
  if (options.live) where += ` AND ${LIVE}`
  if (options.consent === 'approved') where += ` AND i."state" = 'approved'`
  if (options.consent === 'decided') where += ` AND i."decidedAt" IS NOT NULL`
  if (options.grantId !== undefined) {
    params.push(options.grantId)
    where += ` AND g."id" = $${params.length}`
  }
  params.push(options.take, options.skip ?? 0)
  const rows = await db.all<AccountGrantRow & { lastTokenAt: Date | string | null }>(
    `SELECT ${GRANT_COLUMNS} FROM "Grant" g LEFT JOIN "Interaction" i ON i."grantId" = g."id" WHERE ${where}
     ORDER BY g."createdAt" DESC, g."id" DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  )
  return rows.map((r) => ({ ...r, lastTokenAt: aggregateDate(r.lastTokenAt) }))
}

/**
 * The condition on `g` for the live grants of the scope's tenant nobody consented to (no interaction: non-interactive
 * incoming-payment or quote access, docs/protocol.md §2.1) whose access items all name its wallet addresses or
 * resources below them, as stored; of one client when `client` is given.
 */
function unapprovedWhere(params: SqlValue[], scope: GrantScope, client?: string): string {
  const names = naming(params, scope.walletAddresses)
  let where = `${LIVE} AND ${scope.tenant('g."tenantId"', params)} AND NOT EXISTS (SELECT 1 FROM "Interaction" i WHERE i."grantId" = g."id")
    AND EXISTS (SELECT 1 FROM "AccessItem" n WHERE n."grantId" = g."id" AND (${names('n')}))
    AND NOT EXISTS (SELECT 1 FROM "AccessItem" o WHERE o."grantId" = g."id" AND o."identifier" IS NOT NULL AND NOT (${names('o')}))`
  if (client !== undefined) {
    params.push(client)
    where += ` AND g."client" = $${params.length}`
  }
  return where
}

/** The grants of one client nobody consented to: how many, and when the newest was made. */
export interface UnapprovedGroup {
  client: string
  clientName: string | null
  grants: number
  newestAt: Date
}

/**
 * The live grants in the scope nobody consented to, grouped and counted per client in SQL: most grants
 * first, at most `take` groups after `skip`; with the numbers of clients and grants in all. Of one client only when
 * `client` is given.
 */
export async function countUnapprovedByClient(
  db: SqlRunner,
  scope: GrantScope,
  page: { take: number; skip: number; client?: string },
): Promise<{ groups: UnapprovedGroup[]; clients: number; grants: number }> {
  if (scope.walletAddresses.length === 0) return { groups: [], clients: 0, grants: 0 }
  const params: SqlValue[] = []
  const where = unapprovedWhere(params, scope, page.client)
  const [totals] = await db.all<{ clients: number | string; grants: number | string }>(
    `SELECT COUNT(DISTINCT g."client") AS "clients", COUNT(*) AS "grants" FROM "Grant" g WHERE ${where}`,
    params,
  )
  if (!totals || Number(totals.grants) === 0) return { groups: [], clients: 0, grants: 0 }
  // COUNT() is a bigint on PostgreSQL, which node-postgres hands over as text.
  const rows = await db.all<{ client: string; clientName: string | null; grants: number | string; newestAt: Date | string }>(
    `SELECT g."client", MAX(g."clientName") AS "clientName", COUNT(*) AS "grants", MAX(g."createdAt") AS "newestAt"
     FROM "Grant" g WHERE ${where} GROUP BY g."client" ORDER BY COUNT(*) DESC, g."client" LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, page.take, page.skip],
  )
  return {
    groups: rows.map((r) => ({ client: r.client, clientName: r.clientName, grants: Number(r.grants), newestAt: new Date(r.newestAt) })),
    clients: Number(totals.clients),
    grants: Number(totals.grants),
  }
}

/** Of one client's grants in the scope nobody consented to: how many grants hold each access type. */
export async function countUnapprovedAccessTypes(db: SqlRunner, scope: GrantScope, client: string): Promise<{ type: string; grants: number }[]> {
  if (scope.walletAddresses.length === 0) return []
  const params: SqlValue[] = []
  const where = unapprovedWhere(params, scope, client)
  const rows = await db.all<{ type: string; grants: number | string }>(
    `SELECT a."type", COUNT(DISTINCT a."grantId") AS "grants" FROM "AccessItem" a JOIN "Grant" g ON g."id" = a."grantId"
     WHERE ${where} GROUP BY a."type" ORDER BY a."type"`,
    params,
  )
  return rows.map((r) => ({ type: r.type, grants: Number(r.grants) }))
}

/** The ids of one client's grants in the scope nobody consented to, oldest first. */
export async function findUnapprovedGrantIds(db: SqlRunner, scope: GrantScope, client: string): Promise<string[]> {
  if (scope.walletAddresses.length === 0) return []
  const params: SqlValue[] = []
  const where = unapprovedWhere(params, scope, client)
  const rows = await db.all<{ id: string }>(`SELECT g."id" FROM "Grant" g WHERE ${where} ORDER BY g."createdAt", g."id"`, params)
  return rows.map((r) => r.id)
}

/** Who revoked each of these grants by hand, from the audit log (`grant:<id>` → actor); absent when nobody did. */
export async function findRevokers(db: SqlRunner, grantIds: string[]): Promise<Map<string, string>> {
  if (grantIds.length === 0) return new Map()
  const rows = await db.all<{ target: string; actor: string }>(
    `SELECT "target", "actor" FROM "AuditLog" WHERE "action" = 'grant.revoke' AND "target" IN (${grantIds.map((_, i) => `$${i + 1}`).join(', ')})`,
    grantIds.map((id) => `grant:${id}`),
  )
  return new Map(rows.map((r) => [r.target.slice('grant:'.length), r.actor]))
}

/** Sets an owner's password hash and ends their other owner sessions, inside the caller's transaction. */
export async function setOwnerPasswordEndingOtherSessions(
  tx: SqlRunner,
  input: { ownerId: string; passwordHash: string; keepSessionId: string },
): Promise<number> {
  await tx.run(`UPDATE "Owner" SET "passwordHash" = $1 WHERE "id" = $2`, [input.passwordHash, input.ownerId])
  return tx.run(`DELETE FROM "Session" WHERE "kind" = 'owner' AND "subjectId" = $1 AND "id" <> $2`, [input.ownerId, input.keepSessionId])
}
