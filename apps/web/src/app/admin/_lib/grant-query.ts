import type { inferRouterInputs } from '@trpc/server'
import type { AppRouter } from '@gnap/api'
import type { FINALIZED_REASONS, GRANT_STATES } from '@gnap/domain/protocol'

// The grants table's state lives in the URL query (shareable, survives a reload, Back works): these functions read
// it, write it, and turn it into the input of `grants.list`.

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

export interface GrantQuery {
  state?: keyof typeof STATES
  reason?: keyof typeof REASONS
  type?: keyof typeof ACCESS_TYPES
  client?: string
  clientMatch: 'exact' | 'prefix'
  /** YYYY-MM-DD, UTC, inclusive. */
  from?: string
  /** YYYY-MM-DD, UTC, inclusive. */
  to?: string
  q?: string
  sort: SortKey
  cursor?: string
}

const oneOf = <T extends string>(options: Record<T, unknown>, value: string | null): T | undefined =>
  value !== null && Object.hasOwn(options, value) ? (value as T) : undefined

const text = (value: string | null, max: number) => {
  const t = value?.trim() ?? ''
  return t && t.length <= max ? t : undefined
}

const day = (value: string | null) =>
  value && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) ? value : undefined

/** The query of a URL; values that make no sense are left out rather than failing the page. */
export function parseGrantQuery(params: URLSearchParams): GrantQuery {
  return {
    state: oneOf(STATES, params.get('state')),
    reason: oneOf(REASONS, params.get('reason')),
    type: oneOf(ACCESS_TYPES, params.get('type')),
    client: text(params.get('client'), 2048),
    clientMatch: params.get('match') === 'prefix' ? 'prefix' : 'exact',
    from: day(params.get('from')),
    to: day(params.get('to')),
    q: text(params.get('q'), 200),
    sort: oneOf(SORTS, params.get('sort')) ?? 'created-desc',
    cursor: text(params.get('cursor'), 512),
  }
}

/** The URL query of a state (defaults left out). */
export function grantQueryString(q: GrantQuery): string {
  const p = new URLSearchParams()
  if (q.q) p.set('q', q.q)
  if (q.state) p.set('state', q.state)
  if (q.reason) p.set('reason', q.reason)
  if (q.type) p.set('type', q.type)
  if (q.client) {
    p.set('client', q.client)
    if (q.clientMatch === 'prefix') p.set('match', 'prefix')
  }
  if (q.from) p.set('from', q.from)
  if (q.to) p.set('to', q.to)
  if (q.sort !== 'created-desc') p.set('sort', q.sort)
  if (q.cursor) p.set('cursor', q.cursor)
  const s = p.toString()
  return s ? `?${s}` : ''
}

export const hasFilters = (q: GrantQuery) => Boolean(q.state || q.reason || q.type || q.client || q.from || q.to || q.q)

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
      ...(q.client && { client: { value: q.client, match: q.clientMatch } }),
      ...(q.from && { createdFrom: new Date(`${q.from}T00:00:00Z`) }),
      // The form's end date is inclusive; the procedure's bound is exclusive: the next midnight.
      ...(q.to && { createdTo: new Date(Date.parse(`${q.to}T00:00:00Z`) + DAY_MS) }),
      ...(q.q && { search: q.q }),
    },
  }
}
