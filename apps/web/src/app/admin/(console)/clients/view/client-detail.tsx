'use client'

import { useQuery } from '@tanstack/react-query'
import Link from 'next/link'
import { useState } from 'react'
import { useTRPC } from '../../../_lib/trpc'
import { ACCESS_TYPE_LABEL, GRANT_STATUS_LABEL } from '../../../_lib/format'
import { Breadcrumb, DetailHeader, DetailView, Facts, Panel } from '../../../_components/detail-page'
import { DataTable, type Columns } from '../../../_components/data-table'
import { QueryBoundary } from '../../../_components/query-boundary'
import { grantIdColumn, grantStatusColumn, requestedColumn } from '../../../_components/columns'
import { AuditEntries, Empty, ErrorMessage, GrantStatusBadge, Time, TokenStatusBadge } from '../../../_components/ui'
import { Block, Unblock, type ClientDetail } from './block-client'
import { ClientStatusBadge, clientTitle } from '../client-status'

const grantColumns: Columns<ClientDetail['grants'][number]> = [
  grantIdColumn(),
  grantStatusColumn(),
  { id: 'access', header: 'Access', cell: ({ row }) => row.original.accessTypes.map((t) => ACCESS_TYPE_LABEL[t] ?? t).join(', ') },
  requestedColumn(),
  { id: 'updated', header: 'Last change', cell: ({ row }) => <Time value={row.original.updatedAt} /> },
]

const tokenColumns: Columns<ClientDetail['tokens'][number]> = [
  {
    id: 'token',
    header: 'Token',
    cell: ({ row: { original: t } }) => (
      <>
        <Link href={`/admin/tokens/${t.managementId}`} className="mono">
          {t.managementId}
        </Link>
        <span className="cell-sub">
          Grant <span className="mono">{t.grantId}</span>
        </span>
      </>
    ),
  },
  { id: 'status', header: 'Status', cell: ({ row }) => <TokenStatusBadge status={row.original.status} /> },
  { id: 'issued', header: 'Issued', cell: ({ row }) => <Time value={row.original.issuedAt} /> },
  { id: 'expires', header: 'Expires', cell: ({ row }) => <Time value={row.original.expiresAt} /> },
]

const CLIENTS = { href: '/admin/clients', name: 'Clients' }

/** One client: whether it is blocked, its grants and tokens, its last activity, and block or unblock. */
export function ClientDetailView({ address }: { address: string }) {
  const trpc = useTRPC()
  const client = useQuery({ ...trpc.clients.byWalletAddress.queryOptions({ walletAddress: address }), enabled: address !== '' })
  const session = useQuery(trpc.auth.session.queryOptions())
  const [notice, setNotice] = useState<string | null>(null)
  // Viewers read; operators and admins block and unblock (the server checks the role either way).
  const mayBlock = session.data !== undefined && session.data.admin.role !== 'viewer'

  if (address === '') {
    return (
      <>
        <Breadcrumb parent={CLIENTS} />
        <h1>Client</h1>
        <ErrorMessage title="No wallet address given." action={<Link href="/admin/clients">Back to the clients</Link>}>
          Open a client from the list of clients, or type its wallet address there.
        </ErrorMessage>
      </>
    )
  }
  return (
    <DetailView query={client} what="client" heading="Client" parent={CLIENTS}>
      {(c) => <ClientPage client={c} mayBlock={mayBlock} notice={notice} onNotice={setNotice} />}
    </DetailView>
  )
}

function ClientPage({
  client: c,
  mayBlock,
  notice,
  onNotice: setNotice,
}: {
  client: ClientDetail
  mayBlock: boolean
  notice: string | null
  onNotice(text: string): void
}) {
  return (
    <>
      <DetailHeader
        parent={CLIENTS}
        title={clientTitle(c, 'Client without a name')}
        line={[<code>{c.thumbprint ?? c.walletAddress}</code>, <ClientStatusBadge blocked={c.block !== null} />]}
        notice={notice}
      />

      <div className="grid-2">
        <Panel id="summary" heading="Summary">
          <Facts
            facts={[
              c.thumbprint !== null && [
                'Identified by',
                <>
                  Its public key alone (directed identity): it has no wallet address and gives no name.
                  <span className="cell-sub">
                    Key thumbprint (RFC 7638) <code>{c.thumbprint}</code>
                  </span>
                </>,
              ],
              c.thumbprint === null && ['Wallet address', <code>{c.walletAddress}</code>],
              c.thumbprint === null && ['Name it gives', c.name ?? <span className="muted">None</span>],
              [
                'Status',
                <>
                  <ClientStatusBadge blocked={c.block !== null} />{' '}
                  {c.block ? 'Every request it makes is refused.' : 'It may ask for grants and use its tokens.'}
                </>,
              ],
              [
                'Last activity',
                <>
                  <Time value={c.lastActivityAt} empty="None yet" />
                  <span className="cell-sub">Its latest grant request, continuation, or token issued or renewed.</span>
                </>,
              ],
              [
                'Grants',
                (['pending', 'approved', 'issued', 'revoked', 'rejected', 'expired'] as const)
                  .filter((s) => c.grantCounts[s] > 0)
                  .map((s) => `${c.grantCounts[s]} ${GRANT_STATUS_LABEL[s].toLowerCase()}`)
                  .join(', ') || <span className="muted">None</span>,
              ],
            ]}
          />
        </Panel>

        <BlockPanel client={c} mayBlock={mayBlock} onNotice={setNotice} />
      </div>

      <Panel id="grants" heading="Grants">
        {c.grants.length === 0 ? (
          <Empty title="No grants.">
            <p>This client has not asked for anything yet.</p>
          </Empty>
        ) : (
          <DataTable
            columns={grantColumns}
            rows={c.grants}
            rowKey={(g) => g.id}
            caption={`The client’s grants, newest first${c.grants.length === 50 ? ' (the latest 50)' : ''}`}
            captionHidden
          />
        )}
        {c.grants.length > 0 && (
          <p>
            <Link href={`/admin/grants?client=${encodeURIComponent(c.walletAddress)}`}>All grants of this client</Link>
          </p>
        )}
      </Panel>

      <Panel id="tokens" heading="Tokens">
        {c.tokens.length === 0 ? (
          <p className="muted">No access token was issued to this client.</p>
        ) : (
          <DataTable
            columns={tokenColumns}
            rows={c.tokens}
            rowKey={(t) => t.managementId}
            caption={`The client’s access tokens, newest first${c.tokens.length === 50 ? ' (the latest 50)' : ''}`}
            captionHidden
          />
        )}
      </Panel>

      <AuditEntries heading="Audit entries about this client" entries={c.audit} />
    </>
  )
}

/** Whether the client is blocked and why; block or unblock for an operator. */
function BlockPanel({ client: c, mayBlock, onNotice: setNotice }: { client: ClientDetail; mayBlock: boolean; onNotice(text: string): void }) {
  const live = c.grantCounts.pending + c.grantCounts.approved + c.grantCounts.issued
  return (
    <Panel id="block" heading={<>{c.block ? 'Blocked' : 'Block this client'}</>}>
      {c.thumbprint !== null && (
        <p className="hint">
          A directed identity is known only by its key. A block refuses this key; the same software can make a new key and ask again as another
          client.
        </p>
      )}
      {c.block ? (
        <>
          <Facts
            facts={[
              ['Reason', c.block.reason],
              ['Blocked by', c.block.blockedBy],
              ['Since', <Time value={c.block.blockedAt} />],
            ]}
          />
          {mayBlock ? <Unblock client={c} onDone={setNotice} /> : <p className="muted">Only an operator or an administrator can unblock a client.</p>}
        </>
      ) : mayBlock ? (
        <Block client={c} live={live} onDone={setNotice} />
      ) : (
        <p className="muted">Only an operator or an administrator can block a client.</p>
      )}
    </Panel>
  )
}
