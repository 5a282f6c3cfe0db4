import type { Tenant } from '../../kernel/db/generated/client'
import type { SqlRunner } from '../../kernel/db/sql'

// Every SQL statement about tenants (docs/protocol.md §2.21). Rows are never deleted: a deleted tenant keeps its row
// with `deletedAt` set, so its id is never reused and its grants keep naming it.

/** A tenant id: a UUID, in the lower-case form the Rafiki backend stores and advertises (docs/protocol.md §2.21). */
const TENANT_ID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

export const isTenantId = (value: string): boolean => TENANT_ID_SHAPE.test(value)

/** A tenant by its id, deleted or not; null for none (and for anything that is no tenant id, without a query). */
export async function findTenant(db: SqlRunner, id: string): Promise<Tenant | null> {
  if (!isTenantId(id)) return null
  const [row] = await db.all<Tenant>(`SELECT * FROM "Tenant" WHERE "id" = $1`, [id])
  return row ?? null
}

/** The ids of the tenants, deleted or not, whose identity provider has this secret (by its hash). */
export async function findTenantIdsByIdpSecretHash(db: SqlRunner, idpSecretHash: string): Promise<string[]> {
  const rows = await db.all<{ id: string }>(`SELECT "id" FROM "Tenant" WHERE "idpSecretHash" = $1`, [idpSecretHash])
  return rows.map((r) => r.id)
}

export interface TenantFields {
  idpConsentUrl: string | null
  idpSecretHash: string | null
  apiSecret: string
}

/** A new tenant; false when one with this id exists already (deleted or not). */
export async function insertTenant(db: SqlRunner, id: string, fields: TenantFields, now: Date): Promise<boolean> {
  const inserted = await db.run(
    `INSERT INTO "Tenant" ("id", "idpConsentUrl", "idpSecretHash", "apiSecret", "createdAt", "updatedAt") VALUES ($1, $2, $3, $4, $5, $5)
     ON CONFLICT ("id") DO NOTHING`,
    [id, fields.idpConsentUrl, fields.idpSecretHash, fields.apiSecret, now],
  )
  return inserted === 1
}

/** Sets the given fields of a tenant that is not deleted; false when there is none. */
export async function updateLiveTenant(db: SqlRunner, id: string, fields: Partial<TenantFields>, now: Date): Promise<boolean> {
  const sets: string[] = []
  const params: (string | Date | null)[] = []
  for (const name of ['idpConsentUrl', 'idpSecretHash', 'apiSecret'] as const) {
    if (fields[name] === undefined) continue
    params.push(fields[name])
    sets.push(`"${name}" = $${params.length}`)
  }
  params.push(now, id)
  const changed = await db.run(
    `UPDATE "Tenant" SET ${[...sets, `"updatedAt" = $${params.length - 1}`].join(', ')} WHERE "id" = $${params.length} AND "deletedAt" IS NULL`,
    params,
  )
  return changed === 1
}

/** Marks a tenant deleted, once: false when there is none, or it already was. */
export async function markTenantDeleted(db: SqlRunner, id: string, deletedAt: Date, now: Date): Promise<boolean> {
  const changed = await db.run(`UPDATE "Tenant" SET "deletedAt" = $1, "updatedAt" = $2 WHERE "id" = $3 AND "deletedAt" IS NULL`, [deletedAt, now, id])
  return changed === 1
}

/**
 * SQL for a query whose grant is `g`: the grant's tenant, joined so that `LIVE_TENANT` can leave out the grants of a
 * deleted tenant (docs/protocol.md §2.21: they can no longer be continued, rotated or introspected). A grant of the root
 * endpoint (no tenant id) joins nothing and stays.
 */
export const JOIN_TENANT = `LEFT JOIN "Tenant" tn ON tn."id" = g."tenantId"`
export const LIVE_TENANT = `tn."deletedAt" IS NULL`
