'use client'

import { keepPreviousData, useQuery } from '@tanstack/react-query'
import Link from 'next/link'
import type { FormEvent } from 'react'
import { useTRPC } from '../../_lib/trpc'
import { AUDIT_ACTION_LABEL, auditActionLabel } from '../../_lib/format'
import { useUrlState } from '../../_lib/url-state'
import {
  AUDIT_ACTION_GROUPS,
  AUDIT_PAGE_SIZE,
  AuditQuerySchema,
  auditQueryString,
  hasAuditFilters,
  normalizeAuditQuery,
  parseAuditQuery,
  toAuditFilters,
  type AuditQuery,
} from '../../_lib/audit-query'
import { DataTable, type Columns } from '../../_components/data-table'
import { QueryBoundary } from '../../_components/query-boundary'
import { Empty, MatchField, Pager, Time } from '../../_components/ui'

type AuditEntry = { id: string; at: Date; actor: string; action: string; target: string; detail: string | null }

/** `grant:<id>`, `token:<management id>` and `owner:<id>` link to their pages; anything else is shown as written. */
function Target({ target }: { target: string }) {
  const [kind, ...rest] = target.split(':')
  const id = rest.join(':')
  const page = kind === 'grant' ? 'grants' : kind === 'token' ? 'tokens' : kind === 'owner' ? 'owners' : null
  if (page && id) {
    return (
      <>
        {kind === 'grant' ? 'Grant' : kind === 'token' ? 'Token' : 'Owner'}{' '}
        <Link href={`/admin/${page}/${encodeURIComponent(id)}`} className="mono">
          {id}
        </Link>
      </>
    )
  }
  if (kind === 'admin' && id) return <>Administrator {id}</>
  return <>{target}</>
}

const columns: Columns<AuditEntry> = [
  { id: 'when', header: 'When', cell: ({ row }) => <Time value={row.original.at} />, meta: { className: 'nowrap', sticky: true } },
  { id: 'who', header: 'Who', cell: ({ row }) => row.original.actor },
  { id: 'what', header: 'What', cell: ({ row }) => auditActionLabel(row.original.action) },
  { id: 'target', header: 'Target', cell: ({ row }) => <Target target={row.original.target} /> },
  { id: 'detail', header: 'Details', cell: ({ row }) => row.original.detail ?? <span className="muted">—</span> },
]

/** Who changed what, newest first: filters in the URL, one page of the server's keyset pagination at a time. */
export function AuditLog() {
  const trpc = useTRPC()
  const url = useUrlState(AuditQuerySchema, { normalize: normalizeAuditQuery })
  const query = url.state
  const log = useQuery({
    ...trpc.audit.list.queryOptions({ limit: AUDIT_PAGE_SIZE, cursor: query.cursor ?? null, filters: toAuditFilters(query) }),
    placeholderData: keepPreviousData,
  })

  const filtered = hasAuditFilters(query)
  const firstPage = { ...query, cursor: undefined }
  const exportHref = `/admin/audit/export.csv${auditQueryString(firstPage)}`

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Audit log</h1>
          <p>
            Who changed what, newest first: administrators in this console, API keys, owners (their own password and revocations) and the owner
            import. Entries are never changed or removed.
          </p>
        </div>
        <a href={exportHref} className="button secondary" download>
          Export CSV{filtered ? ' (filtered)' : ''}
        </a>
      </div>

      <AuditFilters key={url.key} query={query} filtered={filtered} onApply={(next) => url.set(next)} />

      <QueryBoundary
        query={log}
        loading="Loading the audit log…"
        what="The audit log"
        firstPageHref={query.cursor ? url.href(firstPage) : null}
        isEmpty={(data) => data.items.length === 0}
        empty={
          <div className="panel">
            {filtered ? (
              <Empty title="No entry matches these filters.">
                <p>Try a wider date range or fewer filters.</p>
              </Empty>
            ) : query.cursor ? (
              <Empty title="No more entries.">
                <p>
                  <Link href={url.href(firstPage)}>Back to the first page</Link>
                </p>
              </Empty>
            ) : (
              <Empty title="Nothing recorded yet.">
                <p>Sign-ins, revocations and changes to owners appear here.</p>
              </Empty>
            )}
          </div>
        }
      >
        {(data) => (
          <>
            <DataTable
              columns={columns}
              rows={data.items}
              rowKey={(e) => e.id}
              busy={log.isFetching}
              caption={
                <>
                  {data.items.length === 1 ? '1 entry' : `${data.items.length} entries`} on this page{filtered ? ', filtered' : ''}
                  {log.isFetching ? ' (updating…)' : ''}
                </>
              }
            />
            <Pager
              noun="entries"
              firstHref={query.cursor ? url.href(firstPage) : null}
              nextHref={data.nextCursor ? url.href({ ...query, cursor: data.nextCursor }) : null}
            />
          </>
        )}
      </QueryBoundary>
    </>
  )
}

/** The filters form: read on submit; new filters start from the first page. */
function AuditFilters({ query, filtered, onApply }: { query: AuditQuery; filtered: boolean; onApply(next: AuditQuery): void }) {
  function applyFilters(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const f = new FormData(event.currentTarget)
    const next = new URLSearchParams()
    for (const name of ['actor', 'actorMatch', 'action', 'target', 'targetMatch', 'from', 'to']) next.set(name, String(f.get(name) ?? ''))
    onApply(parseAuditQuery(next).query)
  }
  return (
    <section className="panel" aria-labelledby="filters-heading">
      <h2 id="filters-heading">Filters</h2>
      <form onSubmit={applyFilters} role="search" aria-labelledby="filters-heading">
        <div className="filters">
          <MatchField
            id="f-actor"
            label="Who"
            name="actor"
            value={query.actor}
            matchName="actorMatch"
            match={query.actorMatch}
            matchLabel="How who matches"
            input={{ 'aria-describedby': 'f-actor-hint' }}
          >
            <span className="hint" id="f-actor-hint">
              An administrator&apos;s email, <code>api key &quot;name&quot;</code>, <code>owner:</code> and an owner&apos;s email, or{' '}
              <code>owners import</code>, as written (capitals count).
            </span>
          </MatchField>
          <div>
            <label htmlFor="f-action">What</label>
            <select id="f-action" name="action" defaultValue={query.action ?? ''}>
              <option value="">Any action</option>
              <optgroup label="Groups">
                {Object.entries(AUDIT_ACTION_GROUPS).map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </optgroup>
              <optgroup label="Actions">
                {Object.entries(AUDIT_ACTION_LABEL).map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </optgroup>
            </select>
          </div>
          <MatchField
            id="f-target"
            label="Target"
            name="target"
            value={query.target}
            matchName="targetMatch"
            match={query.targetMatch}
            matchLabel="How the target matches"
            input={{ 'aria-describedby': 'f-target-hint' }}
          >
            <span className="hint" id="f-target-hint">
              For example <code>grant:</code> and an id, or <code>owner:</code> with “starts with” for every owner.
            </span>
          </MatchField>
          <div>
            <label htmlFor="f-from">From</label>
            <input id="f-from" name="from" type="date" defaultValue={query.from?.slice(0, 10) ?? ''} />
          </div>
          <div>
            <label htmlFor="f-to">Until</label>
            <input id="f-to" name="to" type="date" defaultValue={query.to?.slice(0, 10) ?? ''} aria-describedby="f-to-hint" />
            <span className="hint" id="f-to-hint">
              Days in UTC, both included.
            </span>
          </div>
        </div>
        <div className="filter-actions">
          <button type="submit" className="button">
            Apply
          </button>
          {filtered && (
            <Link href="/admin/audit" className="button quiet">
              Clear filters
            </Link>
          )}
        </div>
      </form>
    </section>
  )
}
