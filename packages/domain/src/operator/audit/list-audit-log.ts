import { createHash } from 'node:crypto'
import { z } from 'zod'
import type { Deps } from '../../protocol/deps'
import { AUDIT_ACTIONS, findAuditEntries, type AuditFilters } from './audit.repo'
import type { AuditEntry } from '../admin/admin-views'
import { decodeCursor, encodeCursor } from '../admin/page-cursor'
import type { ConsoleActor } from '../admin/roles'
import { rowsOfTenant } from '../../protocol/tenant/tenants'
import { TenantIdInputSchema } from '../tenant-choice'

export const AUDIT_PAGE_MAX = 100

/** An ISO 8601 date-time with `Z` or an offset, or a Date (superjson): the range bounds of the log. */
const instant = z.union([z.date(), z.iso.datetime({ offset: true }).transform((s) => new Date(s))])

const match = z.enum(['exact', 'prefix']).default('exact')

/** A column's filter: its whole value or its beginning, case-sensitive. */
const textFilter = (max: number) => z.strictObject({ value: z.string().trim().min(1).max(max), match })

export const AuditLogFiltersSchema = z
  .strictObject({
    /** Who: an administrator's email, an API key's name, an owner's email for their own password. */
    actor: textFilter(254).optional(),
    /** What: one of the known actions exactly, or the beginning of one (`owner.`). */
    action: z
      .strictObject({ value: z.string().trim().min(1).max(64), match })
      .refine((a) => a.match === 'prefix' || (AUDIT_ACTIONS as readonly string[]).includes(a.value), {
        message: `unknown action: one of ${AUDIT_ACTIONS.join(', ')}, or a prefix such as owner.`,
      })
      .optional(),
    /** To what: `grant:<id>`, `token:<management id>`, `owner:<id>`, `admin:<email>`, or its beginning (`owner:`). */
    target: textFilter(256).optional(),
    /** Inclusive. */
    createdFrom: instant.optional(),
    /** Exclusive. */
    createdTo: instant.optional(),
    /** The entries about one tenant (docs/protocol.md §2.21): the operator tenant's include those about no one tenant. */
    tenantId: TenantIdInputSchema.optional(),
  })
  .refine((f) => !f.createdFrom || !f.createdTo || f.createdFrom.getTime() < f.createdTo.getTime(), {
    message: 'the range is empty: createdFrom must be before createdTo',
    path: ['createdTo'],
  })

export type AuditLogFilters = z.output<typeof AuditLogFiltersSchema>

export const ListAuditLogInputSchema = z.strictObject({
  cursor: z.string().min(1).max(512).nullish(),
  limit: z.number().int().min(1).max(AUDIT_PAGE_MAX).default(50),
  filters: AuditLogFiltersSchema.default({}),
})

export type ListAuditLogInput = z.input<typeof ListAuditLogInputSchema>

export interface AuditPage {
  items: AuditEntry[]
  /** Null on the last page. */
  nextCursor: string | null
}

/**
 * The cursor's ordering names the filters too (a digest of them), so a cursor only continues the list it came
 * from: with other filters it is refused rather than silently continuing another list from an arbitrary point.
 */
function orderingOf(filters: AuditFilters & { tenantId?: string | undefined }): string {
  const canonical = JSON.stringify([
    filters.actor ?? null,
    filters.action ?? null,
    filters.target ?? null,
    filters.createdFrom?.toISOString() ?? null,
    filters.createdTo?.toISOString() ?? null,
    ...(filters.tenantId === undefined ? [] : [filters.tenantId]),
  ])
  return `audit:desc:${createHash('sha256').update(canonical).digest('base64url').slice(0, 16)}`
}

/**
 * The audit log, newest first, in keyset pages: who did what to what, and when. Filters (actor, action, target,
 * each exact or by prefix, and a half-open time range) combine with AND (docs/protocol.md §2.15).
 * The input is ListAuditLogInputSchema's output: the router's `.input()` has parsed it.
 * @throws ConsoleError bad_request for a malformed cursor or one made for other
 *   filters
 */
export async function listAuditLog(
  deps: Deps,
  { cursor, limit, filters, actor }: z.output<typeof ListAuditLogInputSchema> & { actor?: ConsoleActor },
): Promise<AuditPage> {
  const ordering = orderingOf(filters)
  const after = cursor ? decodeCursor(ordering, cursor) : null
  // A key bound to a tenant reads that tenant's entries only (docs/protocol.md §2.21); the filter narrows further.
  const tenants = [actor?.tenantId ?? null, filters.tenantId ?? null].filter((t): t is string => t !== null).map((t) => rowsOfTenant(deps, t))
  const rows = await findAuditEntries(deps.reads, {
    filters,
    after: after && { createdAt: after.value, id: after.id },
    take: limit + 1,
    tenants,
  })
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  return {
    items: page.map((r) => ({
      id: r.id,
      actor: r.actor,
      action: r.action,
      target: r.target,
      detail: r.detail,
      tenantId: r.tenantId,
      at: r.createdAt,
    })),
    nextCursor: rows.length > limit && last ? encodeCursor(ordering, { value: last.createdAt, id: last.id }) : null,
  }
}
