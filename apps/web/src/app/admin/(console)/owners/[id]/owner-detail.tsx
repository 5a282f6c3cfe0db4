'use client'

import { useQuery } from '@tanstack/react-query'
import Link from 'next/link'
import { useState } from 'react'
import { useTRPC } from '../../../_lib/trpc'
import { formatSeconds } from '../../../_lib/format'
import { ForRole } from '../../../_lib/role'
import { Notice } from '../../../_components/notice'
import { DataTable, type Columns } from '../../../_components/data-table'
import { QueryBoundary } from '../../../_components/query-boundary'
import { grantIdColumn, grantStatusColumn } from '../../../_components/columns'
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
  { id: 'requested', header: 'Requested', cell: ({ row }) => <Time value={row.original.createdAt} /> },
]

/** One owner: status, wallet addresses, grants, sign-in activity, audit entries, and what an administrator may change. */
export function OwnerDetailView({ id, created }: { id: string; created: boolean }) {
  const trpc = useTRPC()
  const owner = useQuery(trpc.owners.byId.queryOptions({ ownerId: id }))
  const [notice, setNotice] = useState<string | null>(
    created ? 'Owner created. Create an invitation link below and pass it on, so they can set a password.' : null,
  )
  return (
    <QueryBoundary
      query={owner}
      loading="Loading the owner…"
      what="This owner"
      failedTitle="This owner could not be shown."
      notFound="No owner has this id. They may have been deleted."
      back={{ href: '/admin/owners', label: 'Back to the owners' }}
      frame={(failure) => (
        <>
          <Breadcrumb />
          <h1>Owner</h1>
          {failure}
        </>
      )}
    >
      {(o) => <OwnerPage owner={o} notice={notice} onNotice={setNotice} />}
    </QueryBoundary>
  )
}

function OwnerPage({ owner: o, notice, onNotice: setNotice }: { owner: OwnerDetail; notice: string | null; onNotice(text: string): void }) {
  return (
    <>
      <Breadcrumb />
      <div className="page-head">
        <div>
          <h1>{o.name}</h1>
          <p>
            {o.email} · <OwnerStatusBadge status={o.status} />
          </p>
        </div>
      </div>
      <Notice text={notice} />

      <div className="grid-2">
        <section className="panel" aria-labelledby="summary-heading">
          <h2 id="summary-heading">Account</h2>
          <dl className="facts">
            <dt>Name</dt>
            <dd>{o.name}</dd>
            <dt>Email</dt>
            <dd>{o.email}</dd>
            <dt>Status</dt>
            <dd>
              <OwnerStatusBadge status={o.status} />{' '}
              {o.status === 'disabled'
                ? 'Cannot sign in; their open requests say the account is disabled.'
                : o.hasPassword
                  ? 'Can sign in and decide on requests.'
                  : 'Can sign in and decide on requests once they set a password.'}
            </dd>
            <dt>Password</dt>
            <dd>{o.hasPassword ? 'Set by the owner' : 'Not set yet: the owner cannot sign in until they use an invitation link'}</dd>
            <dt>Created</dt>
            <dd>
              <Time value={o.createdAt} />
            </dd>
            <dt>Last change</dt>
            <dd>
              <Time value={o.updatedAt} />
            </dd>
          </dl>
          <ForRole role="admin">
            <EditOwner owner={o} onDone={setNotice} />
          </ForRole>
        </section>

        <section className="panel" aria-labelledby="sign-in-heading">
          <h2 id="sign-in-heading">Sign-in activity</h2>
          <dl className="facts">
            <dt>Last sign-in</dt>
            <dd>
              <Time value={o.signIn.lastSignInAt} empty="Never" />
            </dd>
            <dt>Failed sign-ins</dt>
            <dd>
              {o.signIn.failuresThisWindow}
              <span className="cell-sub">
                In the current {formatSeconds(o.signIn.windowSeconds)} window, since <Time value={o.signIn.windowStart} />
              </span>
            </dd>
          </dl>
          <ForRole role="admin">
            <h3>Sign-in links</h3>
            <IssueLinks owner={o} />
          </ForRole>
        </section>
      </div>

      <WalletAddresses owner={o} onDone={setNotice} />

      <section className="panel" aria-labelledby="grants-heading">
        <h2 id="grants-heading">Grants on these wallet addresses ({o.grants.length})</h2>
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
      </section>

      <AuditEntries heading="Audit entries about this owner" entries={o.audit} />

      <ForRole role="admin">
        <OwnerDangerZone owner={o} onDone={setNotice} />
      </ForRole>
    </>
  )
}

function Breadcrumb() {
  return (
    <p className="breadcrumb">
      <Link href="/admin/owners">← Owners</Link>
    </p>
  )
}
