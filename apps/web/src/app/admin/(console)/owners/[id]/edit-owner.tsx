'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { ErrorMessage } from '../../../_components/ui'
import type { OwnerDetail } from './owner-words'

/** Name and email, behind an Edit button. */
export function EditOwner({ owner, onDone }: { owner: OwnerDetail; onDone(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [open, setOpen] = useState(false)
  const edit = useMutation(
    trpc.owners.edit.mutationOptions({
      onSuccess: async () => {
        setOpen(false)
        onDone('Name and email saved.')
        await queryClient.invalidateQueries()
      },
    }),
  )
  if (!open) {
    return (
      <button type="button" className="button secondary" onClick={() => setOpen(true)}>
        Edit name and email
      </button>
    )
  }
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const f = new FormData(event.currentTarget)
    edit.mutate({ ownerId: owner.id, email: String(f.get('email') ?? '').trim(), name: String(f.get('name') ?? '').trim() })
  }
  return (
    <form onSubmit={submit} aria-label="Edit name and email">
      {edit.isError && <ErrorMessage title="Not saved.">{errorMessage(edit.error)}</ErrorMessage>}
      <div className="field">
        <label htmlFor="edit-name">Name</label>
        <input id="edit-name" name="name" defaultValue={owner.name} required maxLength={120} autoFocus />
      </div>
      <div className="field">
        <label htmlFor="edit-email">Email</label>
        <input id="edit-email" name="email" type="email" defaultValue={owner.email} required maxLength={254} spellCheck={false} />
      </div>
      <div className="filter-actions">
        <button type="submit" className="button" disabled={edit.isPending}>
          {edit.isPending ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="button quiet" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  )
}
