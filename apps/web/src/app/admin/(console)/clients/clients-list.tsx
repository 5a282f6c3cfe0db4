'use client'

import { keepPreviousData, useQuery } from '@tanstack/react-query'
import Link from 'next/link'
import { useRouter, useSearchParams } from 'next/navigation'
import type { FormEvent } from 'react'
import { useTRPC } from '../../_lib/trpc'
import { errorMessage } from '../../_lib/errors'
import { Empty, ErrorMessage, Loading, Time } from '../../_components/ui'
import { ClientStatusBadge, ClientSubline, clientHref, clientTitle } from './client-status'

const listHref = (q: string) => `/admin/clients${q ? `?${new URLSearchParams({ q }).toString()}` : ''}`

/** The clients (wallet addresses that asked for grants), a search by the start of the address, and the blocked ones. */
export function ClientsList() {
  const params = useSearchParams()
  const router = useRouter()
  const trpc = useTRPC()
  const q = (params.get('q') ?? '').slice(0, 2048)
  const clients = useQuery({ ...trpc.clients.list.queryOptions({ search: q || undefined, limit: 100 }), placeholderData: keepPreviousData })
  const blocked = useQuery(trpc.clients.blocked.queryOptions())

  function search(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    router.push(listHref(String(new FormData(event.currentTarget).get('q') ?? '').trim()))
  }

  function open(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const address = String(new FormData(event.currentTarget).get('address') ?? '').trim()
    if (address) router.push(clientHref(address))
  }

  const items = clients.data?.items ?? []
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Clients</h1>
          <p>The apps that ask this server for access, each known by its wallet address. Open one to see its grants and tokens, or to block it.</p>
        </div>
      </div>

      <section className="panel" aria-labelledby="search-heading">
        <h2 id="search-heading">Search</h2>
        <form key={q} onSubmit={search} role="search" aria-labelledby="search-heading" className="inline-form">
          <div className="grow">
            <label htmlFor="clients-q">Wallet address</label>
            <input id="clients-q" name="q" defaultValue={q} autoComplete="off" spellCheck={false} aria-describedby="clients-q-hint" />
            <span className="hint" id="clients-q-hint">
              The beginning is enough, for example https://wallet.example/. Letters must match exactly.
            </span>
          </div>
          <button type="submit" className="button">
            Search
          </button>
          {q && (
            <Link href="/admin/clients" className="button quiet">
              Clear
            </Link>
          )}
        </form>
      </section>

      {clients.isPending && <Loading>Loading clients…</Loading>}
      {clients.isError && (
        <ErrorMessage
          title="The clients could not be loaded."
          action={
            <button type="button" className="button secondary" onClick={() => void clients.refetch()}>
              Try again
            </button>
          }
        >
          {errorMessage(clients.error)}
        </ErrorMessage>
      )}
      {clients.data && items.length === 0 && (
        <div className="panel">
          {q ? (
            <Empty title="No client found.">
              <p>
                No client&apos;s wallet address starts with <code>{q}</code>.
              </p>
            </Empty>
          ) : (
            <Empty title="No clients yet.">
              <p>A client appears here once it has asked for a grant.</p>
            </Empty>
          )}
        </div>
      )}
      {items.length > 0 && (
        <div className="table-wrap">
          <table aria-busy={clients.isFetching ? 'true' : 'false'}>
            <caption>
              {items.length === 100 ? 'The 100 clients with the most grants' : `${items.length} client${items.length === 1 ? '' : 's'}`}
              {q ? `, wallet address starting with “${q}”` : ''}
              {clients.isFetching && !clients.isPending ? ' (updating…)' : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">Client</th>
                <th scope="col">Status</th>
                <th scope="col">Grants</th>
                <th scope="col">Latest grant</th>
              </tr>
            </thead>
            <tbody>
              {items.map((c) => (
                <tr key={c.walletAddress}>
                  <td>
                    <Link href={clientHref(c.walletAddress)}>{clientTitle(c)}</Link>
                    <ClientSubline client={c} />
                  </td>
                  <td>
                    <ClientStatusBadge blocked={c.blocked} />
                  </td>
                  <td>{c.grants}</td>
                  <td>
                    <Time value={c.lastGrantAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <section className="panel" aria-labelledby="blocked-heading">
        <h2 id="blocked-heading">Blocked clients</h2>
        <p className="hint">A blocked client cannot ask for grants, continue them, or use or renew its tokens, until someone unblocks it.</p>
        {blocked.isPending && <Loading>Loading blocked clients…</Loading>}
        {blocked.isError && <ErrorMessage title="The blocked clients could not be loaded.">{errorMessage(blocked.error)}</ErrorMessage>}
        {blocked.data && blocked.data.items.length === 0 && <p className="muted">No client is blocked.</p>}
        {blocked.data && blocked.data.items.length > 0 && (
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">Blocked clients, most recently blocked first</caption>
              <thead>
                <tr>
                  <th scope="col">Wallet address</th>
                  <th scope="col">Reason</th>
                  <th scope="col">Blocked by</th>
                  <th scope="col">Since</th>
                </tr>
              </thead>
              <tbody>
                {blocked.data.items.map((b) => (
                  <tr key={b.walletAddress}>
                    <td>
                      <Link href={clientHref(b.walletAddress)}>{b.walletAddress}</Link>
                    </td>
                    <td>{b.reason}</td>
                    <td>{b.blockedBy}</td>
                    <td>
                      <Time value={b.blockedAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section className="panel" aria-labelledby="open-heading">
        <h2 id="open-heading">Open a wallet address</h2>
        <form onSubmit={open} className="inline-form" aria-labelledby="open-heading">
          <div className="grow">
            <label htmlFor="open-address">Wallet address of a client</label>
            <input
              id="open-address"
              name="address"
              type="url"
              required
              placeholder="https://wallet.example/app"
              spellCheck={false}
              autoComplete="off"
              aria-describedby="open-address-hint"
            />
            <span className="hint" id="open-address-hint">
              Also for a client that has not asked for anything yet, so you can block it in advance.
            </span>
          </div>
          <button type="submit" className="button secondary">
            Open
          </button>
        </form>
      </section>
    </>
  )
}
