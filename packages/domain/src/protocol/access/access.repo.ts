import type { SqlRunner } from '../../kernel/db/sql'
import type { AccessItem as AccessItemModel } from '../../kernel/db/generated/client'
import type { AccessItem } from './access.wire'
import { newId } from '../../kernel/secrets'

export interface AccessItemRow {
  type: string
  actions: string
  identifier: string | null
  limits: string | null
}

// Every SQL statement about access items. Items are written with their grant and never change afterwards.

/** A grant's access items in request order, as stored. */
export function findAccessItemRows(db: SqlRunner, grantId: string): Promise<AccessItemModel[]> {
  return db.all<AccessItemModel>(`SELECT * FROM "AccessItem" WHERE "grantId" = $1 ORDER BY "position" ASC`, [grantId])
}

/** A grant's access items in request order, in their wire form. */
export async function findAccessItems(db: SqlRunner, grantId: string): Promise<AccessItem[]> {
  return (await findAccessItemRows(db, grantId)).map(rowToAccessItem)
}

/** Grant ids per statement of findAccessItemsOfGrants: well under either database's limit of parameters. */
const GRANTS_PER_READ = 500

/** The access items of several grants, in their wire form and request order, by grant id. */
export async function findAccessItemsOfGrants(db: SqlRunner, grantIds: readonly string[]): Promise<Map<string, AccessItem[]>> {
  const byGrant = new Map<string, AccessItem[]>(grantIds.map((id) => [id, []]))
  for (let i = 0; i < grantIds.length; i += GRANTS_PER_READ) {
    const ids = grantIds.slice(i, i + GRANTS_PER_READ)
    const rows = await db.all<AccessItemModel>(
      `SELECT * FROM "AccessItem" WHERE "grantId" IN (${ids.map((_, n) => `$${n + 1}`).join(', ')}) ORDER BY "grantId" ASC, "position" ASC`,
      ids,
    )
    for (const row of rows) byGrant.get(row.grantId)?.push(rowToAccessItem(row))
  }
  return byGrant
}

/** Stored items back to their wire form, fields in the spec's order. */
export function rowToAccessItem(row: AccessItemRow): AccessItem {
  const item: Record<string, unknown> = { type: row.type, actions: JSON.parse(row.actions) as string[] }
  if (row.identifier !== null) item.identifier = row.identifier
  if (row.limits !== null) item.limits = JSON.parse(row.limits) as unknown
  return item as AccessItem
}

function accessItemRows(grantId: string, items: AccessItem[]) {
  return items.map((item, position) => ({
    id: newId(),
    grantId,
    position,
    type: item.type,
    actions: JSON.stringify(item.actions),
    identifier: 'identifier' in item && item.identifier !== undefined ? item.identifier : null,
    limits: 'limits' in item && item.limits !== undefined ? JSON.stringify(item.limits) : null,
  }))
}

export async function createAccessItems(tx: SqlRunner, grantId: string, items: AccessItem[]): Promise<void> {
  for (const row of accessItemRows(grantId, items)) {
    await tx.run(
      `INSERT INTO "AccessItem" ("id", "grantId", "position", "type", "actions", "identifier", "limits") VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [row.id, row.grantId, row.position, row.type, row.actions, row.identifier, row.limits],
    )
  }
}
