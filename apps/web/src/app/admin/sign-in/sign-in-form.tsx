'use client'

import { useMutation } from '@tanstack/react-query'
import { useEffect, useRef, useState, type FormEvent } from 'react'
import { useTRPC } from '../_lib/trpc'
import { errorCode, errorMessage } from '../_lib/errors'
import { CodeField } from '../_components/two-step-setup'
import { Field, PASSWORD_INPUT, SubmitButton } from '../_components/form-field'

/** Where a signed-in administrator goes: the console, or the enrolment when the server requires two-step sign-in. */
const next = (r: { mustEnrol: boolean }) => window.location.assign(r.mustEnrol ? '/admin/enrol' : '/admin')

/**
 * auth.signIn over tRPC: the route handler sets the httpOnly session cookie from the procedure's answer; the page
 * then loads the console afresh, so its layout renders the new session's CSRF token. With two-step sign-in on, the
 * password's answer is a challenge, and the code step (auth.verifyCode) sets the cookie (docs/protocol.md §2.17).
 */
export function SignInForm() {
  const trpc = useTRPC()
  const [error, setError] = useState<string | null>(null)
  const [challenge, setChallenge] = useState<string | null>(null)
  const [recovery, setRecovery] = useState(false)
  const codeStep = useRef<HTMLFormElement>(null)
  const signIn = useMutation(
    trpc.auth.signIn.mutationOptions({
      onSuccess: (r) => {
        if (r.step === 'code') setChallenge(r.challenge)
        else next(r)
      },
      onError: (e) => setError(errorCode(e) === 'UNAUTHORIZED' ? 'The email or password is not right. Try again.' : errorMessage(e)),
    }),
  )
  const verify = useMutation(
    trpc.auth.verifyCode.mutationOptions({
      onSuccess: next,
      onError: (e) => {
        const code = errorCode(e)
        if (code === 'PRECONDITION_FAILED') {
          setChallenge(null)
          setError('This sign-in took too long or was already used. Enter your email and password again.')
        } else setError(code === 'UNAUTHORIZED' ? 'That code is not right. Type the code your app shows now.' : errorMessage(e))
      },
    }),
  )

  // The code step takes the focus, so the keyboard (and a phone's keypad) is ready for the code.
  useEffect(() => {
    if (challenge) codeStep.current?.querySelector('input')?.focus()
  }, [challenge, recovery])

  function submitPassword(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    setError(null)
    signIn.mutate({ email: String(form.get('email') ?? ''), password: String(form.get('password') ?? '') })
  }

  function submitCode(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    if (!challenge) return
    setError(null)
    verify.mutate({ challenge, code: String(new FormData(event.currentTarget).get('code') ?? '') })
  }

  const alert = error && (
    <div className="message error" role="alert">
      <p>{error}</p>
    </div>
  )

  if (challenge) {
    return (
      <form onSubmit={submitCode} ref={codeStep} aria-labelledby="code-heading">
        <h2 id="code-heading">Two-step sign-in</h2>
        {alert}
        {recovery ? (
          <CodeField
            key="recovery"
            id="code"
            label="Recovery code"
            hint="One of the codes you saved when you set up two-step sign-in. Each works once."
            allowRecovery
          />
        ) : (
          <CodeField
            key="totp"
            id="code"
            label="Code from your authenticator app"
            hint="Six digits. A new one appears every 30 seconds."
            allowRecovery={false}
          />
        )}
        <div className="filter-actions">
          <button type="submit" className="button" disabled={verify.isPending}>
            {verify.isPending ? 'Checking…' : 'Sign in'}
          </button>
          <button type="button" className="button quiet" onClick={() => setRecovery(!recovery)}>
            {recovery ? 'Use a code from the app instead' : 'Lost your phone? Use a recovery code'}
          </button>
        </div>
      </form>
    )
  }

  return (
    <form onSubmit={submitPassword} noValidate={false}>
      {alert}
      <Field id="email" name="email" label="Email" type="email" autoComplete="username" required maxLength={254} />
      <Field id="password" name="password" label="Password" autoComplete="current-password" {...PASSWORD_INPUT} />
      <SubmitButton label="Sign in" busyLabel="Signing in…" busy={signIn.isPending} />
    </form>
  )
}
