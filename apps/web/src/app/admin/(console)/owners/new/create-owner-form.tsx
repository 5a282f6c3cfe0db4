'use client'

import { useMutation } from '@tanstack/react-query'
import { useRouter } from 'next/navigation'
import type { FormEvent } from 'react'
import { OwnerEmailSchema, OwnerNameSchema } from '@gnap/domain/console-inputs'
import { useTRPC } from '../../../_lib/trpc'
import { EMAIL_INPUT, MutationForm, SchemaField, useSchemaForm } from '../../../_components/form-field'

/** The owner's fields the browser checks as the server does (the wallet addresses are checked by the server). */
export const OWNER_FIELDS = { email: OwnerEmailSchema, name: OwnerNameSchema }

const CREATE_OWNER_TEXTS = { heading: 'New owner', failed: 'The owner was not created.', submit: 'Create owner', busy: 'Creating…' }

/**
 * Email, name and one or more wallet addresses (one a line), and the tenant on a server that has tenants
 * (`withTenant`: a server without them shows the form as before); on success, the new owner's page.
 */
export function CreateOwnerForm({ withTenant }: { withTenant: boolean }) {
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
    const values = fields.read(event.currentTarget)
    if (!values) return
    const walletAddresses = String(new FormData(event.currentTarget).get('walletAddresses') ?? '')
      .split(/\s+/)
      .map((s) => s.trim())
      .filter(Boolean)
    const tenantId = String(new FormData(event.currentTarget).get('tenantId') ?? '').trim()
    create.mutate({ ...values, walletAddresses, ...(tenantId ? { tenantId } : {}) })
  }

  return (
    <MutationForm headingId="create-heading" texts={CREATE_OWNER_TEXTS} mutation={create} onSubmit={submit}>
      <SchemaField form={fields} name="email" id="owner-email" label="Email" {...EMAIL_INPUT} />
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
      {withTenant && (
        <div className="field">
          <label htmlFor="owner-tenant">Tenant (optional)</label>
          <input id="owner-tenant" name="tenantId" maxLength={64} autoComplete="off" spellCheck={false} aria-describedby="owner-tenant-hint" />
          <span className="hint" id="owner-tenant-hint">
            The id of the tenant the owner belongs to: they sign in on that tenant&apos;s consent screen only. Empty: the operator tenant.
          </span>
        </div>
      )}
    </MutationForm>
  )
}
