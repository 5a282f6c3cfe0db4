'use client'

import { keepPreviousData, useQuery } from '@tanstack/react-query'
import Link from 'next/link'
import { useRouter, useSearchParams } from 'next/navigation'
import { useMemo, type FormEvent } from 'react'
import { useTRPC } from '../../_lib/trpc'
import { AUDIT_ACTION_LABEL, auditActionLabel } from '../../_lib/format'
import {
  AUDIT_ACTION_GROUPS,
  AUDIT_PAGE_SIZE,
  auditQueryString,
  hasAuditFilters,
  parseAuditQuery,
  toAuditFilters,
  type AuditQuery,
} from '../../_lib/audit-query'
import { Empty, ListError, Loading, MatchField, Pager, Time } from '../../_components/ui'

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

const href = (q: AuditQuery) => `/admin/audit${auditQueryString(q)}`

/** Who changed what, newest first: filters in the URL, one page of the server's keyset pagination at a time. */
export function AuditLog() {
  const params = useSearchParams()
  const router = useRouter()
  const trpc = useTRPC()
  const queryString = params.toString()
  const query = useMemo(() => parseAuditQuery(new URLSearchParams(queryString)).query, [queryString])
  const log = useQuery({
    ...trpc.audit.list.queryOptions({ limit: AUDIT_PAGE_SIZE, cursor: query.cursor ?? null, filters: toAuditFilters(query) }),
    placeholderData: keepPreviousData,
  })

  function applyFilters(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const f = new FormData(event.currentTarget)
    const value = (name: string) => String(f.get(name) ?? '')
    // New filters start from the first page.
    const next = new URLSearchParams()
    for (const name of ['actor', 'actorMatch', 'action', 'target', 'targetMatch', 'from', 'to']) next.set(name, value(name))
    router.push(href(parseAuditQuery(next).query))
  }

  const filtered = hasAuditFilters(query)
  const items = log.data?.items ?? []
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

      <section className="panel" aria-labelledby="filters-heading">
        <h2 id="filters-heading">Filters</h2>
        <form key={queryString} onSubmit={applyFilters} role="search" aria-labelledby="filters-heading">
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

      {log.isPending && <Loading>Loading the audit log…</Loading>}
      {log.isError && (
        <ListError what="The audit log" error={log.error} firstPageHref={query.cursor ? href(firstPage) : null} onRetry={() => void log.refetch()} />
      )}

      {log.data && items.length === 0 && (
        <div className="panel">
          {filtered ? (
            <Empty title="No entry matches these filters.">
              <p>Try a wider date range or fewer filters.</p>
            </Empty>
          ) : query.cursor ? (
            <Empty title="No more entries.">
              <p>
                <Link href={href(firstPage)}>Back to the first page</Link>
              </p>
            </Empty>
          ) : (
            <Empty title="Nothing recorded yet.">
              <p>Sign-ins, revocations and changes to owners appear here.</p>
            </Empty>
          )}
        </div>
      )}

      {items.length > 0 && (
        <>
          <div className="table-wrap">
            <table aria-busy={log.isFetching ? 'true' : 'false'}>
              <caption>
                {items.length === 1 ? '1 entry' : `${items.length} entries`} on this page{filtered ? ', filtered' : ''}
                {log.isFetching && !log.isPending ? ' (updating…)' : ''}
              </caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">What</th>
                  <th scope="col">Target</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {items.map((e) => (
                  <tr key={e.id}>
                    <td className="nowrap">
                      <Time value={e.at} />
                    </td>
                    <td>{e.actor}</td>
                    <td>{auditActionLabel(e.action)}</td>
                    <td>
                      <Target target={e.target} />
                    </td>
                    <td>{e.detail ?? <span className="muted">—</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            noun="entries"
            firstHref={query.cursor ? href(firstPage) : null}
            nextHref={log.data?.nextCursor ? href({ ...query, cursor: log.data.nextCursor }) : null}
          />
        </>
      )}
    </>
  )
}
