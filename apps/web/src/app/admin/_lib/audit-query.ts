import { z } from 'zod'
import { AUDIT_ACTION_LABEL } from './format'
import { optionalText, matchMode, parseSearchParams, searchString } from './search-params'

// The audit log's filters live in the URL query (shareable, survive a reload, Back works). The page and the CSV
// export read the same query, so "Export CSV" exports exactly what the page shows: these functions read it, write
// it, and turn it into the filters of `audit.list` and of the export.

export const AUDIT_PAGE_SIZE = 50

/** Groups of actions, by what they act on: the value is a prefix (`owner.`). */
export const AUDIT_ACTION_GROUPS: Record<string, string> = {
  'admin.': 'Any administrator action',
  'grant.': 'Any grant action',
  'token.': 'Any token action',
  'owner.': 'Any owner action',
  'webhook.': 'Any webhook action',
}

const DAY = /^\d{4}-\d{2}-\d{2}$/
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i
const ACTION_GROUP = /^[a-z][a-z-]*\.$/

const isBound = (v: string) => (DAY.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`))) || (DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)))
const isAction = (v: string) => Object.hasOwn(AUDIT_ACTION_LABEL, v) || ACTION_GROUP.test(v)
/** YYYY-MM-DD (UTC, the whole day included) or an ISO 8601 date-time with a zone. */
const bound = z.string().max(40).refine(isBound).optional()

/** The audit log's query: what the URL may say, each value checked. */
export const AuditQuerySchema = z.object({
  actor: optionalText(254),
  actorMatch: matchMode,
  /** An action (exact) or a group ending in `.` (prefix). */
  action: z.string().max(64).refine(isAction).optional(),
  target: optionalText(256),
  targetMatch: matchMode,
  /** Included. */
  from: bound,
  /** A day is included; a date-time is excluded. */
  to: bound,
  /** The entries about one tenant (docs/protocol.md §2.21). */
  tenant: optionalText(64),
  cursor: optionalText(512),
})

export type AuditQuery = z.output<typeof AuditQuerySchema>

/**
 * The query of a URL, and the names of the parameters whose values make no sense: the page leaves those out, the
 * export refuses them (it must never export more than was asked for).
 */
export function parseAuditQuery(params: URLSearchParams): { query: AuditQuery; invalid: string[] } {
  const { value: query, invalid } = parseSearchParams(AuditQuerySchema, params)
  if (query.from && query.to && startOf(query.from) >= endOf(query.to)) {
    invalid.push('to')
    query.to = undefined
  }
  return { query, invalid }
}

/** A match mode means nothing without its text: left at its default. */
export const normalizeAuditQuery = (q: AuditQuery): AuditQuery => ({
  ...q,
  actorMatch: q.actor ? q.actorMatch : 'exact',
  targetMatch: q.target ? q.targetMatch : 'exact',
})

/** The URL query of a state (defaults left out); `?` and all, or empty. */
export const auditQueryString = (q: AuditQuery) => searchString(AuditQuerySchema, normalizeAuditQuery(q))

export const hasAuditFilters = (q: AuditQuery) => Boolean(q.actor || q.action || q.target || q.from || q.to || q.tenant)

const DAY_MS = 86_400_000
const startOf = (bound: string) => (DAY.test(bound) ? Date.parse(`${bound}T00:00:00Z`) : Date.parse(bound))
// A day is included whole: the bound is the next midnight (the filter's end is exclusive).
const endOf = (bound: string) => (DAY.test(bound) ? Date.parse(`${bound}T00:00:00Z`) + DAY_MS : Date.parse(bound))

/** The filters of `audit.list` and of the export (both take the domain's AuditLogFiltersSchema). */
export function toAuditFilters(q: AuditQuery) {
  return {
    ...(q.actor && { actor: { value: q.actor, match: q.actorMatch } }),
    ...(q.action && { action: { value: q.action, match: q.action.endsWith('.') ? ('prefix' as const) : ('exact' as const) } }),
    ...(q.target && { target: { value: q.target, match: q.targetMatch } }),
    ...(q.from && { createdFrom: new Date(startOf(q.from)) }),
    ...(q.to && { createdTo: new Date(endOf(q.to)) }),
    ...(q.tenant && { tenantId: q.tenant }),
  }
}
