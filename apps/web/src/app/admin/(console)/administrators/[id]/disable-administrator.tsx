'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { ConfirmedAction, useConfirmation } from '../../../_components/confirm-dialog'
import { keysWord, sessionsWord, type AdminActionProps } from './administrator-words'

/**
 * Disables another administrator: signed out at once, and no sign-in, link nor API key of theirs works until enabled.
 * With live keys, offers to revoke them for good too.
 */
export function DisableAdministrator({ admin, onDone }: AdminActionProps) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const confirmation = useConfirmation()
  const [revokeKeys, setRevokeKeys] = useState(false)
  const disable = useMutation(
    trpc.admins.disable.mutationOptions({
      onSuccess: async (r) => {
        confirmation.close()
        const keys = r.revokedKeys > 0 ? ` ${keysWord(r.revokedKeys)} revoked.` : ''
        onDone(`Disabled: they can no longer sign in; ${sessionsWord(r.endedSessions)} ended.${keys}`)
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
      onConfirm={() => disable.mutate({ adminId: admin.id, revokeKeys: admin.liveApiKeys > 0 && revokeKeys })}
    >
      <p>{admin.email} is signed out at once and cannot sign in, nor use a link they were given, until enabled again.</p>
      {admin.liveApiKeys > 0 && (
        <label className="check">
          <input type="checkbox" checked={revokeKeys} onChange={(e) => setRevokeKeys(e.target.checked)} />
          <span>
            Also revoke their {keysWord(admin.liveApiKeys)} still active. Unrevoked, they are refused while {admin.email} is disabled and work again
            once enabled. Revoking cannot be undone.
          </span>
        </label>
      )}
    </ConfirmedAction>
  )
}
