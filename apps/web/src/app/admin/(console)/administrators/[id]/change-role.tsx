'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { FormEvent } from 'react'
import type { AdminRole } from '@gnap/domain/roles'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { ErrorMessage } from '../../../_components/ui'
import { ROLE_TEXT } from '../admin-words'
import { RoleField } from '../administrators-view'
import { FormActions } from '../../../_components/form-field'
import type { AdminActionProps } from './administrator-words'

/** An admin changes another's role (or their own, with a warning). */
export function ChangeRole({ admin, isMe, onDone }: AdminActionProps & { isMe: boolean }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const change = useMutation(
    trpc.admins.changeRole.mutationOptions({
      onSuccess: async (r) => {
        onDone(`Role changed to ${ROLE_TEXT[r.role].label.toLowerCase()}. It applies from their next click.`)
        await queryClient.invalidateQueries()
      },
    }),
  )
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    change.mutate({ adminId: admin.id, role: String(new FormData(event.currentTarget).get('role') ?? admin.role) as AdminRole })
  }
  return (
    <section className="panel" aria-labelledby="role-heading">
      <h2 id="role-heading">Role</h2>
      {isMe && <p className="hint">This is you: with a lower role you can no longer manage administrators.</p>}
      <form onSubmit={submit} aria-labelledby="role-heading">
        <RoleField key={admin.role} id="change-role" label="New role" defaultValue={admin.role} />
        <FormActions label="Change role" busyLabel="Saving…" busy={change.isPending} />
      </form>
      {change.isError && <ErrorMessage title="The role was not changed.">{errorMessage(change.error)}</ErrorMessage>}
    </section>
  )
}
