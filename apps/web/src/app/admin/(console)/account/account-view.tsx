'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { useTRPC } from '../../_lib/trpc'
import { errorMessage } from '../../_lib/errors'
import { ErrorMessage, Loading, Time } from '../../_components/ui'
import { Notice } from '../../_components/notice'
import { Field, PASSWORD_INPUT, SubmitButton } from '../../_components/form-field'
import { CodeField, RecoveryCodes, TwoStepSetup } from '../../_components/two-step-setup'

// My account (docs/protocol.md §2.17): two-step sign-in, the password, and the sessions of the signed-in
// administrator, whatever their role.

export function AccountView() {
  return (
    <>
      <h1>My account</h1>
      <TwoStepSection />
      <PasswordSection />
      <SessionsSection />
    </>
  )
}

function TwoStepSection() {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const status = useQuery(trpc.account.twoStep.queryOptions())
  const [notice, setNotice] = useState<string | null>(null)
  const [codes, setCodes] = useState<string[] | null>(null)
  // Turned on here, the recovery codes still showing: the status read before no longer holds.
  const [justEnabled, setJustEnabled] = useState(false)
  const refresh = () => queryClient.invalidateQueries(trpc.account.pathFilter())
  const disable = useMutation(
    trpc.account.disableTotp.mutationOptions({
      onSuccess: async () => {
        setCodes(null)
        setJustEnabled(false)
        setNotice('Two-step sign-in is off. You sign in with your password alone.')
        await refresh()
      },
    }),
  )
  const renew = useMutation(
    trpc.account.renewRecoveryCodes.mutationOptions({
      onSuccess: async (r) => {
        setNotice('New recovery codes made: the old ones no longer work.')
        setCodes(r.recoveryCodes)
        await refresh()
      },
    }),
  )

  const withCode = (run: (code: string) => void) => (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = event.currentTarget
    run(String(new FormData(form).get('code') ?? ''))
    form.reset()
  }

  return (
    <section className="panel" aria-labelledby="two-step-heading">
      <h2 id="two-step-heading">Two-step sign-in</h2>
      <Notice text={notice} />
      {status.isPending && <Loading>Loading…</Loading>}
      {status.isError && <ErrorMessage title="This could not be loaded.">{errorMessage(status.error)}</ErrorMessage>}
      {status.data && !status.data.enabled && (
        <>
          {!justEnabled && (
            <p>
              Off: your password alone signs you in.
              {status.data.required && ' This server requires it: set it up now.'} With two-step sign-in, a code from an app on your phone is asked
              for too, so a stolen password is not enough.
            </p>
          )}
          <TwoStepSetup
            key={notice ?? 'setup'}
            onEnabled={() => setJustEnabled(true)}
            onDone={() => {
              setNotice('Two-step sign-in is on.')
              void refresh()
            }}
            doneLabel="I have saved them"
          />
        </>
      )}
      {status.data?.enabled && (
        <>
          <p>
            On since <Time value={status.data.enabledAt} />. Unused recovery codes: <strong>{status.data.recoveryCodesLeft}</strong>.
          </p>
          {codes && <RecoveryCodes codes={codes} />}
          <form onSubmit={withCode((code) => renew.mutate({ code }))} aria-labelledby="renew-heading">
            <h3 id="renew-heading">New recovery codes</h3>
            {renew.isError && <ErrorMessage title="No new codes were made.">{errorMessage(renew.error)}</ErrorMessage>}
            <CodeField id="renew-code" label="Code from your app, or a recovery code" hint="The old recovery codes stop working." allowRecovery />
            <button type="submit" className="button" disabled={renew.isPending}>
              Make new recovery codes
            </button>
          </form>
          {!status.data.required && (
            <form onSubmit={withCode((code) => disable.mutate({ code }))} aria-labelledby="disable-heading">
              <h3 id="disable-heading">Turn off two-step sign-in</h3>
              {disable.isError && <ErrorMessage title="Two-step sign-in is still on.">{errorMessage(disable.error)}</ErrorMessage>}
              <CodeField id="disable-code" label="Code from your app, or a recovery code" hint="Proves you still hold the phone." allowRecovery />
              <button type="submit" className="button danger" disabled={disable.isPending}>
                Turn off
              </button>
            </form>
          )}
        </>
      )}
    </section>
  )
}

function PasswordSection() {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [notice, setNotice] = useState<string | null>(null)
  const change = useMutation(
    trpc.account.changePassword.mutationOptions({
      onSuccess: async (r) => {
        setNotice(
          r.endedSessions === 0
            ? 'Password changed.'
            : `Password changed. Your ${r.endedSessions === 1 ? 'other session was' : `${r.endedSessions} other sessions were`} ended.`,
        )
        await queryClient.invalidateQueries(trpc.account.pathFilter())
      },
    }),
  )

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const form = event.currentTarget
    const f = new FormData(form)
    setNotice(null)
    change.mutate(
      {
        currentPassword: String(f.get('currentPassword') ?? ''),
        newPassword: String(f.get('newPassword') ?? ''),
        confirmPassword: String(f.get('confirmPassword') ?? ''),
      },
      { onSuccess: () => form.reset() },
    )
  }

  return (
    <section className="panel" aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <Notice text={notice} />
      <form onSubmit={submit}>
        {change.isError && <ErrorMessage title="Your password was not changed.">{errorMessage(change.error)}</ErrorMessage>}
        <Field id="current-password" name="currentPassword" label="Current password" autoComplete="current-password" {...PASSWORD_INPUT} />
        <Field
          id="new-password"
          name="newPassword"
          label="New password"
          autoComplete="new-password"
          minLength={12}
          {...PASSWORD_INPUT}
          hint="At least 12 characters, not a commonly used password and not your email address. Your other sessions end."
        />
        <Field id="confirm-password" name="confirmPassword" label="New password again" autoComplete="new-password" {...PASSWORD_INPUT} />
        <SubmitButton label="Change password" busyLabel="Changing…" busy={change.isPending} />
      </form>
    </section>
  )
}

function SessionsSection() {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const sessions = useQuery(trpc.account.sessions.queryOptions())
  const [notice, setNotice] = useState<string | null>(null)
  const refresh = () => queryClient.invalidateQueries(trpc.account.sessions.queryFilter())
  const endOne = useMutation(
    trpc.account.endSession.mutationOptions({
      onSuccess: async () => {
        setNotice('Session ended.')
        await refresh()
      },
    }),
  )
  const endOthers = useMutation(
    trpc.account.endOtherSessions.mutationOptions({
      onSuccess: async (r) => {
        setNotice(
          r.endedSessions === 0 ? 'There were no other sessions.' : `${r.endedSessions} other session${r.endedSessions === 1 ? '' : 's'} ended.`,
        )
        await refresh()
      },
    }),
  )
  const others = sessions.data?.filter((s) => !s.current).length ?? 0

  return (
    <section className="panel" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Where you are signed in</h2>
      <p className="muted">Each browser you signed in with has a session. End the ones you do not recognise or no longer use.</p>
      <Notice text={notice} />
      {(endOne.isError || endOthers.isError) && (
        <ErrorMessage title="Nothing was ended.">{errorMessage(endOne.error ?? endOthers.error)}</ErrorMessage>
      )}
      {sessions.isPending && <Loading>Loading sessions…</Loading>}
      {sessions.isError && <ErrorMessage title="Your sessions could not be loaded.">{errorMessage(sessions.error)}</ErrorMessage>}
      {sessions.data && (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Your sessions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Signed in</th>
                <th scope="col">Ends</th>
                <th scope="col">
                  <span className="visually-hidden">Action</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sessions.data.map((s) => (
                <tr key={s.id}>
                  <td>
                    <Time value={s.createdAt} />
                  </td>
                  <td>
                    <Time value={s.expiresAt} />
                  </td>
                  <td>
                    {s.current ? (
                      <strong>This session</strong>
                    ) : (
                      <button type="button" className="button quiet" onClick={() => endOne.mutate({ sessionId: s.id })} disabled={endOne.isPending}>
                        End session
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {others > 0 && (
        <button type="button" className="button danger" onClick={() => endOthers.mutate()} disabled={endOthers.isPending}>
          End all other sessions
        </button>
      )}
    </section>
  )
}
