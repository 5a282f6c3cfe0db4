import type { inferRouterInputs } from '@trpc/server'
import type { AppRouter } from '@gnap/api'
import type { FINALIZED_REASONS, GRANT_STATES } from '@gnap/domain/protocol'
import { z } from 'zod'
import { matchMode, optionalDay, optionalText } from './search-params'

// The grants table's state lives in the URL query (shareable, survives a reload, Back works): its schema, and the
// input of `grants.list` it makes.

export type ListGrantsInput = inferRouterInputs<AppRouter>['grants']['list']

const PAGE_SIZE = 25

// Labels of the domain's grant states and finalization reasons (grant-state.ts), every one of them.
export const STATES = { pending: 'Pending', approved: 'Approved', finalized: 'Finalized' } as const satisfies Record<
  (typeof GRANT_STATES)[number],
  string
>
export const REASONS = { issued: 'Issued', revoked: 'Revoked', rejected: 'Rejected', expired: 'Expired' } as const satisfies Record<
  (typeof FINALIZED_REASONS)[number],
  string
>
export const ACCESS_TYPES = { 'incoming-payment': 'Incoming payments', 'outgoing-payment': 'Outgoing payments', quote: 'Quotes' } as const
export const SORTS = {
  'created-desc': { field: 'createdAt', direction: 'desc', label: 'Newest first' },
  'created-asc': { field: 'createdAt', direction: 'asc', label: 'Oldest first' },
  'updated-desc': { field: 'updatedAt', direction: 'desc', label: 'Most recently changed' },
  'updated-asc': { field: 'updatedAt', direction: 'asc', label: 'Least recently changed' },
} as const

export type SortKey = keyof typeof SORTS

const keysOf = <K extends string>(o: Record<K, unknown>) => Object.keys(o) as [K, ...K[]]

/** The grants table's query: what the URL may say, each value checked (one that makes no sense is left out). */
export const GrantQuerySchema = z.object({
  q: optionalText(200),
  state: z.enum(keysOf(STATES)).optional(),
  reason: z.enum(keysOf(REASONS)).optional(),
  type: z.enum(keysOf(ACCESS_TYPES)).optional(),
  client: optionalText(2048),
  /** A tenant id (docs/protocol.md §2.21). */
  tenant: optionalText(64),
  /** How `client` matches the wallet address. */
  match: matchMode,
  /** YYYY-MM-DD, UTC, inclusive. */
  from: optionalDay,
  /** YYYY-MM-DD, UTC, inclusive. */
  to: optionalDay,
  sort: z.enum(keysOf(SORTS)).default('created-desc'),
  cursor: optionalText(512),
})

export type GrantQuery = z.output<typeof GrantQuerySchema>

export const hasFilters = (q: GrantQuery) => Boolean(q.state || q.reason || q.type || q.client || q.tenant || q.from || q.to || q.q)

const DAY_MS = 86_400_000

export function toListInput(q: GrantQuery): ListGrantsInput {
  const sort = SORTS[q.sort]
  return {
    limit: PAGE_SIZE,
    cursor: q.cursor ?? null,
    sort: { field: sort.field, direction: sort.direction },
    filters: {
      ...(q.state && { state: q.state }),
      ...(q.reason && { finalizedReason: q.reason }),
      ...(q.type && { accessType: q.type }),
      ...(q.client && { client: { value: q.client, match: q.match } }),
      ...(q.tenant && { tenantId: q.tenant }),
      ...(q.from && { createdFrom: new Date(`${q.from}T00:00:00Z`) }),
      // The form's end date is inclusive; the procedure's bound is exclusive: the next midnight.
      ...(q.to && { createdTo: new Date(Date.parse(`${q.to}T00:00:00Z`) + DAY_MS) }),
      ...(q.q && { search: q.q }),
    },
  }
}
