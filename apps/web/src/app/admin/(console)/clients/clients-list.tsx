'use client'

import { keepPreviousData, useQuery } from '@tanstack/react-query'
import type { inferRouterOutputs } from '@trpc/server'
import Link from 'next/link'
import { useRouter } from 'next/navigation'
import type { FormEvent } from 'react'
import { z } from 'zod'
import type { AppRouter } from '@gnap/api'
import { useTRPC } from '../../_lib/trpc'
import { useUrlState } from '../../_lib/url-state'
import type { Columns } from '../../_components/data-table'
import { SearchForm } from '../../_components/filter-form'
import { countOf, ListTable } from '../../_components/list-table'
import { Empty, Time } from '../../_components/ui'
import { ClientStatusBadge, ClientSubline, clientHref, clientTitle } from './client-status'

type Outputs = inferRouterOutputs<AppRouter>['clients']

/** The clients list's query: the beginning of a wallet address. */
const ClientsQuerySchema = z.object({
  q: z
    .string()
    .transform((q) => q.slice(0, 2048))
    .optional(),
})

const columns: Columns<Outputs['list']['items'][number]> = [
  {
    id: 'client',
    header: 'Client',
    cell: ({ row: { original: c } }) => (
      <>
        <Link href={clientHref(c.walletAddress)}>{clientTitle(c)}</Link>
        <ClientSubline client={c} />
      </>
    ),
  },
  { id: 'status', header: 'Status', cell: ({ row }) => <ClientStatusBadge blocked={row.original.blocked} /> },
  { id: 'grants', header: 'Grants', cell: ({ row }) => row.original.grants },
  { id: 'latest', header: 'Latest grant', cell: ({ row }) => <Time value={row.original.lastGrantAt} /> },
]

const blockedColumns: Columns<Outputs['blocked']['items'][number]> = [
  {
    id: 'address',
    header: 'Wallet address',
    cell: ({ row }) => <Link href={clientHref(row.original.walletAddress)}>{row.original.walletAddress}</Link>,
  },
  { id: 'reason', header: 'Reason', cell: ({ row }) => row.original.reason },
  { id: 'by', header: 'Blocked by', cell: ({ row }) => row.original.blockedBy },
  { id: 'since', header: 'Since', cell: ({ row }) => <Time value={row.original.blockedAt} /> },
]

/** The clients (wallet addresses that asked for grants), a search by the start of the address, and the blocked ones. */
export function ClientsList() {
  const router = useRouter()
  const trpc = useTRPC()
  const url = useUrlState(ClientsQuerySchema)
  const q = url.state.q ?? ''
  const clients = useQuery({ ...trpc.clients.list.queryOptions({ search: q || undefined, limit: 100 }), placeholderData: keepPreviousData })

  function open(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const address = String(new FormData(event.currentTarget).get('address') ?? '').trim()
    if (address) router.push(clientHref(address))
  }

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Clients</h1>
          <p>The apps that ask this server for access, each known by its wallet address. Open one to see its grants and tokens, or to block it.</p>
        </div>
      </div>

      <SearchForm
        url={url}
        id="clients-q"
        label="Wallet address"
        hint="The beginning is enough, for example https://wallet.example/. Letters must match exactly."
      />

      <ListTable
        query={clients}
        loading="Loading clients…"
        what="The clients"
        live
        empty={
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
        }
        columns={columns}
        rowKey={(c) => c.walletAddress}
        caption={(items) =>
          `${items.length === 100 ? 'The 100 clients with the most grants' : countOf(items.length, 'client')}${q ? `, wallet address starting with “${q}”` : ''}`
        }
      />

      <BlockedClients />

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

function BlockedClients() {
  const trpc = useTRPC()
  const blocked = useQuery(trpc.clients.blocked.queryOptions())
  return (
    <section className="panel" aria-labelledby="blocked-heading">
      <h2 id="blocked-heading">Blocked clients</h2>
      <p className="hint">A blocked client cannot ask for grants, continue them, or use or renew its tokens, until someone unblocks it.</p>
      <ListTable
        query={blocked}
        loading="Loading blocked clients…"
        what="The blocked clients"
        empty={<p className="muted">No client is blocked.</p>}
        columns={blockedColumns}
        rowKey={(b) => b.walletAddress}
        caption={() => 'Blocked clients, most recently blocked first'}
        captionHidden
      />
    </section>
  )
}
