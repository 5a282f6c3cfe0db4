'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { inferRouterOutputs } from '@trpc/server'
import Link from 'next/link'
import { useState } from 'react'
import type { AppRouter } from '@gnap/api'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { formatSeconds } from '../../../_lib/format'
import { ConfirmedAction, useConfirmation } from '../../../_components/confirm-dialog'
import { useCan } from '../../../_lib/role'
import { Notice } from '../../../_components/notice'
import { ErrorMessage, GrantStatusBadge, Loading, Time, TokenStatusBadge } from '../../../_components/ui'
import { ClientSubline, clientTitle } from '../../clients/client-status'

type TokenDetail = inferRouterOutputs<AppRouter>['tokens']['byManagementId']

const TOKEN_STATUS_MEANING = {
  active: 'The client can use it at the resource server and rotate it.',
  expired: 'Past its expiry: resource servers refuse it, but the client may still rotate it into a new token.',
  rotated: 'Replaced by a newer token; it no longer works and cannot be rotated again.',
  revoked: 'Revoked: it no longer works and cannot be rotated.',
} as const

/** The token page: reachable from a management id (the end of the manage URL clients and resource servers quote). */
export function TokenDetailView({ managementId }: { managementId: string }) {
  const trpc = useTRPC()
  const token = useQuery(trpc.tokens.byManagementId.queryOptions({ managementId }))
  const [notice, setNotice] = useState<string | null>(null)

  if (token.isPending) return <Loading>Loading the token…</Loading>
  if (token.isError) {
    return (
      <>
        <h1>Access token</h1>
        <ErrorMessage title="This token could not be shown." action={<Link href="/admin/grants">Go to the grants</Link>}>
          {errorMessage(token.error, { notFound: `No token has the management id ${managementId}. Tokens dead for a while are deleted.` })}
        </ErrorMessage>
      </>
    )
  }
  const { token: t, grant } = token.data
  return (
    <>
      <p className="breadcrumb">
        <Link href={`/admin/grants/${grant.id}`}>← Grant {grant.id}</Link>
      </p>
      <div className="page-head">
        <div>
          <h1>
            Access token <span className="mono">{t.managementId}</span>
          </h1>
          <p>
            <TokenStatusBadge status={t.status} /> {TOKEN_STATUS_MEANING[t.status]}
          </p>
        </div>
        <RevokeToken detail={token.data} onRevoked={setNotice} />
      </div>
      <Notice text={notice} />

      <div className="grid-2">
        <section className="panel" aria-labelledby="token-heading">
          <h2 id="token-heading">Token</h2>
          <dl className="facts">
            <dt>Management id</dt>
            <dd className="mono">{t.managementId}</dd>
            <dt>Issued</dt>
            <dd>
              <Time value={t.issuedAt} />
            </dd>
            <dt>{t.isExpired ? 'Expired' : 'Expires'}</dt>
            <dd>
              <Time value={t.expiresAt} />
              <span className="cell-sub">{formatSeconds(t.expiresInSeconds)} after it was issued</span>
            </dd>
            <dt>Replaces</dt>
            <dd>
              {t.replacesManagementId ? (
                <Link href={`/admin/tokens/${t.replacesManagementId}`} className="mono">
                  {t.replacesManagementId}
                </Link>
              ) : (
                <span className="muted">Nothing: the first token of its grant</span>
              )}
            </dd>
            <dt>Rotated</dt>
            <dd>
              {t.rotatedAt ? (
                <>
                  <Time value={t.rotatedAt} />
                  {t.replacedByManagementId && (
                    <span className="cell-sub">
                      into{' '}
                      <Link href={`/admin/tokens/${t.replacedByManagementId}`} className="mono">
                        {t.replacedByManagementId}
                      </Link>
                    </span>
                  )}
                </>
              ) : (
                <span className="muted">Not rotated</span>
              )}
            </dd>
            <dt>Revoked</dt>
            <dd>
              <Time value={t.revokedAt} empty="Not revoked" />
            </dd>
          </dl>
        </section>
        <section className="panel" aria-labelledby="grant-heading">
          <h2 id="grant-heading">Its grant</h2>
          <dl className="facts">
            <dt>Grant</dt>
            <dd>
              <Link href={`/admin/grants/${grant.id}`} className="mono">
                {grant.id}
              </Link>
            </dd>
            <dt>Status</dt>
            <dd>
              <GrantStatusBadge status={grant.status} />
            </dd>
            <dt>Client</dt>
            <dd>
              {grant.client.thumbprint !== null ? 'Directed identity' : (grant.client.name ?? <span className="muted">No name given</span>)}
              <ClientSubline client={grant.client} />
            </dd>
          </dl>
          <p style={{ marginTop: '1rem' }}>
            <Link href={`/admin/grants/${grant.id}#tokens`}>See the whole rotation chain</Link>
          </p>
        </section>
      </div>
    </>
  )
}

/** The Revoke token button and its confirmation, for a token that still works or could be rotated back to life. */
function RevokeToken({ detail, onRevoked }: { detail: TokenDetail; onRevoked(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const confirmation = useConfirmation()
  const canRevoke = useCan('operator')
  const t = detail.token
  const revocable = t.status === 'active' || t.status === 'expired'

  const revoke = useMutation(
    trpc.tokens.revoke.mutationOptions({
      onSuccess: async () => {
        confirmation.close()
        onRevoked('Token revoked. It no longer works and cannot be rotated; its grant is unchanged.')
        await queryClient.invalidateQueries()
      },
      onError: (e) => {
        confirmation.fail(errorMessage(e, { notFound: 'This token no longer exists.' }))
        void queryClient.invalidateQueries()
      },
    }),
  )

  // A viewer may not revoke.
  if (!canRevoke || (!revocable && !confirmation.open)) return null
  return (
    <ConfirmedAction
      label="Revoke token"
      {...confirmation.props}
      title="Revoke this token?"
      busyLabel="Revoking…"
      busy={revoke.isPending}
      onConfirm={() => revoke.mutate({ managementId: t.managementId })}
    >
      <p>
        The token <span className="mono">{t.managementId}</span> of {clientTitle(detail.grant.client, detail.grant.client.walletAddress)} will stop
        working and cannot be rotated{t.status === 'expired' ? ' back to life' : ''}. Its grant stays as it is. This cannot be undone.
      </p>
      <p className="muted">The revocation is recorded in the audit log.</p>
    </ConfirmedAction>
  )
}
