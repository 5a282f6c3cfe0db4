'use client'

import { useMutation } from '@tanstack/react-query'
import { useRouter } from 'next/navigation'
import type { FormEvent } from 'react'
import { OwnerEmailSchema, OwnerNameSchema } from '@gnap/domain/console-inputs'
import { useTRPC } from '../../../_lib/trpc'
import { MutationForm, SchemaField, useSchemaForm } from '../../../_components/form-field'

/** The owner's fields the browser checks as the server does (the wallet addresses are checked by the server). */
export const OWNER_FIELDS = { email: OwnerEmailSchema, name: OwnerNameSchema }

/** Email, name and one or more wallet addresses (one a line); on success, the new owner's page. */
export function CreateOwnerForm() {
  const trpc = useTRPC()
  const router = useRouter()
  const create = useMutation(
    trpc.owners.create.mutationOptions({
      onSuccess: (r) => router.push(`/admin/owners/${r.id}?created=1`),
    }),
  )
  const fields = useSchemaForm(OWNER_FIELDS)

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const f = new FormData(event.currentTarget)
    const email = String(f.get('email') ?? '').trim()
    const name = String(f.get('name') ?? '').trim()
    if (!fields.validate(event.currentTarget, { email, name })) return
    const walletAddresses = String(f.get('walletAddresses') ?? '')
      .split(/\s+/)
      .map((s) => s.trim())
      .filter(Boolean)
    create.mutate({ email, name, walletAddresses })
  }

  return (
    <MutationForm
      headingId="create-heading"
      heading="New owner"
      mutation={create}
      failedTitle="The owner was not created."
      submit={{ label: 'Create owner', busyLabel: 'Creating…' }}
      onSubmit={submit}
    >
      <SchemaField
        form={fields}
        name="email"
        id="owner-email"
        label="Email"
        type="email"
        required
        maxLength={254}
        autoComplete="off"
        spellCheck={false}
      />
      <SchemaField
        form={fields}
        name="name"
        id="owner-name"
        label="Name"
        required
        maxLength={120}
        autoComplete="off"
        hint="Shown to the owner on the consent screen."
      />
      <div className="field">
        <label htmlFor="owner-wallets">Wallet addresses</label>
        <textarea id="owner-wallets" name="walletAddresses" required rows={3} spellCheck={false} aria-describedby="owner-wallets-hint" />
        <span className="hint" id="owner-wallets-hint">
          One a line, such as https://wallet.example/alice. Each may belong to one owner only; the owner decides for everything at or below it.
        </span>
      </div>
    </MutationForm>
  )
}
