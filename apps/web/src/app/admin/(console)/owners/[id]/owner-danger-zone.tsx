'use client'

import { useId, useState } from 'react'
import { useTRPC } from '../../../_lib/trpc'
import { DangerAction, DangerZone } from '../../../_components/danger-action'
import { grantsWord, type OwnerDetail } from './owner-words'

export function OwnerDangerZone({ owner, onDone }: { owner: OwnerDetail; onDone(message: string): void }) {
  const trpc = useTRPC()
  const checkId = useId()
  const [revoke, setRevoke] = useState(false)
  const live = owner.grants.filter((g) => g.status === 'pending' || g.status === 'approved' || g.status === 'issued').length
  const ownerId = () => ({ ownerId: owner.id })
  return (
    <DangerZone
      enabled={owner.status === 'active'}
      enable={{
        label: 'Enable owner',
        busyLabel: 'Enabling…',
        failedTitle: 'The owner was not enabled.',
        mutation: trpc.owners.enable.mutationOptions(),
        input: ownerId,
        onSuccess: () => onDone('Owner enabled: they can sign in again.'),
      }}
      disable={
        <DangerAction
          words={['Disable owner', 'Disable this owner?', 'Disabling\u2026']}
          mutation={trpc.owners.disable.mutationOptions()}
          input={() => ({ ownerId: owner.id, revokeGrants: revoke })}
          onSuccess={(r) => onDone(`Owner disabled: they can no longer sign in.${revoke ? ` ${grantsWord(r.revokedGrants)} revoked.` : ''}`)}
        >
          <p>{owner.name} will be signed out and cannot sign in until enabled again. Their open requests will say the account is disabled.</p>
          <label className="check" htmlFor={checkId}>
            <input id={checkId} type="checkbox" checked={revoke} onChange={(e) => setRevoke(e.target.checked)} />
            <span>Also revoke their {grantsWord(live)} still live. This cannot be undone.</span>
          </label>
        </DangerAction>
      }
    >
      <DangerAction
        words={['Delete owner', 'Delete this owner?', 'Deleting\u2026']}
        mutation={trpc.owners.delete.mutationOptions()}
        input={ownerId}
        goTo="/admin/owners"
      >
        <p>
          {owner.name} ({owner.email}) and their wallet addresses will be deleted, and their {grantsWord(live)} still live revoked. This cannot be
          undone. The audit log keeps what happened.
        </p>
      </DangerAction>
    </DangerZone>
  )
}
