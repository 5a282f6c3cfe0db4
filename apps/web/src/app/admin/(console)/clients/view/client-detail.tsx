'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { inferRouterOutputs } from '@trpc/server'
import Link from 'next/link'
import { useRef, useState } from 'react'
import type { AppRouter } from '@gnap/api'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { ACCESS_TYPE_LABEL, GRANT_STATUS_LABEL } from '../../../_lib/format'
import { ConfirmedAction, useConfirmation } from '../../../_components/confirm-dialog'
import { Notice } from '../../../_components/notice'
import { AuditEntries, Empty, ErrorMessage, GrantStatusBadge, Loading, Time, TokenStatusBadge } from '../../../_components/ui'
import { ClientStatusBadge, clientTitle } from '../client-status'

type ClientDetail = inferRouterOutputs<AppRouter>['clients']['byWalletAddress']

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

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
        <Breadcrumb />
        <h1>Client</h1>
        <ErrorMessage title="No wallet address given." action={<Link href="/admin/clients">Back to the clients</Link>}>
          Open a client from the list of clients, or type its wallet address there.
        </ErrorMessage>
      </>
    )
  }
  if (client.isPending) return <Loading>Loading the client…</Loading>
  if (client.isError) {
    return (
      <>
        <Breadcrumb />
        <h1>Client</h1>
        <ErrorMessage title="This client could not be shown." action={<Link href="/admin/clients">Back to the clients</Link>}>
          {errorMessage(client.error)}
        </ErrorMessage>
      </>
    )
  }
  const c = client.data
  const live = c.grantCounts.pending + c.grantCounts.approved + c.grantCounts.issued
  return (
    <>
      <Breadcrumb />
      <div className="page-head">
        <div>
          <h1>{clientTitle(c, 'Client without a name')}</h1>
          <p>
            <code>{c.thumbprint ?? c.walletAddress}</code> · <ClientStatusBadge blocked={c.block !== null} />
          </p>
        </div>
      </div>
      <Notice text={notice} />

      <div className="grid-2">
        <section className="panel" aria-labelledby="summary-heading">
          <h2 id="summary-heading">Summary</h2>
          <dl className="facts">
            {c.thumbprint !== null ? (
              <>
                <dt>Identified by</dt>
                <dd>
                  Its public key alone (directed identity): it has no wallet address and gives no name.
                  <span className="cell-sub">
                    Key thumbprint (RFC 7638) <code>{c.thumbprint}</code>
                  </span>
                </dd>
              </>
            ) : (
              <>
                <dt>Wallet address</dt>
                <dd>
                  <code>{c.walletAddress}</code>
                </dd>
                <dt>Name it gives</dt>
                <dd>{c.name ?? <span className="muted">None</span>}</dd>
              </>
            )}
            <dt>Status</dt>
            <dd>
              <ClientStatusBadge blocked={c.block !== null} />{' '}
              {c.block ? 'Every request it makes is refused.' : 'It may ask for grants and use its tokens.'}
            </dd>
            <dt>Last activity</dt>
            <dd>
              <Time value={c.lastActivityAt} empty="None yet" />
              <span className="cell-sub">Its latest grant request, continuation, or token issued or renewed.</span>
            </dd>
            <dt>Grants</dt>
            <dd>
              {(['pending', 'approved', 'issued', 'revoked', 'rejected', 'expired'] as const)
                .filter((s) => c.grantCounts[s] > 0)
                .map((s) => `${c.grantCounts[s]} ${GRANT_STATUS_LABEL[s].toLowerCase()}`)
                .join(', ') || <span className="muted">None</span>}
            </dd>
          </dl>
        </section>

        <section className="panel" aria-labelledby="block-heading">
          <h2 id="block-heading">{c.block ? 'Blocked' : 'Block this client'}</h2>
          {c.thumbprint !== null && (
            <p className="hint">
              A directed identity is known only by its key. A block refuses this key; the same software can make a new key and ask again as another
              client.
            </p>
          )}
          {c.block ? (
            <>
              <dl className="facts">
                <dt>Reason</dt>
                <dd>{c.block.reason}</dd>
                <dt>Blocked by</dt>
                <dd>{c.block.blockedBy}</dd>
                <dt>Since</dt>
                <dd>
                  <Time value={c.block.blockedAt} />
                </dd>
              </dl>
              {mayBlock ? (
                <Unblock client={c} onDone={setNotice} />
              ) : (
                <p className="muted">Only an operator or an administrator can unblock a client.</p>
              )}
            </>
          ) : mayBlock ? (
            <Block client={c} live={live} onDone={setNotice} />
          ) : (
            <p className="muted">Only an operator or an administrator can block a client.</p>
          )}
        </section>
      </div>

      <section className="panel" aria-labelledby="grants-heading">
        <h2 id="grants-heading">Grants</h2>
        {c.grants.length === 0 ? (
          <Empty title="No grants.">
            <p>This client has not asked for anything yet.</p>
          </Empty>
        ) : (
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">The client’s grants, newest first{c.grants.length === 50 ? ' (the latest 50)' : ''}</caption>
              <thead>
                <tr>
                  <th scope="col">Grant</th>
                  <th scope="col">Status</th>
                  <th scope="col">Access</th>
                  <th scope="col">Requested</th>
                  <th scope="col">Last change</th>
                </tr>
              </thead>
              <tbody>
                {c.grants.map((g) => (
                  <tr key={g.id}>
                    <td>
                      <Link href={`/admin/grants/${g.id}`} className="mono">
                        {g.id}
                      </Link>
                    </td>
                    <td>
                      <GrantStatusBadge status={g.status} />
                    </td>
                    <td>{g.accessTypes.map((t) => ACCESS_TYPE_LABEL[t] ?? t).join(', ')}</td>
                    <td>
                      <Time value={g.createdAt} />
                    </td>
                    <td>
                      <Time value={g.updatedAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {c.grants.length > 0 && (
          <p>
            <Link href={`/admin/grants?client=${encodeURIComponent(c.walletAddress)}`}>All grants of this client</Link>
          </p>
        )}
      </section>

      <section className="panel" aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">Tokens</h2>
        {c.tokens.length === 0 ? (
          <p className="muted">No access token was issued to this client.</p>
        ) : (
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">
                The client’s access tokens, newest first{c.tokens.length === 50 ? ' (the latest 50)' : ''}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Token</th>
                  <th scope="col">Status</th>
                  <th scope="col">Issued</th>
                  <th scope="col">Expires</th>
                </tr>
              </thead>
              <tbody>
                {c.tokens.map((t) => (
                  <tr key={t.managementId}>
                    <td>
                      <Link href={`/admin/tokens/${t.managementId}`} className="mono">
                        {t.managementId}
                      </Link>
                      <span className="cell-sub">
                        Grant <span className="mono">{t.grantId}</span>
                      </span>
                    </td>
                    <td>
                      <TokenStatusBadge status={t.status} />
                    </td>
                    <td>
                      <Time value={t.issuedAt} />
                    </td>
                    <td>
                      <Time value={t.expiresAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <AuditEntries heading="Audit entries about this client" entries={c.audit} />
    </>
  )
}

function Breadcrumb() {
  return (
    <p className="breadcrumb">
      <Link href="/admin/clients">← Clients</Link>
    </p>
  )
}

/** The reason, then a confirmation: blocking revokes every grant at once. */
function Block({ client, live, onDone }: { client: ClientDetail; live: number; onDone(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const confirmation = useConfirmation()
  const reasonRef = useRef<HTMLTextAreaElement>(null)
  const [reason, setReason] = useState('')
  const [missing, setMissing] = useState(false)
  const block = useMutation(
    trpc.clients.block.mutationOptions({
      onSuccess: async (r) => {
        confirmation.close()
        setReason('')
        onDone(`Client blocked. ${plural(r.revokedGrants, 'grant')} and ${plural(r.revokedTokens, 'live token')} revoked.`)
        await queryClient.invalidateQueries()
      },
      onError: (e) => confirmation.fail(errorMessage(e)),
    }),
  )
  return (
    <>
      <p className="hint">
        Use this when a client misbehaves or its key has leaked. It stops at once, on every server: its grants are revoked, its tokens stop working,
        and its new requests are refused until someone unblocks it.
      </p>
      <div className="field">
        <label htmlFor="block-reason">Reason</label>
        <textarea
          id="block-reason"
          ref={reasonRef}
          value={reason}
          onChange={(e) => {
            setReason(e.target.value)
            if (e.target.value.trim()) setMissing(false)
          }}
          maxLength={500}
          rows={3}
          aria-describedby={missing ? 'block-reason-hint block-reason-error' : 'block-reason-hint'}
          aria-invalid={missing ? 'true' : undefined}
        />
        <span className="hint" id="block-reason-hint">
          Kept with the block and in the audit log, for your colleagues. The client is only told that it is blocked.
        </span>
        {missing && (
          <span className="error-text" id="block-reason-error" role="alert">
            Give a reason before blocking.
          </span>
        )}
      </div>
      <ConfirmedAction
        label="Block client"
        {...confirmation.props}
        onOpen={() => {
          if (!reason.trim()) {
            setMissing(true)
            reasonRef.current?.focus()
            return
          }
          confirmation.props.onOpen()
        }}
        title="Block this client?"
        busyLabel="Blocking…"
        busy={block.isPending}
        onConfirm={() => block.mutate({ walletAddress: client.walletAddress, reason: reason.trim() })}
      >
        <p>
          <code>{client.walletAddress}</code> will be refused from now on.
        </p>
        <p>
          {live > 0
            ? `Its ${plural(live, 'grant')} still pending, approved or in use will be revoked, with their tokens. This cannot be undone: unblocking does not bring them back.`
            : 'It holds no live grant.'}
        </p>
      </ConfirmedAction>
    </>
  )
}

function Unblock({ client, onDone }: { client: ClientDetail; onDone(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const confirmation = useConfirmation()
  const unblock = useMutation(
    trpc.clients.unblock.mutationOptions({
      onSuccess: async () => {
        confirmation.close()
        onDone('Client unblocked: it may ask for grants again.')
        await queryClient.invalidateQueries()
      },
      onError: (e) => confirmation.fail(errorMessage(e)),
    }),
  )
  return (
    <ConfirmedAction
      label="Unblock client"
      {...confirmation.props}
      title="Unblock this client?"
      busyLabel="Unblocking…"
      busy={unblock.isPending}
      onConfirm={() => unblock.mutate({ walletAddress: client.walletAddress })}
    >
      <p>
        <code>{client.walletAddress}</code> may ask for grants again. The grants revoked when it was blocked stay revoked.
      </p>
    </ConfirmedAction>
  )
}
