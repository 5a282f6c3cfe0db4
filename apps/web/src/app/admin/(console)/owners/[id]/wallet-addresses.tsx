'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useId, useState, type FormEvent } from 'react'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { useCan } from '../../../_lib/role'
import { DangerAction } from '../../../_components/danger-action'
import { ErrorMessage } from '../../../_components/ui'
import { grantsWord, type OwnerDetail } from './owner-words'
import { Panel } from '../../../_components/detail-page'

export function WalletAddresses({ owner, onDone }: { owner: OwnerDetail; onDone(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [formKey, setFormKey] = useState(0)
  const canManage = useCan('admin')
  const add = useMutation(
    trpc.owners.addWalletAddress.mutationOptions({
      onSuccess: async () => {
        setFormKey((k) => k + 1)
        onDone('Wallet address added.')
        await queryClient.invalidateQueries()
      },
    }),
  )
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    add.mutate({ ownerId: owner.id, walletAddress: String(new FormData(event.currentTarget).get('walletAddress') ?? '').trim() })
  }
  return (
    <Panel id="addresses" heading={<>Wallet addresses ({owner.walletAddresses.length})</>}>
      <p className="hint">The owner decides on every request for these addresses and anything below them.</p>
      <ul className="address-list">
        {owner.walletAddresses.map((url) => (
          <li key={url}>
            <code>{url}</code>
            {canManage && owner.walletAddresses.length > 1 && <RemoveAddress owner={owner} url={url} onDone={onDone} />}
          </li>
        ))}
      </ul>
      {canManage && (
        <form key={formKey} onSubmit={submit} className="inline-form" aria-label="Add a wallet address">
          <div className="grow">
            <label htmlFor="add-address">Add a wallet address</label>
            <input
              id="add-address"
              name="walletAddress"
              type="url"
              required
              placeholder="https://wallet.example/name"
              spellCheck={false}
              autoComplete="off"
            />
          </div>
          <button type="submit" className="button" disabled={add.isPending}>
            {add.isPending ? 'Adding…' : 'Add'}
          </button>
        </form>
      )}
      {add.isError && <ErrorMessage title="The address was not added.">{errorMessage(add.error)}</ErrorMessage>}
    </Panel>
  )
}

function RemoveAddress({ owner, url, onDone }: { owner: OwnerDetail; url: string; onDone(message: string): void }) {
  const trpc = useTRPC()
  const checkId = useId()
  const [revoke, setRevoke] = useState(true)
  const live = owner.grants.filter(
    (g) => g.walletAddress === url && (g.status === 'pending' || g.status === 'approved' || g.status === 'issued'),
  ).length
  return (
    <DangerAction
      words={['Remove', 'Remove this wallet address?', 'Removing\u2026']}
      mutation={trpc.owners.removeWalletAddress.mutationOptions()}
      input={() => ({ ownerId: owner.id, walletAddress: url, revokeGrants: revoke })}
      onSuccess={(r) => onDone(`Wallet address removed.${revoke ? ` ${grantsWord(r.revokedGrants)} revoked.` : ' Its grants were kept.'}`)}
    >
      <p>
        {owner.name} will no longer decide for <code>{url}</code>.
      </p>
      <label className="check" htmlFor={checkId}>
        <input id={checkId} type="checkbox" checked={revoke} onChange={(e) => setRevoke(e.target.checked)} />
        <span>Also revoke the grants that name it ({live} still live). Their clients lose access at once.</span>
      </label>
    </DangerAction>
  )
}
