'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { ConfirmedAction, useConfirmation } from '../../../_components/confirm-dialog'
import { sessionsWord, type AdminActionProps } from './administrator-words'

/** The one-time link a reset (or a new invitation) created, shown once by the access panel. */
export interface IssuedLink {
  url: string
  expiresAt: Date
  invitation: boolean
}

/**
 * Resets a password, handing back a link that works once. Someone who never set a password gets a new invitation link
 * instead of a reset.
 */
export function ResetPassword({ admin, onDone, onLink }: AdminActionProps & { onLink(link: IssuedLink): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const confirmation = useConfirmation()
  const invited = admin.status === 'invited'
  const reset = useMutation(
    trpc.admins.resetPassword.mutationOptions({
      onSuccess: async (r) => {
        confirmation.close()
        onLink({ url: r.url, expiresAt: r.expiresAt, invitation: invited })
        onDone(
          invited
            ? 'New invitation link created. Pass it on; their earlier one no longer works.'
            : `Password reset: ${sessionsWord(r.endedSessions)} ended. Pass on the link below.`,
        )
        await queryClient.invalidateQueries()
      },
      onError: (e) => confirmation.fail(errorMessage(e)),
    }),
  )
  return (
    <ConfirmedAction
      label={invited ? 'New invitation link' : 'Reset password'}
      {...confirmation.props}
      title={invited ? 'Create a new invitation link?' : 'Reset this password?'}
      busyLabel={invited ? 'Creating…' : 'Resetting…'}
      busy={reset.isPending}
      onConfirm={() => reset.mutate({ adminId: admin.id })}
    >
      {invited ? (
        <p>The link {admin.email} was given stops working. You get a new one that works once, for three days, to pass on.</p>
      ) : (
        <p>
          The current password of {admin.email} stops working and their sessions end. You get a link that works once, for three days, to pass on: with
          it they choose a new password.
        </p>
      )}
    </ConfirmedAction>
  )
}
