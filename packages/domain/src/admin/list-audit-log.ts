import { z } from 'zod'
import type { Deps } from '../deps'
import { findAuditEntries } from './audit.repo'
import type { AuditEntry } from './admin-views'
import { decodeCursor, encodeCursor } from './page-cursor'

export const ListAuditLogInputSchema = z.strictObject({
  cursor: z.string().min(1).max(512).nullish(),
  limit: z.number().int().min(1).max(100).default(50),
})

type ListAuditLogInput = z.input<typeof ListAuditLogInputSchema>

const ORDERING = 'audit:desc'

/**
 * The audit log, newest first, in keyset pages: who did what to which grant or token, and when.
 * @throws ZodError for input out of range; ConsoleError bad_request for a malformed cursor
 */
export async function listAuditLog(deps: Deps, input: ListAuditLogInput): Promise<{ items: AuditEntry[]; nextCursor: string | null }> {
  const { cursor, limit } = ListAuditLogInputSchema.parse(input)
  const after = cursor ? decodeCursor(ORDERING, cursor) : null
  const rows = await findAuditEntries(deps.reads, { after: after && { createdAt: after.value, id: after.id }, take: limit + 1 })
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  return {
    items: page.map((r) => ({ id: r.id, actor: r.actor, action: r.action, target: r.target, detail: r.detail, at: r.createdAt })),
    nextCursor: rows.length > limit && last ? encodeCursor(ORDERING, { value: last.createdAt, id: last.id }) : null,
  }
}
