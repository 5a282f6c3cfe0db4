import type { Deps } from '../../protocol/deps'
import { rowsOfTenant } from '../../protocol/tenant/tenants'
import { ConsoleError } from './console-error'

// What a console caller may see (docs/protocol.md §2.21): an administrator or an unbound API key every tenant's
// grants, a key bound to one tenant only that tenant's (rowsOfTenant, the one rule). Another tenant's grant, token or
// client answers as an unknown one.

/** Whose grants a caller may see: null for every tenant's, else the one tenant its key is bound to. */
export interface TenantBound {
  tenantId: string | null
}

/** No tenant bound: what in-process callers without a console caller (jobs, tests) read. The routers always pass the caller. */
export const EVERY_TENANT: TenantBound = { tenantId: null }

/** A `where` on grants: one tenant's (rowsOfTenant), or every grant (empty). */
export type GrantScope = ReturnType<typeof rowsOfTenant> | Record<string, never>

/** The grants `actor` may see, as a `where` (empty: all of them). */
export function grantScope(deps: Pick<Deps, 'config'>, actor: TenantBound = EVERY_TENANT): GrantScope {
  return actor.tenantId === null ? {} : rowsOfTenant(deps, actor.tenantId)
}

/** Whether `actor` may see the grant `grantId` (an unknown grant: false). One read by primary key for a bound key, none otherwise. */
export async function grantVisibleTo(deps: Pick<Deps, 'config' | 'reads'>, actor: TenantBound, grantId: string): Promise<boolean> {
  if (actor.tenantId === null) return true
  return (await deps.reads.grant.count({ where: { AND: [{ id: grantId }, grantScope(deps, actor)] } })) > 0
}

/** Whether `actor` may see the token with this management id (its grant's tenant; an unknown token: false). */
export async function tokenVisibleTo(deps: Pick<Deps, 'config' | 'reads'>, actor: TenantBound, managementId: string): Promise<boolean> {
  if (actor.tenantId === null) return true
  return (await deps.reads.accessToken.count({ where: { managementId, grant: grantScope(deps, actor) } })) > 0
}

/**
 * Refuses a key bound to a tenant an action that reaches every tenant (blocking or unblocking a client: the block
 * applies to its grants at every tenant, docs/protocol.md §2.16).
 * @throws ConsoleError forbidden
 */
export function refuseTenantBound(actor: TenantBound, what: string): void {
  if (actor.tenantId !== null) throw new ConsoleError('forbidden', `a key bound to a tenant cannot ${what}: it affects every tenant`)
}
