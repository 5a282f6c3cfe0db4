'use client'

import { keepPreviousData, useQuery } from '@tanstack/react-query'
import Link from 'next/link'
import { useRouter, useSearchParams } from 'next/navigation'
import { useMemo, type FormEvent } from 'react'
import { useTRPC } from '../../_lib/trpc'
import { ACCESS_TYPE_LABEL } from '../../_lib/format'
import {
  ACCESS_TYPES,
  REASONS,
  SORTS,
  STATES,
  grantQueryString,
  hasFilters,
  parseGrantQuery,
  toListInput,
  type GrantQuery,
  type SortKey,
} from '../../_lib/grant-query'
import { Empty, GrantStatusBadge, ListError, Loading, MatchField, Pager, Time } from '../../_components/ui'

const lastSegment = (text: string) => {
  const t = text.trim()
  return /^https?:\/\//i.test(t) ? (t.replace(/\/+$/, '').split('/').pop() ?? '') : t
}

/** The grants table: filters, search and sort in the URL, one page of the server's keyset pagination at a time. */
export function GrantsBrowser() {
  const params = useSearchParams()
  const router = useRouter()
  const trpc = useTRPC()
  const queryString = params.toString()
  const query = useMemo(() => parseGrantQuery(new URLSearchParams(queryString)), [queryString])
  const grants = useQuery({ ...trpc.grants.list.queryOptions(toListInput(query)), placeholderData: keepPreviousData })
  const clients = useQuery(trpc.clients.list.queryOptions({ limit: 100 }))

  const go = (next: GrantQuery) => router.push(`/admin/grants${grantQueryString(next)}`)

  function applyFilters(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const f = new FormData(event.currentTarget)
    const value = (name: string) => String(f.get(name) ?? '')
    // A new filter starts from the first page; the sort stays.
    go(
      parseGrantQuery(
        new URLSearchParams({
          // A pasted continue or manage URL names its id in the last path segment.
          q: lastSegment(value('q')),
          state: value('state'),
          reason: value('reason'),
          type: value('type'),
          client: value('client'),
          match: value('match'),
          from: value('from'),
          to: value('to'),
          sort: value('sort'),
        }),
      ),
    )
  }

  const sortLink = (column: 'created' | 'updated') => {
    const next: SortKey = query.sort === `${column}-desc` ? `${column}-asc` : `${column}-desc`
    return `/admin/grants${grantQueryString({ ...query, sort: next, cursor: undefined })}`
  }
  const ariaSort = (column: 'created' | 'updated') =>
    query.sort === `${column}-desc` ? 'descending' : query.sort === `${column}-asc` ? 'ascending' : undefined

  const filtered = hasFilters(query)
  const otherFilters = Boolean(query.state || query.reason || query.type || query.client || query.from || query.to)
  const items = grants.data?.items ?? []

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Grants</h1>
          <p>Every grant clients requested, {SORTS[query.sort].label.toLowerCase()}.</p>
        </div>
      </div>

      <section className="panel" aria-labelledby="filters-heading">
        <h2 id="filters-heading">Search and filters</h2>
        <form key={queryString} onSubmit={applyFilters} role="search" aria-labelledby="filters-heading">
          <div className="filters">
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
            <MatchField
              id="f-client"
              label="Client wallet address"
              name="client"
              value={query.client}
              matchName="match"
              match={query.clientMatch}
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
            <div>
              <label htmlFor="f-from">Requested from</label>
              <input id="f-from" name="from" type="date" defaultValue={query.from ?? ''} />
            </div>
            <div>
              <label htmlFor="f-to">Requested until</label>
              <input id="f-to" name="to" type="date" defaultValue={query.to ?? ''} aria-describedby="f-to-hint" />
              <span className="hint" id="f-to-hint">
                Days in UTC, both included.
              </span>
            </div>
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
          </div>
          <div className="filter-actions">
            <button type="submit" className="button">
              Apply
            </button>
            {filtered && (
              <Link href={`/admin/grants${grantQueryString({ clientMatch: 'exact', sort: query.sort })}`} className="button quiet">
                Clear filters
              </Link>
            )}
          </div>
        </form>
      </section>

      {grants.isPending && <Loading>Loading grants…</Loading>}
      {grants.isError && (
        <ListError
          what="The grants"
          error={grants.error}
          firstPageHref={query.cursor ? `/admin/grants${grantQueryString({ ...query, cursor: undefined })}` : null}
          onRetry={() => void grants.refetch()}
        />
      )}

      {grants.data && items.length === 0 && (
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
            <Empty title="No more grants.">
              <p>
                <Link href={`/admin/grants${grantQueryString({ ...query, cursor: undefined })}`}>Back to the first page</Link>
              </p>
            </Empty>
          ) : (
            <Empty title="No grants yet.">
              <p>Grants appear here as soon as a client asks this server for access.</p>
            </Empty>
          )}
        </div>
      )}

      {items.length > 0 && (
        <>
          <div className="table-wrap">
            <table aria-busy={grants.isFetching ? 'true' : 'false'}>
              <caption>
                {items.length} grant{items.length === 1 ? '' : 's'} on this page{filtered ? ', filtered' : ''}
                {grants.isFetching && !grants.isPending ? ' (updating…)' : ''}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Grant</th>
                  <th scope="col">Status</th>
                  <th scope="col">Client</th>
                  <th scope="col">Access</th>
                  <th scope="col" aria-sort={ariaSort('created')}>
                    <Link href={sortLink('created')} className="sort">
                      Requested <SortArrow direction={ariaSort('created')} />
                    </Link>
                  </th>
                  <th scope="col" aria-sort={ariaSort('updated')}>
                    <Link href={sortLink('updated')} className="sort">
                      Last change <SortArrow direction={ariaSort('updated')} />
                    </Link>
                  </th>
                </tr>
              </thead>
              <tbody>
                {items.map((g) => (
                  <tr key={g.id}>
                    <td>
                      <Link href={`/admin/grants/${g.id}`} className="mono">
                        {g.id}
                      </Link>
                    </td>
                    <td>
                      <GrantStatusBadge status={g.status} />
                    </td>
                    <td>
                      {g.client.name ?? <span className="muted">No name given</span>}
                      <span className="cell-sub">{g.client.walletAddress}</span>
                    </td>
                    <td>
                      {g.accessTypes.map((t) => (
                        <span key={t} className="tag">
                          {ACCESS_TYPE_LABEL[t] ?? t}
                        </span>
                      ))}
                    </td>
                    <td>
                      <Time value={g.createdAt} />
                    </td>
                    <td>
                      <Time value={g.updatedAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            noun="grants"
            firstHref={query.cursor ? `/admin/grants${grantQueryString({ ...query, cursor: undefined })}` : null}
            nextHref={grants.data?.nextCursor ? `/admin/grants${grantQueryString({ ...query, cursor: grants.data.nextCursor })}` : null}
          />
        </>
      )}
    </>
  )
}

function SortArrow({ direction }: { direction: 'ascending' | 'descending' | undefined }) {
  if (!direction) return <span className="visually-hidden">(sort by this column)</span>
  return <span aria-hidden="true">{direction === 'descending' ? '↓' : '↑'}</span>
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
        {Object.entries(props.options).map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  )
}
