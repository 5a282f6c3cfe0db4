import type { Deps } from '../deps'
import type { KernelDeps } from '../../kernel/deps'
import type { SqlValue } from '../../kernel/db/sql'
import { operatorTenantKept, tenantIdTaken, unknownTenant } from '../../kernel/errors'
import { hashSecret } from '../../kernel/secrets'
import { findTenant, insertTenant, markTenantDeleted, updateLiveTenant, type TenantFields } from './tenant.repo'
import type { CreateTenantInput, UpdateTenantInput } from './tenant.wire'

// Tenants (docs/protocol.md §2.21): the service API's three operations as the Rafiki backend calls them, the operator
// tenant at start, and which tenant a grant belongs to. Secrets are never logged.

/** The stored form of an identity-provider secret: its SHA-256 (only ever compared with `x-idp-secret`). */
const idpSecretHash = (secret: string | null | undefined): string | null => (secret === undefined || secret === null ? null : hashSecret(secret))

/**
 * POST /tenant — creates the tenant. A repeat for a live tenant sets its fields to the request's (the backend rolls its
 * own creation back when a later step fails, then sends the same id again); an id that was deleted is never reused
 * (409).
 * @throws GnapError invalid_request (409)
 */
export async function createTenant(deps: Deps, input: CreateTenantInput): Promise<{ created: boolean }> {
  const fields: TenantFields = {
    idpConsentUrl: input.idpConsentUrl ?? null,
    idpSecretHash: idpSecretHash(input.idpSecret),
    apiSecret: input.apiSecret,
  }
  const now = deps.clock()
  const created = await deps.sql.transaction(async (tx) => {
    if (await insertTenant(tx, input.id, fields, now)) return true
    if (await updateLiveTenant(tx, input.id, fields, now)) return false
    throw tenantIdTaken()
  })
  deps.log.info({ tenantId: input.id, created, identityProvider: fields.idpConsentUrl !== null }, created ? 'tenant created' : 'tenant updated')
  return { created }
}

/**
 * PATCH /tenant/{id} — sets the fields given; a null identity-provider field clears it (the tenant then uses the
 * built-in consent screen).
 * @throws GnapError invalid_request (404: no such tenant, or deleted)
 */
export async function updateTenant(deps: Deps, id: string, input: UpdateTenantInput): Promise<void> {
  const fields: Partial<TenantFields> = {
    ...(input.apiSecret !== undefined ? { apiSecret: input.apiSecret } : {}),
    ...(input.idpConsentUrl !== undefined ? { idpConsentUrl: input.idpConsentUrl } : {}),
    ...(input.idpSecret !== undefined ? { idpSecretHash: idpSecretHash(input.idpSecret) } : {}),
  }
  if (!(await updateLiveTenant(deps.sql, id.toLowerCase(), fields, deps.clock()))) throw unknownTenant()
  deps.log.info({ tenantId: id.toLowerCase(), fields: Object.keys(fields) }, 'tenant updated')
}

/**
 * DELETE /tenant/{id} — marks the tenant deleted at `deletedAt`, once. From this moment, whatever the time given, its
 * tokens introspect inactive, its grants can no longer be continued, cancelled or rotated, its identity provider's
 * calls answer as for an unknown interaction, and `POST /{id}` answers 404 (docs/protocol.md §2.21).
 * The operator tenant is kept (409): the server serves `POST /` for it, and would not start without it.
 * @throws GnapError invalid_request (404: no such tenant, or deleted already; 409: the operator tenant)
 */
export async function deleteTenant(deps: Deps, id: string, deletedAt: Date): Promise<void> {
  if (id.toLowerCase() === deps.config.operatorTenant?.id) throw operatorTenantKept()
  if (!(await markTenantDeleted(deps.sql, id.toLowerCase(), deletedAt, deps.clock()))) throw unknownTenant()
  deps.log.info({ tenantId: id.toLowerCase() }, 'tenant deleted')
}

/**
 * At start (docs/protocol.md §2.21): with OPERATOR_TENANT_ID, the operator tenant exists, with ADMIN_API_SECRET as its
 * API secret, written again at every start. Safe to run from several processes at once. Without OPERATOR_TENANT_ID nothing is written.
 * @throws Error when the operator tenant was deleted: the server cannot serve `POST /` for it
 */
export async function ensureOperatorTenant(deps: KernelDeps): Promise<'created' | 'synced' | 'none'> {
  const operator = deps.config.operatorTenant
  if (!operator) return 'none'
  const now = deps.clock()
  // Its identity provider is the settings' (identityProviderUrl): nothing of it is copied into the row.
  const fields: TenantFields = { idpConsentUrl: null, idpSecretHash: null, apiSecret: operator.apiSecret }
  if (await insertTenant(deps.sql, operator.id, fields, now)) return 'created'
  if (await updateLiveTenant(deps.sql, operator.id, { apiSecret: operator.apiSecret }, now)) return 'synced'
  throw new Error(`the operator tenant ${operator.id} (OPERATOR_TENANT_ID) was deleted: set another OPERATOR_TENANT_ID`)
}

/** The tenant a grant belongs to: the one its endpoint named, else the operator tenant; null for the implicit one. */
export function tenantOfGrant(deps: { config: Pick<Deps['config'], 'operatorTenant'> }, grant: { tenantId: string | null }): string | null {
  return grant.tenantId ?? deps.config.operatorTenant?.id ?? null
}

/** Whether a grant is the operator tenant's (or, without one, the implicit tenant's): `POST /`, or `POST /{operator id}`. */
export function isOperatorGrant(deps: Pick<Deps, 'config'>, grant: { tenantId: string | null }): boolean {
  return grant.tenantId === null || grant.tenantId === deps.config.operatorTenant?.id
}

/**
 * The rows of one tenant, as a `where` on a model with a `tenantId` column (grants, owners): its own id and, for the
 * operator tenant, null too (`POST /`, and every row from before tenants). One place for the rule, so the console, the
 * operator API and /account draw the same boundary (docs/protocol.md §2.21).
 */
export function rowsOfTenant(
  deps: Pick<Deps, 'config'>,
  tenantId: string,
): { tenantId: string } | { OR: [{ tenantId: string }, { tenantId: null }] } {
  return tenantId === deps.config.operatorTenant?.id ? { OR: [{ tenantId }, { tenantId: null }] } : { tenantId }
}

/**
 * Whether an owner belongs to a grant's tenant (docs/protocol.md §2.21): the built-in consent screen of a tenant signs
 * in only its own owners. An owner's `tenantId` reads as a grant's does: null is the operator tenant's (or, without
 * one, the implicit tenant's), so rows from before tenants keep meeting each other.
 */
export function sameTenant(deps: Pick<Deps, 'config'>, owner: { tenantId: string | null }, grant: { tenantId: string | null }): boolean {
  return tenantOfGrant(deps, owner) === tenantOfGrant(deps, grant)
}

/**
 * rowsOfTenant as an SQL condition on `column` (a `tenantId` column), for the repositories written in SQL; its
 * parameters are pushed onto `params`. `tenantId` null: the implicit tenant's rows, those with no tenant.
 */
export function sqlRowsOfTenant(deps: Pick<Deps, 'config'>, tenantId: string | null, column: string, params: SqlValue[]): string {
  if (tenantId === null) return `${column} IS NULL`
  const rows = rowsOfTenant(deps, tenantId)
  params.push(tenantId)
  return 'OR' in rows ? `(${column} = $${params.length} OR ${column} IS NULL)` : `${column} = $${params.length}`
}

/**
 * The tenant a grant request at `POST /{tenantId}` is for (docs/protocol.md §2.21), checked before anything is read
 * or written for the request.
 * @throws GnapError invalid_request (404) for an unknown or deleted tenant
 */
export async function liveTenantForGrantEndpoint(deps: Deps, tenantId: string): Promise<string> {
  const tenant = await findTenant(deps.sql, tenantId)
  if (!tenant || tenant.deletedAt !== null) throw unknownTenant()
  return tenant.id
}

/**
 * Where the owners of a grant's tenant are sent to consent; null for the built-in consent screen (docs/protocol.md
 * §2.21). The operator tenant (and the implicit one) keeps IDENTITY_SERVER_URL, as without tenants; a provider the
 * service API set for the operator tenant is used only while that setting is unset.
 */
export async function identityProviderUrl(deps: Deps, grant: { tenantId: string | null }): Promise<string | null> {
  if (isOperatorGrant(deps, grant) && deps.config.identityServerUrl) return deps.config.identityServerUrl
  const tenantId = tenantOfGrant(deps, grant)
  if (tenantId === null) return null
  return (await findTenant(deps.sql, tenantId))?.idpConsentUrl ?? null
}

/**
 * Whether a row whose `tenantId` is `rowTenant` is the tenant `tenantId`'s (rowsOfTenant's rule, for a row already
 * read); every row is when `tenantId` is null (an administrator, or a key bound to no tenant).
 */
export function isRowOfTenant(deps: Pick<Deps, 'config'>, tenantId: string | null, rowTenant: string | null): boolean {
  if (tenantId === null) return true
  const where = rowsOfTenant(deps, tenantId)
  return rowTenant === tenantId || ('OR' in where && rowTenant === null)
}
