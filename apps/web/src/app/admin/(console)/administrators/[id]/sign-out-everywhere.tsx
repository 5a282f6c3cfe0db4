'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { setSigningOut, toSignedOut, toSignIn, useTRPC } from '../../../_lib/trpc'
import { errorMessage, isUnauthorized } from '../../../_lib/errors'
import { ConfirmedAction, useConfirmation } from '../../../_components/confirm-dialog'
import { sessionsWord, type AdminActionProps } from './administrator-words'

/** Ends every session of an administrator; for oneself, this one too, and then leaves the console. */
export function SignOutEverywhere({ admin, isMe, onDone }: AdminActionProps & { isMe: boolean }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const confirmation = useConfirmation()
  const signOut = useMutation(
    trpc.admins.signOutEverywhere.mutationOptions({
      // Signing myself out everywhere ends this session too: see setSigningOut.
      onMutate: () => setSigningOut(isMe),
      onSuccess: async (r) => {
        confirmation.close()
        onDone(`Signed out everywhere: ${sessionsWord(r.endedSessions)} ended.`)
        if (isMe) toSignedOut()
        else await queryClient.invalidateQueries()
      },
      onError: (e) => {
        setSigningOut(false)
        // This session had already ended: the console's own handler stood aside for the sign-out, so go now.
        if (isMe && isUnauthorized(e)) return toSignIn()
        confirmation.fail(errorMessage(e))
      },
    }),
  )
  return (
    <ConfirmedAction
      label="Sign out everywhere"
      {...confirmation.props}
      title="Sign out everywhere?"
      busyLabel="Signing out…"
      busy={signOut.isPending}
      onConfirm={() => signOut.mutate({ adminId: admin.id })}
    >
      <p>
        Every session of {admin.email} ends at once, on every device{isMe ? ', this one included' : ''}. They can sign in again with their password.
      </p>
    </ConfirmedAction>
  )
}
