import { AUDIT_ACTION_LABEL } from './format'

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

export interface AuditQuery {
  actor?: string
  actorMatch: 'exact' | 'prefix'
  /** An action (exact) or a group ending in `.` (prefix). */
  action?: string
  target?: string
  targetMatch: 'exact' | 'prefix'
  /** YYYY-MM-DD (UTC, the whole day included) or an ISO 8601 date-time with a zone (included). */
  from?: string
  /** YYYY-MM-DD (UTC, the whole day included) or an ISO 8601 date-time with a zone (excluded). */
  to?: string
  cursor?: string
}

const DAY = /^\d{4}-\d{2}-\d{2}$/
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i
const ACTION_GROUP = /^[a-z][a-z-]*\.$/

const isBound = (v: string) => (DAY.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`))) || (DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)))
const isAction = (v: string) => Object.hasOwn(AUDIT_ACTION_LABEL, v) || ACTION_GROUP.test(v)

/**
 * The query of a URL, and the names of the parameters whose values make no sense: the page leaves those out, the
 * export refuses them (it must never export more than was asked for).
 */
export function parseAuditQuery(params: URLSearchParams): { query: AuditQuery; invalid: string[] } {
  const invalid: string[] = []
  const text = (name: string, max: number, valid: (v: string) => boolean = () => true): string | undefined => {
    const value = params.get(name)?.trim() ?? ''
    if (!value) return undefined
    if (value.length > max || !valid(value)) {
      invalid.push(name)
      return undefined
    }
    return value
  }
  const matchOf = (name: string): 'exact' | 'prefix' => {
    const value = params.get(name)
    if (value !== null && value !== '' && value !== 'exact' && value !== 'prefix') invalid.push(name)
    return value === 'prefix' ? 'prefix' : 'exact'
  }
  const query: AuditQuery = {
    actor: text('actor', 254),
    actorMatch: matchOf('actorMatch'),
    action: text('action', 64, isAction),
    target: text('target', 256),
    targetMatch: matchOf('targetMatch'),
    from: text('from', 40, isBound),
    to: text('to', 40, isBound),
    cursor: text('cursor', 512),
  }
  if (query.from && query.to && startOf(query.from) >= endOf(query.to)) {
    invalid.push('to')
    query.to = undefined
  }
  return { query, invalid }
}

/** The URL query of a state (defaults left out); `?` and all, or empty. */
export function auditQueryString(q: AuditQuery): string {
  const p = new URLSearchParams()
  if (q.actor) {
    p.set('actor', q.actor)
    if (q.actorMatch === 'prefix') p.set('actorMatch', 'prefix')
  }
  if (q.action) p.set('action', q.action)
  if (q.target) {
    p.set('target', q.target)
    if (q.targetMatch === 'prefix') p.set('targetMatch', 'prefix')
  }
  if (q.from) p.set('from', q.from)
  if (q.to) p.set('to', q.to)
  if (q.cursor) p.set('cursor', q.cursor)
  const s = p.toString()
  return s ? `?${s}` : ''
}

export const hasAuditFilters = (q: AuditQuery) => Boolean(q.actor || q.action || q.target || q.from || q.to)

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
  }
}
