'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { ErrorMessage } from '../../../_components/ui'
import { FormActions, SchemaField, useSchemaForm } from '../../../_components/form-field'
import { OWNER_FIELDS } from '../new/create-owner-form'
import type { OwnerDetail } from './owner-words'

/** Name and email, behind an Edit button. */
export function EditOwner({ owner, onDone }: { owner: OwnerDetail; onDone(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [open, setOpen] = useState(false)
  const fields = useSchemaForm(OWNER_FIELDS)
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
    const values = fields.read(event.currentTarget)
    if (values) edit.mutate({ ownerId: owner.id, ...values })
  }
  return (
    <form onSubmit={submit} aria-label="Edit name and email">
      {edit.isError && <ErrorMessage title="Not saved.">{errorMessage(edit.error)}</ErrorMessage>}
      <SchemaField form={fields} name="name" id="edit-name" label="Name" defaultValue={owner.name} required maxLength={120} autoFocus />
      <SchemaField
        form={fields}
        name="email"
        id="edit-email"
        label="Email"
        type="email"
        defaultValue={owner.email}
        required
        maxLength={254}
        spellCheck={false}
      />
      <FormActions label="Save" busyLabel="Saving…" busy={edit.isPending}>
        <button type="button" className="button quiet" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </FormActions>
    </form>
  )
}
