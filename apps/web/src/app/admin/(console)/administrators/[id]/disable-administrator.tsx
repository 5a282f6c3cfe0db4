'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { ConfirmedAction, useConfirmation } from '../../../_components/confirm-dialog'
import { sessionsWord, type AdminActionProps } from './administrator-words'

/** Disables another administrator: signed out at once, and no sign-in nor link works until enabled. */
export function DisableAdministrator({ admin, onDone }: AdminActionProps) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const confirmation = useConfirmation()
  const disable = useMutation(
    trpc.admins.disable.mutationOptions({
      onSuccess: async (r) => {
        confirmation.close()
        onDone(`Disabled: they can no longer sign in; ${sessionsWord(r.endedSessions)} ended.`)
        await queryClient.invalidateQueries()
      },
      onError: (e) => confirmation.fail(errorMessage(e)),
    }),
  )
  return (
    <ConfirmedAction
      label="Disable"
      {...confirmation.props}
      title="Disable this administrator?"
      busyLabel="Disabling…"
      busy={disable.isPending}
      onConfirm={() => disable.mutate({ adminId: admin.id })}
    >
      <p>{admin.email} is signed out at once and cannot sign in, nor use a link they were given, until enabled again.</p>
    </ConfirmedAction>
  )
}
