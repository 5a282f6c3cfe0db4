'use client'

import { useTRPC } from '../../../_lib/trpc'
import { DangerAction } from '../../../_components/danger-action'
import { sessionsWord, type AdminActionProps } from './administrator-words'

/** Disables another administrator: signed out at once, and no sign-in nor link works until enabled. */
export function DisableAdministrator({ admin, onDone }: AdminActionProps) {
  const trpc = useTRPC()
  return (
    <DangerAction
      label="Disable"
      title="Disable this administrator?"
      busyLabel="Disabling…"
      mutation={trpc.admins.disable.mutationOptions()}
      input={() => ({ adminId: admin.id })}
      onSuccess={(r) => onDone(`Disabled: they can no longer sign in; ${sessionsWord(r.endedSessions)} ended.`)}
    >
      <p>{admin.email} is signed out at once and cannot sign in, nor use a link they were given, until enabled again.</p>
    </DangerAction>
  )
}
