'use client'

import type { inferRouterOutputs } from '@trpc/server'
import { useRef } from 'react'
import type { AppRouter } from '@gnap/api'
import { BlockReasonSchema } from '@gnap/domain/console-inputs'
import { useTRPC } from '../../../_lib/trpc'
import { DangerAction } from '../../../_components/danger-action'
import { SchemaField, useSchemaForm } from '../../../_components/form-field'

export type ClientDetail = inferRouterOutputs<AppRouter>['clients']['byWalletAddress']

/** The field the browser checks with the server's own schema. */
const BLOCK_FIELDS = { reason: BlockReasonSchema }

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/** The reason, checked as the server checks it, then a confirmation: blocking revokes every grant at once. */
export function Block({ client, live, onDone }: { client: ClientDetail; live: number; onDone(message: string): void }) {
  const trpc = useTRPC()
  const fields = useSchemaForm(BLOCK_FIELDS)
  const formRef = useRef<HTMLFormElement>(null)
  const reason = () => String(new FormData(formRef.current!).get('reason') ?? '')
  return (
    <form ref={formRef} onSubmit={(e) => e.preventDefault()} aria-label="Block this client">
      <p className="hint">
        Use this when a client misbehaves or its key has leaked. It stops at once, on every server: its grants are revoked, its tokens stop working,
        and its new requests are refused until someone unblocks it.
      </p>
      <SchemaField
        form={fields}
        name="reason"
        id="block-reason"
        label="Reason"
        rows={3}
        maxLength={500}
        hint="Kept with the block and in the audit log, for your colleagues. The client is only told that it is blocked."
      />
      <DangerAction
        words={['Block client', 'Block this client?', 'Blocking\u2026']}
        canOpen={() => fields.validate(formRef.current!, { reason: reason() })}
        mutation={trpc.clients.block.mutationOptions()}
        input={() => ({ walletAddress: client.walletAddress, reason: reason().trim() })}
        onSuccess={(r) => {
          formRef.current?.reset()
          onDone(`Client blocked. ${plural(r.revokedGrants, 'grant')} and ${plural(r.revokedTokens, 'live token')} revoked.`)
        }}
      >
        <p>
          <code>{client.walletAddress}</code> will be refused from now on.
        </p>
        <p>
          {live > 0
            ? `Its ${plural(live, 'grant')} still pending, approved or in use will be revoked, with their tokens. This cannot be undone: unblocking does not bring them back.`
            : 'It holds no live grant.'}
        </p>
      </DangerAction>
    </form>
  )
}

export function Unblock({ client, onDone }: { client: ClientDetail; onDone(message: string): void }) {
  const trpc = useTRPC()
  return (
    <DangerAction
      words={['Unblock client', 'Unblock this client?', 'Unblocking\u2026']}
      mutation={trpc.clients.unblock.mutationOptions()}
      input={() => ({ walletAddress: client.walletAddress })}
      onSuccess={() => onDone('Client unblocked: it may ask for grants again.')}
    >
      <p>
        <code>{client.walletAddress}</code> may ask for grants again. The grants revoked when it was blocked stay revoked.
      </p>
    </DangerAction>
  )
}
