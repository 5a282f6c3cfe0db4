'use client'

import { useQuery } from '@tanstack/react-query'
import Link from 'next/link'
import { useState } from 'react'
import { useTRPC } from '../../../_lib/trpc'
import { formatSeconds } from '../../../_lib/format'
import { ForRole } from '../../../_lib/role'
import { DetailHeader, DetailView, Facts, Panel } from '../../../_components/detail-page'
import { DataTable, type Columns } from '../../../_components/data-table'
import { QueryBoundary } from '../../../_components/query-boundary'
import { grantIdColumn, grantStatusColumn, requestedColumn } from '../../../_components/columns'
import { AuditEntries, Empty, GrantStatusBadge, Time } from '../../../_components/ui'
import { OwnerStatusBadge } from '../owner-status'
import { EditOwner } from './edit-owner'
import { IssueLinks } from './issue-links'
import { OwnerDangerZone } from './owner-danger-zone'
import { WalletAddresses } from './wallet-addresses'
import type { OwnerDetail } from './owner-words'

const grantColumns: Columns<OwnerDetail['grants'][number]> = [
  grantIdColumn(),
  grantStatusColumn(),
  {
    id: 'client',
    header: 'Client',
    cell: ({ row: { original: g } }) => (
      <>
        {g.clientName ?? <span className="muted">No name given</span>}
        <span className="cell-sub">{g.client}</span>
      </>
    ),
  },
  { id: 'resource', header: 'Resource', cell: ({ row }) => <code>{row.original.identifier}</code> },
  requestedColumn(),
]

const OWNERS = { href: '/admin/owners', name: 'Owners' }

/** One owner: status, wallet addresses, grants, sign-in activity, audit entries, and what an administrator may change. */
export function OwnerDetailView({ id, created }: { id: string; created: boolean }) {
  const trpc = useTRPC()
  const owner = useQuery(trpc.owners.byId.queryOptions({ ownerId: id }))
  const [notice, setNotice] = useState<string | null>(
    created ? 'Owner created. Create an invitation link below and pass it on, so they can set a password.' : null,
  )
  return (
    <DetailView query={owner} what="owner" heading="Owner" parent={OWNERS} notFound="No owner has this id. They may have been deleted.">
      {(o) => <OwnerPage owner={o} notice={notice} onNotice={setNotice} />}
    </DetailView>
  )
}

function OwnerPage({ owner: o, notice, onNotice: setNotice }: { owner: OwnerDetail; notice: string | null; onNotice(text: string): void }) {
  return (
    <>
      <DetailHeader parent={OWNERS} title={o.name} line={[o.email, <OwnerStatusBadge status={o.status} />]} notice={notice} />

      <div className="grid-2">
        <Panel id="summary" heading="Account">
          <Facts
            facts={[
              ['Name', o.name],
              ['Email', o.email],
              // A server without tenants shows no tenant (docs/protocol.md §2.21).
              ...(o.tenantId ? [['Tenant', <code>{o.tenantId}</code>] as const] : []),
              [
                'Status',
                <>
                  <OwnerStatusBadge status={o.status} />{' '}
                  {o.status === 'disabled'
                    ? 'Cannot sign in; their open requests say the account is disabled.'
                    : o.hasPassword
                      ? 'Can sign in and decide on requests.'
                      : 'Can sign in and decide on requests once they set a password.'}
                </>,
              ],
              ['Password', o.hasPassword ? 'Set by the owner' : 'Not set yet: the owner cannot sign in until they use an invitation link'],
              ['Created', <Time value={o.createdAt} />],
              ['Last change', <Time value={o.updatedAt} />],
            ]}
          />
          <ForRole role="admin">
            <EditOwner owner={o} onDone={setNotice} />
          </ForRole>
        </Panel>

        <Panel id="sign-in" heading="Sign-in activity">
          <Facts
            facts={[
              ['Last sign-in', <Time value={o.signIn.lastSignInAt} empty="Never" />],
              [
                'Failed sign-ins',
                <>
                  {o.signIn.failuresThisWindow}
                  <span className="cell-sub">
                    In the current {formatSeconds(o.signIn.windowSeconds)} window, since <Time value={o.signIn.windowStart} />
                  </span>
                </>,
              ],
            ]}
          />
          <ForRole role="admin">
            <h3>Sign-in links</h3>
            <IssueLinks owner={o} />
          </ForRole>
        </Panel>
      </div>

      <WalletAddresses owner={o} onDone={setNotice} />

      <Panel id="grants" heading={<>Grants on these wallet addresses ({o.grants.length})</>}>
        {o.grants.length === 0 ? (
          <Empty title="No grants.">
            <p>No client has asked for access to these wallet addresses yet.</p>
          </Empty>
        ) : (
          <DataTable
            columns={grantColumns}
            rows={o.grants}
            rowKey={(g) => g.id}
            caption="Grants naming the owner’s wallet addresses, newest first"
            captionHidden
          />
        )}
      </Panel>

      <AuditEntries heading="Audit entries about this owner" entries={o.audit} />

      <ForRole role="admin">
        <OwnerDangerZone owner={o} onDone={setNotice} />
      </ForRole>
    </>
  )
}
