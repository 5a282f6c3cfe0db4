import type { SqlRunner } from '../db/sql'
import type { AccessItem } from './access.wire'
import { newId } from '../secrets'

export interface AccessItemRow {
  type: string
  actions: string
  identifier: string | null
  limits: string | null
}

/** Stored items back to their wire form, fields in the spec's order. */
export function rowToAccessItem(row: AccessItemRow): AccessItem {
  const item: Record<string, unknown> = { type: row.type, actions: JSON.parse(row.actions) as string[] }
  if (row.identifier !== null) item.identifier = row.identifier
  if (row.limits !== null) item.limits = JSON.parse(row.limits) as unknown
  return item as AccessItem
}

export function accessItemRows(grantId: string, items: AccessItem[]) {
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
