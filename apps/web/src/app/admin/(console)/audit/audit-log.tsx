'use client'

import { keepPreviousData, useQuery } from '@tanstack/react-query'
import Link from 'next/link'
import { useTRPC } from '../../_lib/trpc'
import { AUDIT_ACTION_LABEL, auditActionLabel } from '../../_lib/format'
import { useUrlState, type UrlState } from '../../_lib/url-state'
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
import type { Columns } from '../../_components/data-table'
import { DayRangeFields, FilterForm, Options } from '../../_components/filter-form'
import { countOf, ListTable, NoMorePages } from '../../_components/list-table'
import { Empty, MatchField, Time } from '../../_components/ui'

type AuditEntry = { id: string; at: Date; actor: string; action: string; target: string; detail: string | null; tenantId: string | null }

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

/** Shown once an entry names a tenant: a server without tenants shows the log as before. */
const tenantColumn: Columns<AuditEntry>[number] = {
  id: 'tenant',
  header: 'Tenant',
  cell: ({ row }) => (row.original.tenantId ? <code>{row.original.tenantId}</code> : <span className="muted">—</span>),
}

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

      <AuditFilters url={url} filtered={filtered} />

      <ListTable
        query={log}
        loading="Loading the audit log…"
        what="The audit log"
        live
        pager={{ noun: 'entries', firstHref: query.cursor ? url.href(firstPage) : null, nextHref: (cursor) => url.href({ ...query, cursor }) }}
        empty={
          <div className="panel">
            {filtered ? (
              <Empty title="No entry matches these filters.">
                <p>Try a wider date range or fewer filters.</p>
              </Empty>
            ) : query.cursor ? (
              <NoMorePages title="No more entries." firstHref={url.href(firstPage)} />
            ) : (
              <Empty title="Nothing recorded yet.">
                <p>Sign-ins, revocations and changes to owners appear here.</p>
              </Empty>
            )}
          </div>
        }
        columns={query.tenant || log.data?.items.some((e) => e.tenantId !== null) ? [...columns.slice(0, 4), tenantColumn, columns[4]!] : columns}
        rowKey={(e) => e.id}
        caption={(items) => `${countOf(items.length, 'entry', 'entries')} on this page${filtered ? ', filtered' : ''}`}
      />
    </>
  )
}

/** A text filter of the log, matched whole or by its beginning, with its hint. */
const MATCH_FILTERS = [
  {
    name: 'actor',
    label: 'Who',
    matchLabel: 'How who matches',
    hint: (
      <>
        An administrator&apos;s email, <code>api key &quot;name&quot;</code>, <code>owner:</code> and an owner&apos;s email, or{' '}
        <code>owners import</code>, as written (capitals count).
      </>
    ),
  },
  {
    name: 'target',
    label: 'Target',
    matchLabel: 'How the target matches',
    hint: (
      <>
        For example <code>grant:</code> and an id, or <code>owner:</code> with “starts with” for every owner.
      </>
    ),
  },
] as const

function AuditMatchFilter({ query, filter }: { query: AuditQuery; filter: (typeof MATCH_FILTERS)[number] }) {
  const id = `f-${filter.name}`
  return (
    <MatchField
      id={id}
      label={filter.label}
      name={filter.name}
      value={query[filter.name]}
      matchName={`${filter.name}Match`}
      match={query[`${filter.name}Match`]}
      matchLabel={filter.matchLabel}
      input={{ 'aria-describedby': `${id}-hint` }}
    >
      <span className="hint" id={`${id}-hint`}>
        {filter.hint}
      </span>
    </MatchField>
  )
}

/** The filters form: read on submit; new filters start from the first page. */
function AuditFilters({ url, filtered }: { url: UrlState<typeof AuditQuerySchema>; filtered: boolean }) {
  const query = url.state
  return (
    <FilterForm url={url} parse={(params) => parseAuditQuery(params).query} heading="Filters" clearHref={filtered ? '/admin/audit' : null}>
      <AuditMatchFilter query={query} filter={MATCH_FILTERS[0]} />
      <div>
        <label htmlFor="f-action">What</label>
        <select id="f-action" name="action" defaultValue={query.action ?? ''}>
          <option value="">Any action</option>
          <optgroup label="Groups">
            <Options options={AUDIT_ACTION_GROUPS} />
          </optgroup>
          <optgroup label="Actions">
            <Options options={AUDIT_ACTION_LABEL} />
          </optgroup>
        </select>
      </div>
      <AuditMatchFilter query={query} filter={MATCH_FILTERS[1]} />
      <DayRangeFields fromLabel="From" toLabel="Until" from={query.from?.slice(0, 10)} to={query.to?.slice(0, 10)} />
      <div>
        <label htmlFor="f-tenant">Tenant</label>
        <input id="f-tenant" name="tenant" defaultValue={query.tenant ?? ''} autoComplete="off" spellCheck={false} aria-describedby="f-tenant-hint" />
        <span className="hint" id="f-tenant-hint">
          A tenant id: the entries about its owners, grants and endpoints.
        </span>
      </div>
    </FilterForm>
  )
}
