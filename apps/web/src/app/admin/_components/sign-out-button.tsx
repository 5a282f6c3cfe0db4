'use client'

import { useMutation } from '@tanstack/react-query'
import { useState } from 'react'
import { setSigningOut, toSignedOut, useTRPC } from '../_lib/trpc'
import { errorMessage, isUnauthorized } from '../_lib/errors'

/**
 * Ends the session (auth.signOut clears the cookie) and goes to the sign-in page. A session that had already ended
 * is signed out too; the page's queries answered UNAUTHORIZED meanwhile are not taken for an ended session.
 */
export function SignOutButton() {
  const trpc = useTRPC()
  const [error, setError] = useState<string | null>(null)
  const signOut = useMutation(
    trpc.auth.signOut.mutationOptions({
      onMutate: () => setSigningOut(true),
      onSuccess: toSignedOut,
      onError: (e) => {
        if (isUnauthorized(e)) return toSignedOut()
        setSigningOut(false)
        setError(errorMessage(e))
      },
    }),
  )
  return (
    <>
      <button type="button" className="button quiet" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
        {signOut.isPending ? 'Signing out…' : 'Sign out'}
      </button>
      {error && (
        <span role="alert" className="error-text">
          {error}
        </span>
      )}
    </>
  )
}
