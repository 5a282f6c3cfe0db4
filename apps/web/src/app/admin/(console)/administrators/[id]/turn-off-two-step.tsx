'use client'

import { useTRPC } from '../../../_lib/trpc'
import { DangerAction } from '../../../_components/danger-action'
import { sessionsWord, type AdminActionProps } from './administrator-words'

/** Turns off another administrator's two-step sign-in, for one who lost both phone and recovery codes. */
export function TurnOffTwoStep({ admin, onDone }: AdminActionProps) {
  const trpc = useTRPC()
  return (
    <DangerAction
      words={['Turn off two-step sign-in', 'Turn off two-step sign-in?', 'Turning off\u2026']}
      mutation={trpc.admins.resetTwoStep.mutationOptions()}
      input={() => ({ adminId: admin.id })}
      onSuccess={(r) => onDone(`Two-step sign-in turned off: ${sessionsWord(r.endedSessions)} ended. They now sign in with their password alone.`)}
    >
      <p>
        For someone who lost both their phone and their recovery codes. The codes of {admin.email} stop working and their sessions end; they then sign
        in with their password alone and can set two-step sign-in up again on My account. Make sure it is really them asking.
      </p>
    </DangerAction>
  )
}
