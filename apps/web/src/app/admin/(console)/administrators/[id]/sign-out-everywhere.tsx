'use client'

import { setSigningOut, toSignedOut, toSignIn, useTRPC } from '../../../_lib/trpc'
import { isUnauthorized } from '../../../_lib/errors'
import { DangerAction } from '../../../_components/danger-action'
import { sessionsWord, type AdminActionProps } from './administrator-words'

/** Ends every session of an administrator; for oneself, this one too, and then leaves the console. */
export function SignOutEverywhere({ admin, isMe, onDone }: AdminActionProps & { isMe: boolean }) {
  const trpc = useTRPC()
  return (
    <DangerAction
      words={['Sign out everywhere', 'Sign out everywhere?', 'Signing out\u2026']}
      // Signing myself out everywhere ends this session too: see setSigningOut.
      mutation={trpc.admins.signOutEverywhere.mutationOptions({ onMutate: () => setSigningOut(isMe) })}
      input={() => ({ adminId: admin.id })}
      onSuccess={(r) => {
        onDone(`Signed out everywhere: ${sessionsWord(r.endedSessions)} ended.`)
        if (isMe) toSignedOut()
      }}
      // Once signed out, nothing of this console is left to refresh.
      invalidate={isMe ? false : undefined}
      onError={(e) => {
        setSigningOut(false)
        // This session had already ended: the console's own handler stood aside for the sign-out, so go now.
        if (!isMe || !isUnauthorized(e)) return
        toSignIn()
        return 'handled'
      }}
    >
      <p>
        Every session of {admin.email} ends at once, on every device{isMe ? ', this one included' : ''}. They can sign in again with their password.
      </p>
    </DangerAction>
  )
}
