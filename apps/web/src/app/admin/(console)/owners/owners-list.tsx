'use client'

import { keepPreviousData, useQuery } from '@tanstack/react-query'
import type { inferRouterOutputs } from '@trpc/server'
import Link from 'next/link'
import { z } from 'zod'
import type { AppRouter } from '@gnap/api'
import { useTRPC } from '../../_lib/trpc'
import { useUrlState } from '../../_lib/url-state'
import type { Columns } from '../../_components/data-table'
import { SearchForm } from '../../_components/filter-form'
import { countOf, ListTable, NoMorePages } from '../../_components/list-table'
import { Empty, Time } from '../../_components/ui'
import { ForRole } from '../../_lib/role'
import { OwnerStatusBadge } from './owner-status'

type OwnerRow = inferRouterOutputs<AppRouter>['owners']['list']['items'][number]

/** The owners list's query: a search (the beginning of an email, a name or an address) and the page's cursor. */
const OwnersQuerySchema = z.object({
  q: z
    .string()
    .transform((q) => q.slice(0, 200))
    .optional(),
  /** Only this tenant's owners (docs/protocol.md §2.21). */
  tenant: z
    .string()
    .transform((t) => t.trim().slice(0, 64))
    .optional(),
  after: z.string().optional(),
})

const columns: Columns<OwnerRow> = [
  {
    id: 'name',
    header: 'Name',
    cell: ({ row: { original: o } }) => (
      <>
        <Link href={`/admin/owners/${o.id}`}>{o.name}</Link>
        {o.matchedWalletAddress && <span className="cell-sub">{o.matchedWalletAddress}</span>}
      </>
    ),
    meta: { sticky: true },
  },
  { id: 'email', header: 'Email', cell: ({ row }) => row.original.email },
  { id: 'status', header: 'Status', cell: ({ row }) => <OwnerStatusBadge status={row.original.status} /> },
  { id: 'created', header: 'Created', cell: ({ row }) => <Time value={row.original.createdAt} /> },
]

/** The tenant column, shown once a listed owner belongs to a tenant: a server without tenants lists as before. */
const tenantColumn: Columns<OwnerRow>[number] = {
  id: 'tenant',
  header: 'Tenant',
  cell: ({ row }) => (row.original.tenantId ? <code>{row.original.tenantId}</code> : '—'),
}

/** The owners table: a search in the URL, one page of the server's keyset pagination at a time. */
export function OwnersList() {
  const trpc = useTRPC()
  const url = useUrlState(OwnersQuerySchema)
  const q = url.state.q ?? ''
  const tenant = url.state.tenant ?? ''
  const after = url.state.after
  const owners = useQuery({
    ...trpc.owners.list.queryOptions({ search: q || undefined, tenantId: tenant || undefined, cursor: after ?? null, limit: 50 }),
    placeholderData: keepPreviousData,
  })
  const firstPage = url.href({ q, tenant })
  const withTenant = tenant !== '' || (owners.data?.items.some((o) => o.tenantId !== null) ?? false)

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

      <SearchForm
        url={url}
        id="owners-q"
        label="Email, name or wallet address"
        hint="The beginning is enough: an email when it has an @, a wallet address when it starts with https://, else a name (any case), or an email when no name starts with it."
        filtered={tenant !== ''}
        extra={
          <div>
            <label htmlFor="owners-tenant">Tenant</label>
            <input
              id="owners-tenant"
              name="tenant"
              defaultValue={tenant}
              autoComplete="off"
              spellCheck={false}
              aria-describedby="owners-tenant-hint"
            />
            <span className="hint" id="owners-tenant-hint">
              A tenant id: its owners only.
            </span>
          </div>
        }
      />

      <ListTable
        query={owners}
        loading="Loading owners…"
        what="The owners"
        live
        pager={{ noun: 'owners', firstHref: after ? firstPage : null, nextHref: (cursor) => url.href({ q, tenant, after: cursor }) }}
        empty={<NoOwners q={q} tenant={tenant} firstPage={after ? firstPage : null} />}
        columns={withTenant ? [...columns.slice(0, 3), tenantColumn, ...columns.slice(3)] : columns}
        rowKey={(o) => `${o.id}-${o.matchedWalletAddress ?? ''}`}
        caption={(items) => `${countOf(items.length, 'owner')} on this page${q ? `, matching “${q}”` : ''}${tenant ? `, of tenant ${tenant}` : ''}`}
      />
    </>
  )
}

function NoOwners({ q, tenant, firstPage }: { q: string; tenant: string; firstPage: string | null }) {
  return (
    <div className="panel">
      {tenant && !q ? (
        <Empty title="No owner found.">
          <p>
            Tenant <code>{tenant}</code> has no owners.
          </p>
        </Empty>
      ) : q ? (
        <Empty title="No owner found.">
          <p>
            No owner&apos;s email, name or wallet address starts with <code>{q}</code>.
          </p>
        </Empty>
      ) : firstPage ? (
        <NoMorePages title="No more owners." firstHref={firstPage} />
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
  )
}
