import type { Deps } from '../../protocol/deps'
import type { SqlRunner } from '../../kernel/db/sql'
import type { TenantBound } from '../admin/tenant-scope'
import { EVERY_TENANT } from '../admin/tenant-scope'

// The console's tenants page (docs/protocol.md §2.21): what the service API created, never a secret (neither the
// identity provider's, of which only a hash is kept, nor the API secret).

/** Tenants listed at most. */
export const TENANTS_SHOWN = 500

export interface TenantView {
  id: string
  /** Whether it is the operator tenant (OPERATOR_TENANT_ID), which also owns the grants of `POST /`. */
  operator: boolean
  /** Where its owners are sent to consent; null: the built-in consent screen (the operator tenant: IDENTITY_SERVER_URL when set). */
  idpConsentUrl: string | null
  createdAt: Date
  /** When the service API deleted it; null while it is live. */
  deletedAt: Date | null
  /** Its grants (the operator tenant's include those of `POST /`). */
  grants: number
}

interface TenantListRow {
  id: string
  idpConsentUrl: string | null
  createdAt: Date
  deletedAt: Date | null
}

/** The columns a console may see, one by one: never `apiSecret` nor `idpSecretHash`. */
function findTenantRows(db: SqlRunner, only: string | null): Promise<TenantListRow[]> {
  const columns = `"id", "idpConsentUrl", "createdAt", "deletedAt"`
  return only === null
    ? db.all<TenantListRow>(`SELECT ${columns} FROM "Tenant" ORDER BY "createdAt" ASC, "id" ASC LIMIT $1`, [TENANTS_SHOWN])
    : db.all<TenantListRow>(`SELECT ${columns} FROM "Tenant" WHERE "id" = $1`, [only])
}

/**
 * The tenants, oldest first, with their identity provider, state and grant count. A key bound to a tenant sees its
 * own tenant only.
 */
export async function listTenants(deps: Deps, { actor = EVERY_TENANT }: { actor?: TenantBound | undefined } = {}): Promise<TenantView[]> {
  const rows = await findTenantRows(deps.sql, actor.tenantId)
  const operatorId = deps.config.operatorTenant?.id ?? null
  const counts = await deps.reads.grant.groupBy({ by: ['tenantId'], _count: { _all: true } })
  const grantsOf = (id: string | null) => counts.find((c) => c.tenantId === id)?._count._all ?? 0
  return rows.map((r) => ({
    id: r.id,
    operator: r.id === operatorId,
    idpConsentUrl: r.id === operatorId ? (deps.config.identityServerUrl ?? r.idpConsentUrl) : r.idpConsentUrl,
    createdAt: r.createdAt,
    deletedAt: r.deletedAt,
    grants: grantsOf(r.id) + (r.id === operatorId ? grantsOf(null) : 0),
  }))
}

/** Whether a tenant exists and is live (binding an API key to it). */
export async function isLiveTenant(db: SqlRunner, id: string): Promise<boolean> {
  const [row] = await db.all<{ id: string }>(`SELECT "id" FROM "Tenant" WHERE "id" = $1 AND "deletedAt" IS NULL`, [id])
  return row !== undefined
}
