import type { DbTx } from '../db/client'
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

export async function createAccessItems(tx: DbTx, grantId: string, items: AccessItem[]): Promise<void> {
  await tx.accessItem.createMany({ data: accessItemRows(grantId, items) })
}
