'use client'

import { useQueries } from '@tanstack/react-query'
import { useState } from 'react'
import Link from 'next/link'
import { useTRPC } from '../../_lib/trpc'
import { errorMessage } from '../../_lib/errors'
import { AUDIT_ACTION_LABEL } from '../../_lib/format'
import { Empty, ErrorMessage, Loading, Time } from '../../_components/ui'

/** `grant:<id>` and `token:<management id>` link to their pages; anything else is shown as written. */
function Target({ target }: { target: string }) {
  const [kind, ...rest] = target.split(':')
  const id = rest.join(':')
  if (kind === 'grant' && id) {
    return (
      <>
        Grant{' '}
        <Link href={`/admin/grants/${id}`} className="mono">
          {id}
        </Link>
      </>
    )
  }
  if (kind === 'token' && id) {
    return (
      <>
        Token{' '}
        <Link href={`/admin/tokens/${id}`} className="mono">
          {id}
        </Link>
      </>
    )
  }
  if (kind === 'admin' && id) return <>Administrator {id}</>
  return <>{target}</>
}

/** What administrators did, newest first: who, what, to which grant or token, when. */
export function AuditLog() {
  const trpc = useTRPC()
  // One query per page shown, each from the cursor the page before it returned. (Not useInfiniteQuery: tRPC adds
  // `direction` to its input, which the procedure's strict input schema refuses.)
  const [cursors, setCursors] = useState<(string | null)[]>([null])
  const pages = useQueries({ queries: cursors.map((cursor) => trpc.audit.list.queryOptions({ limit: 50, cursor })) })
  const entries = pages.flatMap((p) => p.data?.items ?? [])
  const first = pages[0]!
  const last = pages[pages.length - 1]!
  const nextCursor = last.data?.nextCursor ?? null
  const loadingMore = cursors.length > 1 && last.isPending
  const log = {
    isPending: first.isPending,
    isSuccess: first.isSuccess,
    isError: pages.some((p) => p.isError),
    error: pages.find((p) => p.isError)?.error,
    hasNextPage: loadingMore || nextCursor !== null,
    isFetchingNextPage: loadingMore,
    refetch: () => Promise.all(pages.map((p) => p.refetch())),
    fetchNextPage: () => nextCursor && setCursors((c) => [...c, nextCursor]),
  }

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Audit log</h1>
          <p>What administrators did in this console, newest first: sign-ins, sign-outs and revocations.</p>
        </div>
      </div>
      {log.isPending && <Loading>Loading the audit log…</Loading>}
      {log.isError && entries.length === 0 && (
        <ErrorMessage
          title="The audit log could not be loaded."
          action={
            <button type="button" className="button secondary" onClick={() => void log.refetch()}>
              Try again
            </button>
          }
        >
          {errorMessage(log.error)}
        </ErrorMessage>
      )}
      {log.isSuccess && entries.length === 0 && (
        <div className="panel">
          <Empty title="Nothing recorded yet.">
            <p>Sign-ins and revocations appear here.</p>
          </Empty>
        </div>
      )}
      {entries.length > 0 && (
        <>
          <div className="table-wrap">
            <table>
              <caption>{entries.length === 1 ? '1 entry' : `${entries.length} entries`}</caption>
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
                {entries.map((e) => (
                  <tr key={e.id}>
                    <td className="nowrap">
                      <Time value={e.at} />
                    </td>
                    <td>{e.actor}</td>
                    <td>{AUDIT_ACTION_LABEL[e.action] ?? e.action}</td>
                    <td>
                      <Target target={e.target} />
                    </td>
                    <td>{e.detail ?? <span className="muted">—</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="pager">
            <span className="muted">{log.hasNextPage ? 'Older entries are on the next page.' : 'Nothing older was recorded.'}</span>
            {log.hasNextPage && (
              <button type="button" className="button secondary" onClick={() => void log.fetchNextPage()} disabled={log.isFetchingNextPage}>
                {log.isFetchingNextPage ? 'Loading…' : 'Show older entries'}
              </button>
            )}
          </div>
          {log.isError && <ErrorMessage title="Older entries could not be loaded.">{errorMessage(log.error)}</ErrorMessage>}
        </>
      )}
    </>
  )
}
