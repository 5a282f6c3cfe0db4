'use client'

import { useMutation } from '@tanstack/react-query'
import { useRouter } from 'next/navigation'
import type { FormEvent } from 'react'
import { useFocusOnFailure } from '../../../_lib/focus-on-failure'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { ErrorMessage } from '../../../_components/ui'

/** Email, name and one or more wallet addresses (one a line); on success, the new owner's page. */
export function CreateOwnerForm() {
  const trpc = useTRPC()
  const router = useRouter()
  const create = useMutation(
    trpc.owners.create.mutationOptions({
      onSuccess: (r) => router.push(`/admin/owners/${r.id}?created=1`),
    }),
  )
  const errorRef = useFocusOnFailure(create)

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const f = new FormData(event.currentTarget)
    const walletAddresses = String(f.get('walletAddresses') ?? '')
      .split(/\s+/)
      .map((s) => s.trim())
      .filter(Boolean)
    create.mutate({ email: String(f.get('email') ?? '').trim(), name: String(f.get('name') ?? '').trim(), walletAddresses })
  }

  return (
    <form className="panel" onSubmit={submit} aria-labelledby="create-heading">
      <h2 id="create-heading">New owner</h2>
      {create.isError && (
        <div ref={errorRef} tabIndex={-1}>
          <ErrorMessage title="The owner was not created.">{errorMessage(create.error)}</ErrorMessage>
        </div>
      )}
      <div className="field">
        <label htmlFor="owner-email">Email</label>
        <input id="owner-email" name="email" type="email" required maxLength={254} autoComplete="off" spellCheck={false} />
      </div>
      <div className="field">
        <label htmlFor="owner-name">Name</label>
        <input id="owner-name" name="name" required maxLength={120} autoComplete="off" />
        <span className="hint">Shown to the owner on the consent screen.</span>
      </div>
      <div className="field">
        <label htmlFor="owner-wallets">Wallet addresses</label>
        <textarea id="owner-wallets" name="walletAddresses" required rows={3} spellCheck={false} aria-describedby="owner-wallets-hint" />
        <span className="hint" id="owner-wallets-hint">
          One a line, such as https://wallet.example/alice. Each may belong to one owner only; the owner decides for everything at or below it.
        </span>
      </div>
      <div className="filter-actions">
        <button type="submit" className="button" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create owner'}
        </button>
      </div>
    </form>
  )
}
