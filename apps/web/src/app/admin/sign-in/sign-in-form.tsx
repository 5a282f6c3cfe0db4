'use client'

import { useMutation } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { useTRPC } from '../_lib/trpc'
import { errorCode, errorMessage } from '../_lib/errors'

/**
 * auth.signIn over tRPC: the route handler sets the httpOnly session cookie from the procedure's answer; the page
 * then loads the console afresh, so its layout renders the new session's CSRF token.
 */
export function SignInForm() {
  const trpc = useTRPC()
  const [error, setError] = useState<string | null>(null)
  const signIn = useMutation(
    trpc.auth.signIn.mutationOptions({
      onSuccess: () => window.location.assign('/admin'),
      onError: (e) => setError(errorCode(e) === 'UNAUTHORIZED' ? 'The email or password is not right. Try again.' : errorMessage(e)),
    }),
  )

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    setError(null)
    signIn.mutate({ email: String(form.get('email') ?? ''), password: String(form.get('password') ?? '') })
  }

  return (
    <form onSubmit={submit} noValidate={false}>
      {error && (
        <div className="message error" role="alert">
          <p>{error}</p>
        </div>
      )}
      <div className="field">
        <label htmlFor="email">Email</label>
        <input id="email" name="email" type="email" autoComplete="username" required maxLength={254} />
      </div>
      <div className="field">
        <label htmlFor="password">Password</label>
        <input id="password" name="password" type="password" autoComplete="current-password" required maxLength={256} />
      </div>
      <button type="submit" className="button" disabled={signIn.isPending}>
        {signIn.isPending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  )
}
