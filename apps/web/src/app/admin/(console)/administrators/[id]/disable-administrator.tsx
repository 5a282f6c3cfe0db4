'use client'

import { useState } from 'react'
import { useTRPC } from '../../../_lib/trpc'
import { DangerAction } from '../../../_components/danger-action'
import { keysWord, sessionsWord, type AdminActionProps } from './administrator-words'

/**
 * Disables another administrator: signed out at once, and no sign-in, link nor API key of theirs works until enabled.
 * With live keys, offers to revoke them for good too.
 */
export function DisableAdministrator({ admin, onDone }: AdminActionProps) {
  const trpc = useTRPC()
  const [revokeKeys, setRevokeKeys] = useState(false)
  return (
    <DangerAction
      words={['Disable', 'Disable this administrator?', 'Disabling\u2026']}
      mutation={trpc.admins.disable.mutationOptions()}
      input={() => ({ adminId: admin.id, revokeKeys: admin.liveApiKeys > 0 && revokeKeys })}
      onSuccess={(r) => {
        const keys = r.revokedKeys > 0 ? ` ${keysWord(r.revokedKeys)} revoked.` : ''
        onDone(`Disabled: they can no longer sign in; ${sessionsWord(r.endedSessions)} ended.${keys}`)
      }}
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
    </DangerAction>
  )
}
