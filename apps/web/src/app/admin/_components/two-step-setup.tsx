'use client'

import { useMutation } from '@tanstack/react-query'
import { useEffect, useRef, useState, type FormEvent } from 'react'
import { useTRPC } from '../_lib/trpc'
import { errorMessage } from '../_lib/errors'
import { ErrorMessage } from './ui'

/** The code field of every two-step form: six digits on a phone's number pad, filled in by the browser when it can. */
export function CodeField({ id, label, hint, allowRecovery }: { id: string; label: string; hint: string; allowRecovery: boolean }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name="code"
        type="text"
        required
        autoComplete="one-time-code"
        // Recovery codes have letters: the number pad only where a TOTP code is the only answer.
        inputMode={allowRecovery ? 'text' : 'numeric'}
        pattern={allowRecovery ? undefined : '[0-9 ]{6,7}'}
        maxLength={allowRecovery ? 64 : 7}
        spellCheck={false}
        autoCapitalize="off"
        aria-describedby={`${id}-hint`}
        className="code-input"
      />
      <span className="hint" id={`${id}-hint`}>
        {hint}
      </span>
    </div>
  )
}

/** Recovery codes, shown once. */
export function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <section className="message info" aria-labelledby="recovery-heading">
      <h3 id="recovery-heading">Your recovery codes</h3>
      <p>Save these now, somewhere other than your phone: they are shown only this once. Each code signs you in once if you lose your phone.</p>
      <ul className="recovery-codes" aria-label="Recovery codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
    </section>
  )
}

/**
 * Enrolment in two-step sign-in (docs/protocol.md §2.17): a new secret as a QR code and as text, then a code from
 * the app to confirm it; then the recovery codes, once. `onEnabled` is called as soon as it is on (the codes still
 * showing), `onDone` when the person has seen them.
 */
export function TwoStepSetup({ onDone, onEnabled, doneLabel }: { onDone(): void; onEnabled?: () => void; doneLabel: string }) {
  const trpc = useTRPC()
  const start = useMutation(trpc.account.startTotp.mutationOptions())
  const confirm = useMutation(trpc.account.confirmTotp.mutationOptions())
  const [codes, setCodes] = useState<string[] | null>(null)
  const errorRef = useRef<HTMLDivElement>(null)
  const failedAt = confirm.isError ? confirm.submittedAt : 0
  useEffect(() => {
    if (failedAt) errorRef.current?.focus()
  }, [failedAt])
  // The set-up button is gone once the key is shown: the code field takes the focus, for the keyboard.
  const shown = Boolean(start.data)
  useEffect(() => {
    if (shown) document.getElementById('enrol-code')?.focus()
  }, [shown])

  if (codes) {
    return (
      <div>
        <div className="message success" role="status">
          <p>Two-step sign-in is on. From now on you sign in with your password and a code from your app.</p>
        </div>
        <RecoveryCodes codes={codes} />
        <button type="button" className="button" onClick={onDone}>
          {doneLabel}
        </button>
      </div>
    )
  }

  if (!start.data) {
    return (
      <div>
        {start.isError && <ErrorMessage title="Two-step sign-in could not be set up.">{errorMessage(start.error)}</ErrorMessage>}
        <p>You need an authenticator app on your phone, such as one from your phone’s maker or a password manager.</p>
        <button type="button" className="button" onClick={() => start.mutate()} disabled={start.isPending}>
          {start.isPending ? 'Preparing…' : 'Set up two-step sign-in'}
        </button>
      </div>
    )
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const code = String(new FormData(event.currentTarget).get('code') ?? '')
    confirm.mutate(
      { code },
      {
        onSuccess: (r) => {
          setCodes(r.recoveryCodes)
          onEnabled?.()
        },
      },
    )
  }

  return (
    <div>
      <ol className="steps">
        <li>
          <p>Scan this QR code with your authenticator app.</p>
          {/* eslint-disable-next-line @next/next/no-img-element -- a data URL drawn on the server, no image to optimise */}
          <img
            src={start.data.qrCode}
            alt="QR code for your authenticator app (the key below, as text)"
            width={200}
            height={200}
            className="qr-code"
          />
          <p>
            Or type this key into the app:{' '}
            <code className="secret" aria-label="Key for manual entry">
              {start.data.secret}
            </code>
          </p>
        </li>
        <li>
          <form onSubmit={submit} aria-labelledby="confirm-heading">
            <h3 id="confirm-heading">Type the code the app shows</h3>
            {confirm.isError && (
              <div ref={errorRef} tabIndex={-1}>
                <ErrorMessage title="Two-step sign-in is still off.">{errorMessage(confirm.error)}</ErrorMessage>
              </div>
            )}
            <CodeField id="enrol-code" label="Code from the app" hint="Six digits. A new one appears every 30 seconds." allowRecovery={false} />
            <button type="submit" className="button" disabled={confirm.isPending}>
              {confirm.isPending ? 'Checking…' : 'Turn on two-step sign-in'}
            </button>
          </form>
        </li>
      </ol>
    </div>
  )
}
