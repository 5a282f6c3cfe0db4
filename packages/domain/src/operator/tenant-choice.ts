import type { Deps } from '../protocol/deps'
import type { SqlRunner } from '../kernel/db/sql'
import { findTenant } from '../protocol/tenant/tenant.repo'
import { ConsoleError } from './admin/console-error'
import type { ConsoleActor } from './admin/roles'

// Which tenant a new owner or webhook endpoint belongs to (docs/protocol.md §2.21): the one an administrator names,
// or the caller's own when its key is bound to a tenant.

export { TenantIdInputSchema } from './tenant-input'

/** The refusal of a tenant that is not the caller's to name: the same words whether it exists or not. */
const unknownTenantChoice = (id: string) => new ConsoleError('bad_request', `unknown or deleted tenant ${id}: name a live tenant`)

/**
 * The tenant of a row an actor creates. A key bound to tenant A creates in A only: it may name A or nothing, and any
 * other id is refused as unknown, whether that tenant exists or not. Anyone else gets the tenant named (a live one)
 * or, naming none, null: the operator tenant's (or the implicit tenant's) for an owner, every tenant for an endpoint.
 * @throws ConsoleError bad_request for an unknown or deleted tenant, or one the caller is not bound to
 */
export async function tenantForNewRow(db: SqlRunner, actor: ConsoleActor, requested: string | null | undefined): Promise<string | null> {
  if (actor.tenantId !== null) {
    if (requested !== undefined && requested !== null && requested !== actor.tenantId) throw unknownTenantChoice(requested)
    return actor.tenantId
  }
  if (requested === undefined || requested === null) return null
  const tenant = await findTenant(db, requested)
  if (!tenant || tenant.deletedAt !== null) throw unknownTenantChoice(requested)
  return tenant.id
}

/** The tenant a row is shown under: its own, else the operator tenant's id (null without one: the implicit tenant). */
export const shownTenant = (deps: Pick<Deps, 'config'>, rowTenant: string | null): string | null =>
  rowTenant ?? deps.config.operatorTenant?.id ?? null

/** Whether the server has any tenant (deleted or not): the console's forms ask for one only then. */
export async function hasTenants(deps: Pick<Deps, 'sql'>): Promise<boolean> {
  return (await deps.sql.all<{ one: number }>(`SELECT 1 AS "one" FROM "Tenant" LIMIT 1`)).length > 0
}
