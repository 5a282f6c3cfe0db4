'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { inferRouterOutputs } from '@trpc/server'
import Link from 'next/link'
import { useState } from 'react'
import type { AppRouter } from '@gnap/api'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { ACCESS_TYPE_LABEL, GRANT_STATUS_MEANING, formatAmount, formatSeconds, sentenceCase } from '../../../_lib/format'
import { ConfirmedAction, useConfirmation } from '../../../_components/confirm-dialog'
import { useCan } from '../../../_lib/role'
import { Notice } from '../../../_components/notice'
import { ErrorMessage, GrantStatusBadge, Loading, Time } from '../../../_components/ui'
import { TokenChain } from './token-chain'

type GrantDetail = inferRouterOutputs<AppRouter>['grants']['byId']
type AccessItemView = GrantDetail['accessItems'][number]

export function GrantDetailView({ id }: { id: string }) {
  const trpc = useTRPC()
  const grant = useQuery(trpc.grants.byId.queryOptions({ id }))
  const [notice, setNotice] = useState<string | null>(null)

  if (grant.isPending) return <Loading>Loading the grant…</Loading>
  if (grant.isError) {
    return (
      <>
        <Breadcrumb />
        <h1>Grant</h1>
        <ErrorMessage title="This grant could not be shown." action={<Link href="/admin/grants">Back to the grants</Link>}>
          {errorMessage(grant.error, { notFound: `No grant has the id ${id}. It may have been mistyped.` })}
        </ErrorMessage>
      </>
    )
  }
  const g = grant.data
  return (
    <>
      <Breadcrumb />
      <div className="page-head">
        <div>
          <h1>
            Grant <span className="mono">{g.id}</span>
          </h1>
          <p>
            From {g.client.name ?? 'a client that gave no name'} · <GrantStatusBadge status={g.status} />
          </p>
        </div>
        <RevokeGrant grant={g} onRevoked={setNotice} />
      </div>
      <Notice text={notice} />

      <div className="grid-2">
        <section className="panel" aria-labelledby="summary-heading">
          <h2 id="summary-heading">Summary</h2>
          <dl className="facts">
            <dt>Status</dt>
            <dd>
              <GrantStatusBadge status={g.status} /> {GRANT_STATUS_MEANING[g.status]}
            </dd>
            <dt>Client</dt>
            <dd>
              {g.client.name ?? <span className="muted">No name given</span>}
              <span className="cell-sub">{g.client.walletAddress}</span>
            </dd>
            <dt>Requested</dt>
            <dd>
              <Time value={g.createdAt} />
            </dd>
            <dt>Last change</dt>
            <dd>
              <Time value={g.updatedAt} />
            </dd>
            <dt>Finalized</dt>
            <dd>
              <Time value={g.finalizedAt} empty="Not yet" />
            </dd>
            <dt>Continuation id</dt>
            <dd className="mono">{g.continueId}</dd>
          </dl>
        </section>
        <Interaction interaction={g.interaction} />
      </div>

      {g.subjects.length > 0 && (
        <section className="panel" aria-labelledby="subject-heading">
          <h2 id="subject-heading">Wallet addresses to confirm ({g.subjects.length})</h2>
          <p>The client asked the owner to confirm that they control {g.subjects.length === 1 ? 'this wallet address' : 'these wallet addresses'}:</p>
          <ul className="plain">
            {g.subjects.map((s) => (
              <li key={s}>
                <code>{s}</code>
              </li>
            ))}
          </ul>
        </section>
      )}

      <section className="panel" aria-labelledby="access-heading">
        <h2 id="access-heading">Access ({g.accessItems.length})</h2>
        {g.accessItems.length === 0 && (
          <p className="muted">No access: this grant only asks the owner to confirm a wallet address, and issues no token.</p>
        )}
        {g.accessItems.map((a, i) => (
          <AccessItem key={i} access={a} index={i} />
        ))}
      </section>

      <section className="panel" aria-labelledby="tokens-heading" id="tokens">
        <h2 id="tokens-heading">Token rotations</h2>
        <TokenChain tokens={g.tokens} grant={{ continueId: g.continueId, interactive: g.interaction !== null }} />
      </section>

      <section className="panel" aria-labelledby="history-heading">
        <h2 id="history-heading">History</h2>
        <ol className="timeline">
          {g.history.map((e, i) => (
            <li key={i} className={i === g.history.length - 1 ? 'current' : undefined}>
              <Time value={e.at} />
              {e.description}
              {e.managementId && (
                <>
                  {' '}
                  (
                  <Link href={`/admin/tokens/${e.managementId}`} className="mono">
                    {e.managementId}
                  </Link>
                  )
                </>
              )}
            </li>
          ))}
        </ol>
      </section>
    </>
  )
}

function Breadcrumb() {
  return (
    <p className="breadcrumb">
      <Link href="/admin/grants">← Grants</Link>
    </p>
  )
}

function AccessItem({ access, index }: { access: AccessItemView; index: number }) {
  const { item, description } = access
  const headingId = `access-${index}`
  const limits = item.limits
  return (
    <article className="access-item" aria-labelledby={headingId}>
      <h3 id={headingId}>{description.title}</h3>
      <ul className="plain">
        {description.lines.map((line, i) => (
          <li key={i}>{line}</li>
        ))}
      </ul>
      <dl className="facts">
        <dt>Type</dt>
        <dd>
          {ACCESS_TYPE_LABEL[item.type] ?? item.type} <code>({item.type})</code>
        </dd>
        <dt>Actions</dt>
        <dd>
          {item.actions.map((a) => (
            <span key={a} className="tag">
              {a}
            </span>
          ))}
        </dd>
        <dt>Identifier</dt>
        <dd>{item.identifier ? <code>{item.identifier}</code> : <span className="muted">None: any account the resource server allows</span>}</dd>
        <dt>Limits</dt>
        <dd>
          {!limits || Object.keys(limits).length === 0 ? (
            <span className="muted">No limits</span>
          ) : (
            <ul className="plain" style={{ margin: 0 }}>
              {limits.debitAmount && (
                <li>
                  Debit at most {formatAmount(limits.debitAmount)}{' '}
                  <span className="muted">
                    (value {limits.debitAmount.value}, scale {limits.debitAmount.assetScale})
                  </span>
                </li>
              )}
              {limits.receiveAmount && (
                <li>
                  Receive at most {formatAmount(limits.receiveAmount)}{' '}
                  <span className="muted">
                    (value {limits.receiveAmount.value}, scale {limits.receiveAmount.assetScale})
                  </span>
                </li>
              )}
              {limits.receiver && (
                <li>
                  Only to <code>{limits.receiver}</code>
                </li>
              )}
              {limits.interval && (
                <li>
                  Interval <code>{limits.interval}</code>
                </li>
              )}
            </ul>
          )}
        </dd>
      </dl>
    </article>
  )
}

function Interaction({ interaction: i }: { interaction: GrantDetail['interaction'] }) {
  return (
    <section className="panel" aria-labelledby="interaction-heading">
      <h2 id="interaction-heading">Owner&apos;s consent</h2>
      {!i ? (
        <p>No interaction: the grant was issued without asking the resource owner.</p>
      ) : (
        <dl className="facts">
          <dt>Outcome</dt>
          <dd>
            <strong>{sentenceCase(i.outcome)}</strong>
          </dd>
          <dt>Decided</dt>
          <dd>
            {i.decidedAt ? (
              <>
                <Time value={i.decidedAt} />
                <span className="cell-sub">
                  {i.decidedBy ? `by ${i.decidedBy.name} (${i.decidedBy.email}) on the consent screen` : 'through the identity provider'}
                </span>
              </>
            ) : (
              <span className="muted">No decision</span>
            )}
          </dd>
          <dt>Started with</dt>
          <dd>{i.startModes.length ? i.startModes.join(', ') : <span className="muted">—</span>}</dd>
          <dt>Back at the client</dt>
          <dd>
            {i.finishedAt ? (
              <>
                <Time value={i.finishedAt} />
                {i.finishMethod && i.finishUri && (
                  <span className="cell-sub">
                    by {i.finishMethod} to {i.finishUri}
                  </span>
                )}
              </>
            ) : i.finishMethod ? (
              <span className="muted">
                Not yet ({i.finishMethod} to {i.finishUri ?? 'the client'})
              </span>
            ) : (
              <span className="muted">The client polls instead (no finish URI)</span>
            )}
          </dd>
          <dt>Reference used</dt>
          <dd>
            <Time value={i.refUsedAt} empty="Not yet" />
          </dd>
          <dt>Link valid until</dt>
          <dd>
            <Time value={i.expiresAt} />
            <span className="cell-sub">Open for {formatSeconds((i.expiresAt.getTime() - i.createdAt.getTime()) / 1000)} from the request</span>
          </dd>
        </dl>
      )}
    </section>
  )
}

/** The Revoke grant button and its confirmation, for grants a revocation still changes. */
function RevokeGrant({ grant, onRevoked }: { grant: GrantDetail; onRevoked(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const confirmation = useConfirmation()
  const canRevoke = useCan('operator')
  const liveTokens = grant.tokens.filter((t) => t.status === 'active' || t.status === 'expired').length

  const revoke = useMutation(
    trpc.grants.revoke.mutationOptions({
      onSuccess: async (r) => {
        confirmation.close()
        onRevoked(
          r.revokedTokens === 0
            ? 'Grant revoked. It had no live token.'
            : `Grant revoked. ${r.revokedTokens} live token${r.revokedTokens === 1 ? '' : 's'} stopped working.`,
        )
        await queryClient.invalidateQueries()
      },
      onError: (e) => {
        confirmation.fail(errorMessage(e, { notFound: 'This grant no longer exists.' }))
        void queryClient.invalidateQueries()
      },
    }),
  )

  // `revocable` is the domain's canRevoke: the grants DELETE /continue/{id} would revoke too. A viewer may not revoke.
  if (!canRevoke || (!grant.revocable && !confirmation.open)) return null
  return (
    <ConfirmedAction
      label="Revoke grant"
      {...confirmation.props}
      title="Revoke this grant?"
      busyLabel="Revoking…"
      busy={revoke.isPending}
      onConfirm={() => revoke.mutate({ id: grant.id })}
    >
      <p>
        {grant.client.name ?? grant.client.walletAddress} will lose access granted by <span className="mono">{grant.id}</span>
        {liveTokens > 0 ? `, and its ${liveTokens} live token${liveTokens === 1 ? '' : 's'} will stop working` : ''}. This cannot be undone.
      </p>
      <p className="muted">
        It can no longer continue the grant or rotate a token, as after its own DELETE /continue. The revocation is recorded in the audit log.
      </p>
    </ConfirmedAction>
  )
}
