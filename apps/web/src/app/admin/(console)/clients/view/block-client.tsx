'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { inferRouterOutputs } from '@trpc/server'
import { useRef, useState } from 'react'
import type { AppRouter } from '@gnap/api'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { ConfirmedAction, useConfirmation } from '../../../_components/confirm-dialog'

export type ClientDetail = inferRouterOutputs<AppRouter>['clients']['byWalletAddress']

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/** The reason, then a confirmation: blocking revokes every grant at once. */
export function Block({ client, live, onDone }: { client: ClientDetail; live: number; onDone(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const confirmation = useConfirmation()
  const reasonRef = useRef<HTMLTextAreaElement>(null)
  const [reason, setReason] = useState('')
  const [missing, setMissing] = useState(false)
  const block = useMutation(
    trpc.clients.block.mutationOptions({
      onSuccess: async (r) => {
        confirmation.close()
        setReason('')
        onDone(`Client blocked. ${plural(r.revokedGrants, 'grant')} and ${plural(r.revokedTokens, 'live token')} revoked.`)
        await queryClient.invalidateQueries()
      },
      onError: (e) => confirmation.fail(errorMessage(e)),
    }),
  )
  return (
    <>
      <p className="hint">
        Use this when a client misbehaves or its key has leaked. It stops at once, on every server: its grants are revoked, its tokens stop working,
        and its new requests are refused until someone unblocks it.
      </p>
      <div className="field">
        <label htmlFor="block-reason">Reason</label>
        <textarea
          id="block-reason"
          ref={reasonRef}
          value={reason}
          onChange={(e) => {
            setReason(e.target.value)
            if (e.target.value.trim()) setMissing(false)
          }}
          maxLength={500}
          rows={3}
          aria-describedby={missing ? 'block-reason-hint block-reason-error' : 'block-reason-hint'}
          aria-invalid={missing ? 'true' : undefined}
        />
        <span className="hint" id="block-reason-hint">
          Kept with the block and in the audit log, for your colleagues. The client is only told that it is blocked.
        </span>
        {missing && (
          <span className="error-text" id="block-reason-error" role="alert">
            Give a reason before blocking.
          </span>
        )}
      </div>
      <ConfirmedAction
        label="Block client"
        {...confirmation.props}
        onOpen={() => {
          if (!reason.trim()) {
            setMissing(true)
            reasonRef.current?.focus()
            return
          }
          confirmation.props.onOpen()
        }}
        title="Block this client?"
        busyLabel="Blocking…"
        busy={block.isPending}
        onConfirm={() => block.mutate({ walletAddress: client.walletAddress, reason: reason.trim() })}
      >
        <p>
          <code>{client.walletAddress}</code> will be refused from now on.
        </p>
        <p>
          {live > 0
            ? `Its ${plural(live, 'grant')} still pending, approved or in use will be revoked, with their tokens. This cannot be undone: unblocking does not bring them back.`
            : 'It holds no live grant.'}
        </p>
      </ConfirmedAction>
    </>
  )
}

export function Unblock({ client, onDone }: { client: ClientDetail; onDone(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const confirmation = useConfirmation()
  const unblock = useMutation(
    trpc.clients.unblock.mutationOptions({
      onSuccess: async () => {
        confirmation.close()
        onDone('Client unblocked: it may ask for grants again.')
        await queryClient.invalidateQueries()
      },
      onError: (e) => confirmation.fail(errorMessage(e)),
    }),
  )
  return (
    <ConfirmedAction
      label="Unblock client"
      {...confirmation.props}
      title="Unblock this client?"
      busyLabel="Unblocking…"
      busy={unblock.isPending}
      onConfirm={() => unblock.mutate({ walletAddress: client.walletAddress })}
    >
      <p>
        <code>{client.walletAddress}</code> may ask for grants again. The grants revoked when it was blocked stay revoked.
      </p>
    </ConfirmedAction>
  )
}
