'use client'

import { useQuery } from '@tanstack/react-query'
import type { inferRouterOutputs } from '@trpc/server'
import Link from 'next/link'
import { useState } from 'react'
import type { AppRouter } from '@gnap/api'
import { useTRPC } from '../../../_lib/trpc'
import { useCan } from '../../../_lib/role'
import { DangerAction } from '../../../_components/danger-action'
import { DetailHeader, DetailView, Facts, Panel } from '../../../_components/detail-page'
import { GrantStatusBadge, Time, TokenStatusBadge } from '../../../_components/ui'
import { ClientSubline, clientTitle } from '../../clients/client-status'
import { expiresFact, Rotated, TokenLink } from '../token-parts'

type TokenDetail = inferRouterOutputs<AppRouter>['tokens']['byManagementId']

const TOKEN_STATUS_MEANING = {
  active: 'The client can use it at the resource server and rotate it.',
  expired: 'Past its expiry: resource servers refuse it, but the client may still rotate it into a new token.',
  rotated: 'Replaced by a newer token; it no longer works and cannot be rotated again.',
  revoked: 'Revoked: it no longer works and cannot be rotated.',
} as const

const GRANTS = { href: '/admin/grants', name: 'Grants' }

/** The token page: reachable from a management id (the end of the manage URL clients and resource servers quote). */
export function TokenDetailView({ managementId }: { managementId: string }) {
  const trpc = useTRPC()
  const token = useQuery(trpc.tokens.byManagementId.queryOptions({ managementId }))
  const [notice, setNotice] = useState<string | null>(null)
  return (
    <DetailView
      query={token}
      what="token"
      heading="Access token"
      parent={GRANTS}
      notFound={`No token has the management id ${managementId}. Tokens dead for a while are deleted.`}
    >
      {(detail) => <TokenPage detail={detail} notice={notice} onNotice={setNotice} />}
    </DetailView>
  )
}

function TokenPage({ detail, notice, onNotice }: { detail: TokenDetail; notice: string | null; onNotice(text: string): void }) {
  const { token: t, grant } = detail
  return (
    <>
      <DetailHeader
        parent={{ href: `/admin/grants/${grant.id}`, name: `Grant ${grant.id}` }}
        title="Access token"
        id={t.managementId}
        line={[
          <>
            <TokenStatusBadge status={t.status} /> {TOKEN_STATUS_MEANING[t.status]}
          </>,
        ]}
        action={<RevokeToken detail={detail} onRevoked={onNotice} />}
        notice={notice}
      />

      <div className="grid-2">
        <Panel id="token" heading="Token">
          <Facts
            facts={[
              ['Management id', t.managementId, 'mono'],
              ['Issued', <Time value={t.issuedAt} />],
              expiresFact(t),
              [
                'Replaces',
                t.replacesManagementId ? (
                  <TokenLink id={t.replacesManagementId} />
                ) : (
                  <span className="muted">Nothing: the first token of its grant</span>
                ),
              ],
              ['Rotated', <Rotated token={t} />],
              ['Revoked', <Time value={t.revokedAt} empty="Not revoked" />],
            ]}
          />
        </Panel>
        <Panel id="grant" heading="Its grant">
          <Facts
            facts={[
              [
                'Grant',
                <Link href={`/admin/grants/${grant.id}`} className="mono">
                  {grant.id}
                </Link>,
              ],
              ['Status', <GrantStatusBadge status={grant.status} />],
              [
                'Client',
                <>
                  {grant.client.thumbprint !== null ? 'Directed identity' : (grant.client.name ?? <span className="muted">No name given</span>)}
                  <ClientSubline client={grant.client} />
                </>,
              ],
            ]}
          />
          <p style={{ marginTop: '1rem' }}>
            <Link href={`/admin/grants/${grant.id}#tokens`}>See the whole rotation chain</Link>
          </p>
        </Panel>
      </div>
    </>
  )
}

/** The Revoke token button and its confirmation, for a token that still works or could be rotated back to life. */
function RevokeToken({ detail, onRevoked }: { detail: TokenDetail; onRevoked(message: string): void }) {
  const trpc = useTRPC()
  const canRevoke = useCan('operator')
  const t = detail.token
  // A viewer may not revoke.
  if (!canRevoke) return null
  return (
    <DangerAction
      words={['Revoke token', 'Revoke this token?', 'Revoking\u2026']}
      available={t.status === 'active' || t.status === 'expired'}
      mutation={trpc.tokens.revoke.mutationOptions()}
      input={() => ({ managementId: t.managementId })}
      onSuccess={() => onRevoked('Token revoked. It no longer works and cannot be rotated; its grant is unchanged.')}
      notFound="This token no longer exists."
      refreshOnFailure
    >
      <p>
        The token <span className="mono">{t.managementId}</span> of {clientTitle(detail.grant.client, detail.grant.client.walletAddress)} will stop
        working and cannot be rotated{t.status === 'expired' ? ' back to life' : ''}. Its grant stays as it is. This cannot be undone.
      </p>
      <p className="muted">The revocation is recorded in the audit log.</p>
    </DangerAction>
  )
}
