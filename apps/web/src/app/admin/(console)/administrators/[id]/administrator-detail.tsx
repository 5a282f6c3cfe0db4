'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { inferRouterOutputs } from '@trpc/server'
import Link from 'next/link'
import { useState, type FormEvent } from 'react'
import type { AppRouter } from '@gnap/api'
import type { AdminRole } from '@gnap/domain/roles'
import { setSigningOut, toSignedOut, toSignIn, useTRPC } from '../../../_lib/trpc'
import { errorMessage, isUnauthorized } from '../../../_lib/errors'
import { ForRole, useSignedInAdminId } from '../../../_lib/role'
import { ConfirmedAction, useConfirmation } from '../../../_components/confirm-dialog'
import { Notice } from '../../../_components/notice'
import { OneTimeLink } from '../../../_components/one-time-link'
import { ErrorMessage, Loading, Time } from '../../../_components/ui'
import { AdminStatusBadge, ROLE_TEXT } from '../admin-words'
import { RoleSelect } from '../administrators-view'

type Admin = inferRouterOutputs<AppRouter>['admins']['list'][number]

const sessionsWord = (n: number) => `${n} session${n === 1 ? '' : 's'}`

/** One administrator: role, status, sign-in, and for an admin what may be changed. */
export function AdministratorDetail({ id }: { id: string }) {
  const trpc = useTRPC()
  const me = useSignedInAdminId()
  const admins = useQuery(trpc.admins.list.queryOptions())
  const [notice, setNotice] = useState<string | null>(null)

  if (admins.isPending) return <Loading>Loading the administrator…</Loading>
  const admin = admins.data?.find((a) => a.id === id)
  if (!admin) {
    return (
      <>
        <Breadcrumb />
        <h1>Administrator</h1>
        <ErrorMessage title="This administrator could not be shown." action={<Link href="/admin/administrators">Back to the administrators</Link>}>
          {admins.isError ? errorMessage(admins.error) : 'No administrator has this id.'}
        </ErrorMessage>
      </>
    )
  }
  const isMe = admin.id === me
  return (
    <>
      <Breadcrumb />
      <div className="page-head">
        <div>
          <h1>{admin.email}</h1>
          <p>
            {ROLE_TEXT[admin.role].label} · <AdminStatusBadge status={admin.status} />
            {isMe && ' · You'}
          </p>
        </div>
      </div>
      <Notice text={notice} />

      <div className="grid-2">
        <section className="panel" aria-labelledby="account-heading">
          <h2 id="account-heading">Account</h2>
          <dl className="facts">
            <dt>Role</dt>
            <dd>
              {ROLE_TEXT[admin.role].label}: {ROLE_TEXT[admin.role].may}
            </dd>
            <dt>Status</dt>
            <dd>
              <AdminStatusBadge status={admin.status} />{' '}
              {admin.status === 'disabled'
                ? 'Cannot sign in until enabled.'
                : admin.status === 'invited'
                  ? 'Cannot sign in until they set a password with their link.'
                  : 'Can sign in.'}
            </dd>
            <dt>Two-step sign-in</dt>
            <dd>{admin.twoStep ? 'On: they sign in with a password and a code from their app.' : 'Off: they sign in with a password alone.'}</dd>
            <dt>Last sign-in</dt>
            <dd>
              <Time value={admin.lastSignInAt} empty="Never" />
            </dd>
            <dt>Added</dt>
            <dd>
              <Time value={admin.createdAt} />
            </dd>
          </dl>
        </section>
        <ForRole role="admin">
          <ChangeRole admin={admin} isMe={isMe} onDone={setNotice} />
        </ForRole>
      </div>

      <ForRole role="admin">
        <Access admin={admin} isMe={isMe} onDone={setNotice} />
      </ForRole>
    </>
  )
}

function Breadcrumb() {
  return (
    <p className="breadcrumb">
      <Link href="/admin/administrators">← Administrators</Link>
    </p>
  )
}

function ChangeRole({ admin, isMe, onDone }: { admin: Admin; isMe: boolean; onDone(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const change = useMutation(
    trpc.admins.changeRole.mutationOptions({
      onSuccess: async (r) => {
        onDone(`Role changed to ${ROLE_TEXT[r.role].label.toLowerCase()}. It applies from their next click.`)
        await queryClient.invalidateQueries()
      },
    }),
  )
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    change.mutate({ adminId: admin.id, role: String(new FormData(event.currentTarget).get('role') ?? admin.role) as AdminRole })
  }
  return (
    <section className="panel" aria-labelledby="role-heading">
      <h2 id="role-heading">Role</h2>
      {isMe && <p className="hint">This is you: with a lower role you can no longer manage administrators.</p>}
      <form onSubmit={submit} aria-labelledby="role-heading">
        <div className="field">
          <label htmlFor="change-role">New role</label>
          <RoleSelect key={admin.role} id="change-role" defaultValue={admin.role} />
        </div>
        <div className="filter-actions">
          <button type="submit" className="button" disabled={change.isPending}>
            {change.isPending ? 'Saving…' : 'Change role'}
          </button>
        </div>
      </form>
      {change.isError && <ErrorMessage title="The role was not changed.">{errorMessage(change.error)}</ErrorMessage>}
    </section>
  )
}

/** Sign out everywhere, reset password (the link shown once), turn off two-step sign-in, disable or enable. */
function Access({ admin, isMe, onDone }: { admin: Admin; isMe: boolean; onDone(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const signOutConfirmation = useConfirmation()
  const resetConfirmation = useConfirmation()
  const disableConfirmation = useConfirmation()
  const twoStepConfirmation = useConfirmation()
  const [link, setLink] = useState<{ url: string; expiresAt: Date; invitation: boolean } | null>(null)
  // Someone who never set a password gets a new invitation link instead of a reset.
  const invited = admin.status === 'invited'
  const refresh = () => queryClient.invalidateQueries()

  const signOut = useMutation(
    trpc.admins.signOutEverywhere.mutationOptions({
      // Signing myself out everywhere ends this session too: see setSigningOut.
      onMutate: () => setSigningOut(isMe),
      onSuccess: async (r) => {
        signOutConfirmation.close()
        onDone(`Signed out everywhere: ${sessionsWord(r.endedSessions)} ended.`)
        if (isMe) toSignedOut()
        else await refresh()
      },
      onError: (e) => {
        setSigningOut(false)
        // This session had already ended: the console's own handler stood aside for the sign-out, so go now.
        if (isMe && isUnauthorized(e)) return toSignIn()
        signOutConfirmation.fail(errorMessage(e))
      },
    }),
  )
  const reset = useMutation(
    trpc.admins.resetPassword.mutationOptions({
      onSuccess: async (r) => {
        resetConfirmation.close()
        setLink({ url: r.url, expiresAt: r.expiresAt, invitation: invited })
        onDone(
          invited
            ? 'New invitation link created. Pass it on; their earlier one no longer works.'
            : `Password reset: ${sessionsWord(r.endedSessions)} ended. Pass on the link below.`,
        )
        await refresh()
      },
      onError: (e) => resetConfirmation.fail(errorMessage(e)),
    }),
  )
  const resetTwoStep = useMutation(
    trpc.admins.resetTwoStep.mutationOptions({
      onSuccess: async (r) => {
        twoStepConfirmation.close()
        onDone(`Two-step sign-in turned off: ${sessionsWord(r.endedSessions)} ended. They now sign in with their password alone.`)
        await refresh()
      },
      onError: (e) => twoStepConfirmation.fail(errorMessage(e)),
    }),
  )
  const disable = useMutation(
    trpc.admins.disable.mutationOptions({
      onSuccess: async (r) => {
        disableConfirmation.close()
        onDone(`Disabled: they can no longer sign in; ${sessionsWord(r.endedSessions)} ended.`)
        await refresh()
      },
      onError: (e) => disableConfirmation.fail(errorMessage(e)),
    }),
  )
  const enable = useMutation(
    trpc.admins.enable.mutationOptions({
      onSuccess: async () => {
        onDone('Enabled: they can sign in again with their password.')
        await refresh()
      },
    }),
  )

  return (
    <section className="panel danger-zone" aria-labelledby="access-heading">
      <h2 id="access-heading">Sessions and access</h2>
      <div className="actions-row">
        <ConfirmedAction
          label="Sign out everywhere"
          {...signOutConfirmation.props}
          title="Sign out everywhere?"
          busyLabel="Signing out…"
          busy={signOut.isPending}
          onConfirm={() => signOut.mutate({ adminId: admin.id })}
        >
          <p>
            Every session of {admin.email} ends at once, on every device{isMe ? ', this one included' : ''}. They can sign in again with their
            password.
          </p>
        </ConfirmedAction>
        {!isMe && admin.status !== 'disabled' && (
          <ConfirmedAction
            label={invited ? 'New invitation link' : 'Reset password'}
            {...resetConfirmation.props}
            title={invited ? 'Create a new invitation link?' : 'Reset this password?'}
            busyLabel={invited ? 'Creating…' : 'Resetting…'}
            busy={reset.isPending}
            onConfirm={() => reset.mutate({ adminId: admin.id })}
          >
            {invited ? (
              <p>The link {admin.email} was given stops working. You get a new one that works once, for three days, to pass on.</p>
            ) : (
              <p>
                The current password of {admin.email} stops working and their sessions end. You get a link that works once, for three days, to pass
                on: with it they choose a new password.
              </p>
            )}
          </ConfirmedAction>
        )}
        {!isMe && admin.twoStep && (
          <ConfirmedAction
            label="Turn off two-step sign-in"
            {...twoStepConfirmation.props}
            title="Turn off two-step sign-in?"
            busyLabel="Turning off…"
            busy={resetTwoStep.isPending}
            onConfirm={() => resetTwoStep.mutate({ adminId: admin.id })}
          >
            <p>
              For someone who lost both their phone and their recovery codes. The codes of {admin.email} stop working and their sessions end; they
              then sign in with their password alone and can set two-step sign-in up again on My account. Make sure it is really them asking.
            </p>
          </ConfirmedAction>
        )}
        {!isMe &&
          (admin.status === 'disabled' ? (
            <button type="button" className="button secondary" disabled={enable.isPending} onClick={() => enable.mutate({ adminId: admin.id })}>
              {enable.isPending ? 'Enabling…' : 'Enable'}
            </button>
          ) : (
            <ConfirmedAction
              label="Disable"
              {...disableConfirmation.props}
              title="Disable this administrator?"
              busyLabel="Disabling…"
              busy={disable.isPending}
              onConfirm={() => disable.mutate({ adminId: admin.id })}
            >
              <p>{admin.email} is signed out at once and cannot sign in, nor use a link they were given, until enabled again.</p>
            </ConfirmedAction>
          ))}
      </div>
      {isMe && (
        <p className="hint">
          You cannot disable yourself, reset your own password or turn off your own two-step sign-in here; another admin can (My account has your
          own).
        </p>
      )}
      {enable.isError && <ErrorMessage title="Not enabled.">{errorMessage(enable.error)}</ErrorMessage>}
      {link && (
        <OneTimeLink
          id="reset-link"
          heading={link.invitation ? `New invitation for ${admin.email}` : `Password reset for ${admin.email}`}
          intro={
            <p>
              The link works until <Time value={link.expiresAt} />.
            </p>
          }
          label={link.invitation ? 'Invitation link' : 'Password-reset link'}
          url={link.url}
          onDone={() => setLink(null)}
        />
      )}
    </section>
  )
}
