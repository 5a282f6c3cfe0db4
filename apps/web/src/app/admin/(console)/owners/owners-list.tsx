'use client'

import { keepPreviousData, useQuery } from '@tanstack/react-query'
import Link from 'next/link'
import { useRouter, useSearchParams } from 'next/navigation'
import type { FormEvent } from 'react'
import { useTRPC } from '../../_lib/trpc'
import { Empty, ListError, Loading, Pager, Time } from '../../_components/ui'
import { ForRole } from '../../_lib/role'
import { OwnerStatusBadge } from './owner-status'

const listHref = (q: string, after?: string) => {
  const p = new URLSearchParams()
  if (q) p.set('q', q)
  if (after) p.set('after', after)
  const s = p.toString()
  return `/admin/owners${s ? `?${s}` : ''}`
}

/** The owners table: a search in the URL, one page of the server's keyset pagination at a time. */
export function OwnersList() {
  const params = useSearchParams()
  const router = useRouter()
  const trpc = useTRPC()
  const q = (params.get('q') ?? '').slice(0, 200)
  const after = params.get('after') ?? undefined
  const owners = useQuery({
    ...trpc.owners.list.queryOptions({ search: q || undefined, cursor: after ?? null, limit: 50 }),
    placeholderData: keepPreviousData,
  })

  function search(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    router.push(listHref(String(new FormData(event.currentTarget).get('q') ?? '').trim()))
  }

  const items = owners.data?.items ?? []
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Owners</h1>
          <p>The people whose wallet addresses this server decides for: they approve grants on the consent screen.</p>
        </div>
        <ForRole role="admin">
          <Link href="/admin/owners/new" className="button">
            Create owner
          </Link>
        </ForRole>
      </div>

      <section className="panel" aria-labelledby="search-heading">
        <h2 id="search-heading">Search</h2>
        <form key={q} onSubmit={search} role="search" aria-labelledby="search-heading" className="inline-form">
          <div className="grow">
            <label htmlFor="owners-q">Email, name or wallet address</label>
            <input id="owners-q" name="q" defaultValue={q} autoComplete="off" spellCheck={false} aria-describedby="owners-q-hint" />
            <span className="hint" id="owners-q-hint">
              The beginning is enough: an email when it has an @, a wallet address when it starts with https://, else a name (any case), or an email
              when no name starts with it.
            </span>
          </div>
          <button type="submit" className="button">
            Search
          </button>
          {q && (
            <Link href="/admin/owners" className="button quiet">
              Clear
            </Link>
          )}
        </form>
      </section>

      {owners.isPending && <Loading>Loading owners…</Loading>}
      {owners.isError && (
        <ListError what="The owners" error={owners.error} firstPageHref={after ? listHref(q) : null} onRetry={() => void owners.refetch()} />
      )}

      {owners.data && items.length === 0 && (
        <div className="panel">
          {q ? (
            <Empty title="No owner found.">
              <p>
                No owner&apos;s email, name or wallet address starts with <code>{q}</code>.
              </p>
            </Empty>
          ) : after ? (
            <Empty title="No more owners.">
              <p>
                <Link href={listHref(q)}>Back to the first page</Link>
              </p>
            </Empty>
          ) : (
            <Empty title="No owners yet.">
              <ForRole role="admin">
                <p>
                  <Link href="/admin/owners/new">Create the first owner</Link>, then give them an invitation link to set their password.
                </p>
              </ForRole>
            </Empty>
          )}
        </div>
      )}

      {items.length > 0 && (
        <>
          <div className="table-wrap">
            <table aria-busy={owners.isFetching ? 'true' : 'false'}>
              <caption>
                {items.length} owner{items.length === 1 ? '' : 's'} on this page{q ? `, matching “${q}”` : ''}
                {owners.isFetching && !owners.isPending ? ' (updating…)' : ''}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Email</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {items.map((o) => (
                  <tr key={`${o.id}-${o.matchedWalletAddress ?? ''}`}>
                    <td>
                      <Link href={`/admin/owners/${o.id}`}>{o.name}</Link>
                      {o.matchedWalletAddress && <span className="cell-sub">{o.matchedWalletAddress}</span>}
                    </td>
                    <td>{o.email}</td>
                    <td>
                      <OwnerStatusBadge status={o.status} />
                    </td>
                    <td>
                      <Time value={o.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            noun="owners"
            firstHref={after ? listHref(q) : null}
            nextHref={owners.data?.nextCursor ? listHref(q, owners.data.nextCursor) : null}
          />
        </>
      )}
    </>
  )
}
