'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { ConfirmedAction, useConfirmation } from '../../../_components/confirm-dialog'
import { sessionsWord, type AdminActionProps } from './administrator-words'

/** Turns off another administrator's two-step sign-in, for one who lost both phone and recovery codes. */
export function TurnOffTwoStep({ admin, onDone }: AdminActionProps) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const confirmation = useConfirmation()
  const resetTwoStep = useMutation(
    trpc.admins.resetTwoStep.mutationOptions({
      onSuccess: async (r) => {
        confirmation.close()
        onDone(`Two-step sign-in turned off: ${sessionsWord(r.endedSessions)} ended. They now sign in with their password alone.`)
        await queryClient.invalidateQueries()
      },
      onError: (e) => confirmation.fail(errorMessage(e)),
    }),
  )
  return (
    <ConfirmedAction
      label="Turn off two-step sign-in"
      {...confirmation.props}
      title="Turn off two-step sign-in?"
      busyLabel="Turning off…"
      busy={resetTwoStep.isPending}
      onConfirm={() => resetTwoStep.mutate({ adminId: admin.id })}
    >
      <p>
        For someone who lost both their phone and their recovery codes. The codes of {admin.email} stop working and their sessions end; they then sign
        in with their password alone and can set two-step sign-in up again on My account. Make sure it is really them asking.
      </p>
    </ConfirmedAction>
  )
}
