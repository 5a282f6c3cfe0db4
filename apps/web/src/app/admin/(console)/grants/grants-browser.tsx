'use client'

import { keepPreviousData, useQuery } from '@tanstack/react-query'
import type { inferRouterOutputs } from '@trpc/server'
import Link from 'next/link'
import type { AppRouter } from '@gnap/api'
import { useTRPC } from '../../_lib/trpc'
import { parseSearchParams } from '../../_lib/search-params'
import { ACCESS_TYPE_LABEL } from '../../_lib/format'
import { useUrlState, type UrlState } from '../../_lib/url-state'
import { ACCESS_TYPES, GrantQuerySchema, REASONS, SORTS, STATES, hasFilters, toListInput, type GrantQuery } from '../../_lib/grant-query'
import type { Columns } from '../../_components/data-table'
import { grantIdColumn, grantStatusColumn } from '../../_components/columns'
import { DayRangeFields, FilterForm, Options } from '../../_components/filter-form'
import { countOf, ListTable, NoMorePages } from '../../_components/list-table'
import { Empty, GrantStatusBadge, MatchField, Time } from '../../_components/ui'
import { TenantName, tenantLabel, useTenants, type TenantRow } from '../../_lib/tenants'

type GrantRow = inferRouterOutputs<AppRouter>['grants']['list']['items'][number]

const lastSegment = (text: string) => {
  const t = text.trim()
  return /^https?:\/\//i.test(t) ? (t.replace(/\/+$/, '').split('/').pop() ?? '') : t
}

/** A match mode means nothing without its address: left at its default. */
const normalize = (q: GrantQuery): GrantQuery => ({ ...q, match: q.client ? q.match : 'exact' })

const useGrants = (query: GrantQuery) => {
  const trpc = useTRPC()
  return useQuery({ ...trpc.grants.list.queryOptions(toListInput(query)), placeholderData: keepPreviousData })
}

/** The columns; the two dates sort on the server, their headers link to the flipped order. */
function grantColumns(query: GrantQuery, href: (q: GrantQuery) => string, tenants: readonly TenantRow[]): Columns<GrantRow> {
  const sortOf = (column: 'created' | 'updated') => ({
    direction: query.sort === `${column}-desc` ? ('descending' as const) : query.sort === `${column}-asc` ? ('ascending' as const) : undefined,
    href: href({ ...query, sort: query.sort === `${column}-desc` ? `${column}-asc` : `${column}-desc`, cursor: undefined }),
  })
  return [
    grantIdColumn(),
    grantStatusColumn(),
    {
      id: 'client',
      header: 'Client',
      cell: ({ row }) => (
        <>
          {row.original.client.name ?? <span className="muted">No name given</span>}
          <span className="cell-sub">{row.original.client.walletAddress}</span>
        </>
      ),
    },
    // Only once the server has tenants: a single-tenant console shows none (docs/protocol.md §2.21).
    ...(tenants.length > 0
      ? [
          {
            id: 'tenant',
            header: 'Tenant',
            cell: ({ row }) => <TenantName id={row.original.tenantId} tenants={tenants} />,
          } satisfies Columns<GrantRow>[number],
        ]
      : []),
    {
      id: 'access',
      header: 'Access',
      cell: ({ row }) =>
        row.original.accessTypes.map((t) => (
          <span key={t} className="tag">
            {ACCESS_TYPE_LABEL[t] ?? t}
          </span>
        )),
    },
    { id: 'created', header: 'Requested', cell: ({ row }) => <Time value={row.original.createdAt} />, meta: { sort: sortOf('created') } },
    { id: 'updated', header: 'Last change', cell: ({ row }) => <Time value={row.original.updatedAt} />, meta: { sort: sortOf('updated') } },
  ]
}

/** The grants table: filters, search and sort in the URL, one page of the server's keyset pagination at a time. */
export function GrantsBrowser() {
  const url = useUrlState(GrantQuerySchema, { normalize })
  const query = url.state
  const grants = useGrants(query)
  const filtered = hasFilters(query)
  const firstPage = url.href({ ...query, cursor: undefined })
  const tenants = useTenants().items

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Grants</h1>
          <p>Every grant clients requested, {SORTS[query.sort].label.toLowerCase()}.</p>
        </div>
      </div>

      <GrantFilters url={url} tenants={tenants} clearHref={filtered ? url.href({ match: 'exact', sort: query.sort }) : null} />

      <ListTable
        query={grants}
        loading="Loading grants…"
        what="The grants"
        live
        pager={{ noun: 'grants', firstHref: query.cursor ? firstPage : null, nextHref: (cursor) => url.href({ ...query, cursor }) }}
        empty={<NoGrants query={query} filtered={filtered} firstPage={firstPage} />}
        columns={grantColumns(query, url.href, tenants)}
        rowKey={(g) => g.id}
        caption={(items) => `${countOf(items.length, 'grant')} on this page${filtered ? ', filtered' : ''}`}
      />
    </>
  )
}

function NoGrants({ query, filtered, firstPage }: { query: GrantQuery; filtered: boolean; firstPage: string }) {
  const otherFilters = Boolean(query.state || query.reason || query.type || query.client || query.tenant || query.from || query.to)
  return (
    <div className="panel">
      {query.q ? (
        <Empty title="No grant found.">
          <p>
            No grant has the id, continuation id or token management id <code>{query.q}</code>
            {otherFilters ? ' among the grants these filters keep' : ''}.
          </p>
        </Empty>
      ) : filtered ? (
        <Empty title="No grant matches these filters.">
          <p>Try a wider date range or fewer filters.</p>
        </Empty>
      ) : query.cursor ? (
        <NoMorePages title="No more grants." firstHref={firstPage} />
      ) : (
        <Empty title="No grants yet.">
          <p>Grants appear here as soon as a client asks this server for access.</p>
        </Empty>
      )}
    </div>
  )
}

/** Search, filters and order: read on submit; a new filter starts from the first page, the order stays. */
function GrantFilters({
  url,
  tenants,
  clearHref,
}: {
  url: UrlState<typeof GrantQuerySchema>
  tenants: readonly TenantRow[]
  clearHref: string | null
}) {
  const trpc = useTRPC()
  const clients = useQuery(trpc.clients.list.queryOptions({ limit: 100 }))
  const query = url.state
  function parse(params: URLSearchParams) {
    // A pasted continue or manage URL names its id in the last path segment.
    params.set('q', lastSegment(params.get('q') ?? ''))
    return parseSearchParams(GrantQuerySchema, params).value
  }
  return (
    <FilterForm url={url} parse={parse} heading="Search and filters" clearHref={clearHref}>
      <div className="wide">
        <label htmlFor="f-q">Search by id</label>
        <input id="f-q" name="q" defaultValue={query.q ?? ''} autoComplete="off" spellCheck={false} aria-describedby="f-q-hint" />
        <span className="hint" id="f-q-hint">
          A grant id, a continuation id or a token&apos;s management id, exactly.
        </span>
      </div>
      <FilterSelect id="f-state" name="state" label="State" anyLabel="Any state" options={STATES} value={query.state} />
      <FilterSelect id="f-reason" name="reason" label="Finalization reason" anyLabel="Any reason" options={REASONS} value={query.reason} />
      <FilterSelect id="f-type" name="type" label="Access type" anyLabel="Any type" options={ACCESS_TYPES} value={query.type} />
      {tenants.length > 0 && (
        <FilterSelect
          id="f-tenant"
          name="tenant"
          label="Tenant"
          anyLabel="Any tenant"
          options={Object.fromEntries(tenants.map((t) => [t.id, `${tenantLabel(t.id, tenants)}${t.deletedAt ? ' (deleted)' : ''}`]))}
          value={query.tenant}
        />
      )}
      <MatchField
        id="f-client"
        label="Client wallet address"
        name="client"
        value={query.client}
        matchName="match"
        match={query.match}
        matchLabel="How the address matches"
        input={{ inputMode: 'url', list: 'known-clients' }}
      >
        <datalist id="known-clients">
          {clients.data?.items.map((c) => (
            <option key={c.walletAddress} value={c.walletAddress}>
              {c.name ?? ''}
            </option>
          ))}
        </datalist>
      </MatchField>
      <DayRangeFields fromLabel="Requested from" toLabel="Requested until" from={query.from} to={query.to} />
      <div>
        <label htmlFor="f-sort">Order</label>
        <select id="f-sort" name="sort" defaultValue={query.sort}>
          {Object.entries(SORTS).map(([v, s]) => (
            <option key={v} value={v}>
              {s.label}
            </option>
          ))}
        </select>
      </div>
    </FilterForm>
  )
}

/** One filter of the grants table: a labelled select whose first option is "any". */
function FilterSelect(props: {
  id: string
  name: string
  label: string
  anyLabel: string
  options: Record<string, string>
  value: string | undefined
}) {
  return (
    <div>
      <label htmlFor={props.id}>{props.label}</label>
      <select id={props.id} name={props.name} defaultValue={props.value ?? ''}>
        <option value="">{props.anyLabel}</option>
        <Options options={props.options} />
      </select>
    </div>
  )
}
