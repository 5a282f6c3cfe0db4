'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { inferRouterOutputs } from '@trpc/server'
import Link from 'next/link'
import { useRouter } from 'next/navigation'
import { useId, useState, type FormEvent } from 'react'
import type { AppRouter } from '@gnap/api'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { formatSeconds } from '../../../_lib/format'
import { ConfirmedAction, useConfirmation } from '../../../_components/confirm-dialog'
import { ForRole, useCan } from '../../../_lib/role'
import { Notice } from '../../../_components/notice'
import { OneTimeLink } from '../../../_components/one-time-link'
import { AuditEntries, Empty, ErrorMessage, GrantStatusBadge, Loading, Time } from '../../../_components/ui'
import { OwnerStatusBadge } from '../owner-status'

type OwnerDetail = inferRouterOutputs<AppRouter>['owners']['byId']

const grantsWord = (n: number) => `${n} grant${n === 1 ? '' : 's'}`

/** One owner: status, wallet addresses, grants, sign-in activity, audit entries, and what an administrator may change. */
export function OwnerDetailView({ id, created }: { id: string; created: boolean }) {
  const trpc = useTRPC()
  const owner = useQuery(trpc.owners.byId.queryOptions({ ownerId: id }))
  const [notice, setNotice] = useState<string | null>(
    created ? 'Owner created. Create an invitation link below and pass it on, so they can set a password.' : null,
  )

  if (owner.isPending) return <Loading>Loading the owner…</Loading>
  if (owner.isError) {
    return (
      <>
        <Breadcrumb />
        <h1>Owner</h1>
        <ErrorMessage title="This owner could not be shown." action={<Link href="/admin/owners">Back to the owners</Link>}>
          {errorMessage(owner.error, { notFound: 'No owner has this id. They may have been deleted.' })}
        </ErrorMessage>
      </>
    )
  }
  const o = owner.data
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
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">Grants naming the owner’s wallet addresses, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Grant</th>
                  <th scope="col">Status</th>
                  <th scope="col">Client</th>
                  <th scope="col">Resource</th>
                  <th scope="col">Requested</th>
                </tr>
              </thead>
              <tbody>
                {o.grants.map((g) => (
                  <tr key={g.id}>
                    <td>
                      <Link href={`/admin/grants/${g.id}`} className="mono">
                        {g.id}
                      </Link>
                    </td>
                    <td>
                      <GrantStatusBadge status={g.status} />
                    </td>
                    <td>
                      {g.clientName ?? <span className="muted">No name given</span>}
                      <span className="cell-sub">{g.client}</span>
                    </td>
                    <td>
                      <code>{g.identifier}</code>
                    </td>
                    <td>
                      <Time value={g.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <AuditEntries heading="Audit entries about this owner" entries={o.audit} />

      <ForRole role="admin">
        <DangerZone owner={o} onDone={setNotice} />
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

/** Name and email, behind an Edit button. */
function EditOwner({ owner, onDone }: { owner: OwnerDetail; onDone(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [open, setOpen] = useState(false)
  const edit = useMutation(
    trpc.owners.edit.mutationOptions({
      onSuccess: async () => {
        setOpen(false)
        onDone('Name and email saved.')
        await queryClient.invalidateQueries()
      },
    }),
  )
  if (!open) {
    return (
      <button type="button" className="button secondary" onClick={() => setOpen(true)}>
        Edit name and email
      </button>
    )
  }
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const f = new FormData(event.currentTarget)
    edit.mutate({ ownerId: owner.id, email: String(f.get('email') ?? '').trim(), name: String(f.get('name') ?? '').trim() })
  }
  return (
    <form onSubmit={submit} aria-label="Edit name and email">
      {edit.isError && <ErrorMessage title="Not saved.">{errorMessage(edit.error)}</ErrorMessage>}
      <div className="field">
        <label htmlFor="edit-name">Name</label>
        <input id="edit-name" name="name" defaultValue={owner.name} required maxLength={120} autoFocus />
      </div>
      <div className="field">
        <label htmlFor="edit-email">Email</label>
        <input id="edit-email" name="email" type="email" defaultValue={owner.email} required maxLength={254} spellCheck={false} />
      </div>
      <div className="filter-actions">
        <button type="submit" className="button" disabled={edit.isPending}>
          {edit.isPending ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="button quiet" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  )
}

/** Invitation and password-reset links: created on demand and shown once, to pass on. */
function IssueLinks({ owner }: { owner: OwnerDetail }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [link, setLink] = useState<{ kind: 'invitation' | 'reset'; url: string; expiresAt: Date } | null>(null)
  const issue = useMutation(
    trpc.owners.issueLink.mutationOptions({
      onSuccess: async (r, input) => {
        setLink({ kind: input.kind, ...r })
        await queryClient.invalidateQueries()
      },
    }),
  )
  if (owner.status === 'disabled') return <p className="muted">Enable the owner before creating a sign-in link.</p>
  return (
    <>
      <p className="hint">A link works once and expires. It is shown only here, now: copy it and pass it on to the owner yourself.</p>
      <div className="actions-row">
        <button
          type="button"
          className="button secondary"
          disabled={issue.isPending}
          onClick={() => issue.mutate({ ownerId: owner.id, kind: 'invitation' })}
        >
          Create invitation link
        </button>
        <button
          type="button"
          className="button secondary"
          disabled={issue.isPending}
          onClick={() => issue.mutate({ ownerId: owner.id, kind: 'reset' })}
        >
          Create password-reset link
        </button>
      </div>
      {issue.isError && <ErrorMessage title="No link was created.">{errorMessage(issue.error)}</ErrorMessage>}
      {link && (
        <OneTimeLink
          id="owner-link"
          heading={`${link.kind === 'invitation' ? 'Invitation' : 'Password reset'} for ${owner.name}`}
          intro={
            <p>
              The link works until <Time value={link.expiresAt} />.
            </p>
          }
          label={link.kind === 'invitation' ? 'Invitation link' : 'Password-reset link'}
          url={link.url}
          onDone={() => setLink(null)}
        />
      )}
    </>
  )
}

function WalletAddresses({ owner, onDone }: { owner: OwnerDetail; onDone(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [formKey, setFormKey] = useState(0)
  const canManage = useCan('admin')
  const add = useMutation(
    trpc.owners.addWalletAddress.mutationOptions({
      onSuccess: async () => {
        setFormKey((k) => k + 1)
        onDone('Wallet address added.')
        await queryClient.invalidateQueries()
      },
    }),
  )
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    add.mutate({ ownerId: owner.id, walletAddress: String(new FormData(event.currentTarget).get('walletAddress') ?? '').trim() })
  }
  return (
    <section className="panel" aria-labelledby="addresses-heading">
      <h2 id="addresses-heading">Wallet addresses ({owner.walletAddresses.length})</h2>
      <p className="hint">The owner decides on every request for these addresses and anything below them.</p>
      <ul className="address-list">
        {owner.walletAddresses.map((url) => (
          <li key={url}>
            <code>{url}</code>
            {canManage && owner.walletAddresses.length > 1 && <RemoveAddress owner={owner} url={url} onDone={onDone} />}
          </li>
        ))}
      </ul>
      {canManage && (
        <form key={formKey} onSubmit={submit} className="inline-form" aria-label="Add a wallet address">
          <div className="grow">
            <label htmlFor="add-address">Add a wallet address</label>
            <input
              id="add-address"
              name="walletAddress"
              type="url"
              required
              placeholder="https://wallet.example/name"
              spellCheck={false}
              autoComplete="off"
            />
          </div>
          <button type="submit" className="button" disabled={add.isPending}>
            {add.isPending ? 'Adding…' : 'Add'}
          </button>
        </form>
      )}
      {add.isError && <ErrorMessage title="The address was not added.">{errorMessage(add.error)}</ErrorMessage>}
    </section>
  )
}

function RemoveAddress({ owner, url, onDone }: { owner: OwnerDetail; url: string; onDone(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const confirmation = useConfirmation()
  const checkId = useId()
  const [revoke, setRevoke] = useState(true)
  const live = owner.grants.filter(
    (g) => g.walletAddress === url && (g.status === 'pending' || g.status === 'approved' || g.status === 'issued'),
  ).length
  const remove = useMutation(
    trpc.owners.removeWalletAddress.mutationOptions({
      onSuccess: async (r) => {
        confirmation.close()
        onDone(`Wallet address removed.${revoke ? ` ${grantsWord(r.revokedGrants)} revoked.` : ' Its grants were kept.'}`)
        await queryClient.invalidateQueries()
      },
      onError: (e) => confirmation.fail(errorMessage(e)),
    }),
  )
  return (
    <ConfirmedAction
      label="Remove"
      {...confirmation.props}
      title="Remove this wallet address?"
      busyLabel="Removing…"
      busy={remove.isPending}
      onConfirm={() => remove.mutate({ ownerId: owner.id, walletAddress: url, revokeGrants: revoke })}
    >
      <p>
        {owner.name} will no longer decide for <code>{url}</code>.
      </p>
      <label className="check" htmlFor={checkId}>
        <input id={checkId} type="checkbox" checked={revoke} onChange={(e) => setRevoke(e.target.checked)} />
        <span>Also revoke the grants that name it ({live} still live). Their clients lose access at once.</span>
      </label>
    </ConfirmedAction>
  )
}

function DangerZone({ owner, onDone }: { owner: OwnerDetail; onDone(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const router = useRouter()
  const disableConfirmation = useConfirmation()
  const deleteConfirmation = useConfirmation()
  const checkId = useId()
  const [revoke, setRevoke] = useState(false)
  const live = owner.grants.filter((g) => g.status === 'pending' || g.status === 'approved' || g.status === 'issued').length
  const disable = useMutation(
    trpc.owners.disable.mutationOptions({
      onSuccess: async (r) => {
        disableConfirmation.close()
        onDone(`Owner disabled: they can no longer sign in.${revoke ? ` ${grantsWord(r.revokedGrants)} revoked.` : ''}`)
        await queryClient.invalidateQueries()
      },
      onError: (e) => disableConfirmation.fail(errorMessage(e)),
    }),
  )
  const enable = useMutation(
    trpc.owners.enable.mutationOptions({
      onSuccess: async () => {
        onDone('Owner enabled: they can sign in again.')
        await queryClient.invalidateQueries()
      },
    }),
  )
  const remove = useMutation(
    trpc.owners.delete.mutationOptions({
      onSuccess: async () => {
        deleteConfirmation.close()
        await queryClient.invalidateQueries()
        router.push('/admin/owners')
      },
      onError: (e) => deleteConfirmation.fail(errorMessage(e)),
    }),
  )
  return (
    <section className="panel danger-zone" aria-labelledby="danger-heading">
      <h2 id="danger-heading">Disable or delete</h2>
      <div className="actions-row">
        {owner.status === 'active' ? (
          <ConfirmedAction
            label="Disable owner"
            {...disableConfirmation.props}
            title="Disable this owner?"
            busyLabel="Disabling…"
            busy={disable.isPending}
            onConfirm={() => disable.mutate({ ownerId: owner.id, revokeGrants: revoke })}
          >
            <p>{owner.name} will be signed out and cannot sign in until enabled again. Their open requests will say the account is disabled.</p>
            <label className="check" htmlFor={checkId}>
              <input id={checkId} type="checkbox" checked={revoke} onChange={(e) => setRevoke(e.target.checked)} />
              <span>Also revoke their {grantsWord(live)} still live. This cannot be undone.</span>
            </label>
          </ConfirmedAction>
        ) : (
          <button type="button" className="button secondary" disabled={enable.isPending} onClick={() => enable.mutate({ ownerId: owner.id })}>
            {enable.isPending ? 'Enabling…' : 'Enable owner'}
          </button>
        )}
        <ConfirmedAction
          label="Delete owner"
          {...deleteConfirmation.props}
          title="Delete this owner?"
          busyLabel="Deleting…"
          busy={remove.isPending}
          onConfirm={() => remove.mutate({ ownerId: owner.id })}
        >
          <p>
            {owner.name} ({owner.email}) and their wallet addresses will be deleted, and their {grantsWord(live)} still live revoked. This cannot be
            undone. The audit log keeps what happened.
          </p>
        </ConfirmedAction>
      </div>
      {enable.isError && <ErrorMessage title="The owner was not enabled.">{errorMessage(enable.error)}</ErrorMessage>}
    </section>
  )
}
