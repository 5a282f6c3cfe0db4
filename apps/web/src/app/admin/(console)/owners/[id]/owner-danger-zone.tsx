'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useRouter } from 'next/navigation'
import { useId, useState } from 'react'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { ConfirmedAction, useConfirmation } from '../../../_components/confirm-dialog'
import { ErrorMessage } from '../../../_components/ui'
import { grantsWord, type OwnerDetail } from './owner-words'

export function OwnerDangerZone({ owner, onDone }: { owner: OwnerDetail; onDone(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const router = useRouter()
  const disableConfirmation = useConfirmation()
  const deleteConfirmation = useConfirmation()
  const checkId = useId()
  const [revoke, setRevoke] = useState(false)
  const live = owner.grants.filter((g) => g.status === 'pending' || g.status === 'approved' || g.status === 'issued').length
  const disable = useMutation(
    trpc.owners.disable.mutationOptions({
      onSuccess: async (r) => {
        disableConfirmation.close()
        onDone(`Owner disabled: they can no longer sign in.${revoke ? ` ${grantsWord(r.revokedGrants)} revoked.` : ''}`)
        await queryClient.invalidateQueries()
      },
      onError: (e) => disableConfirmation.fail(errorMessage(e)),
    }),
  )
  const enable = useMutation(
    trpc.owners.enable.mutationOptions({
      onSuccess: async () => {
        onDone('Owner enabled: they can sign in again.')
        await queryClient.invalidateQueries()
      },
    }),
  )
  const remove = useMutation(
    trpc.owners.delete.mutationOptions({
      onSuccess: async () => {
        deleteConfirmation.close()
        await queryClient.invalidateQueries()
        router.push('/admin/owners')
      },
      onError: (e) => deleteConfirmation.fail(errorMessage(e)),
    }),
  )
  return (
    <section className="panel danger-zone" aria-labelledby="danger-heading">
      <h2 id="danger-heading">Disable or delete</h2>
      <div className="actions-row">
        {owner.status === 'active' ? (
          <ConfirmedAction
            label="Disable owner"
            {...disableConfirmation.props}
            title="Disable this owner?"
            busyLabel="Disabling…"
            busy={disable.isPending}
            onConfirm={() => disable.mutate({ ownerId: owner.id, revokeGrants: revoke })}
          >
            <p>{owner.name} will be signed out and cannot sign in until enabled again. Their open requests will say the account is disabled.</p>
            <label className="check" htmlFor={checkId}>
              <input id={checkId} type="checkbox" checked={revoke} onChange={(e) => setRevoke(e.target.checked)} />
              <span>Also revoke their {grantsWord(live)} still live. This cannot be undone.</span>
            </label>
          </ConfirmedAction>
        ) : (
          <button type="button" className="button secondary" disabled={enable.isPending} onClick={() => enable.mutate({ ownerId: owner.id })}>
            {enable.isPending ? 'Enabling…' : 'Enable owner'}
          </button>
        )}
        <ConfirmedAction
          label="Delete owner"
          {...deleteConfirmation.props}
          title="Delete this owner?"
          busyLabel="Deleting…"
          busy={remove.isPending}
          onConfirm={() => remove.mutate({ ownerId: owner.id })}
        >
          <p>
            {owner.name} ({owner.email}) and their wallet addresses will be deleted, and their {grantsWord(live)} still live revoked. This cannot be
            undone. The audit log keeps what happened.
          </p>
        </ConfirmedAction>
      </div>
      {enable.isError && <ErrorMessage title="The owner was not enabled.">{errorMessage(enable.error)}</ErrorMessage>}
    </section>
  )
}
