'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { ErrorMessage } from '../../../_components/ui'
import type { WebhookEndpoint } from '../webhook-parts'
import { NOT_FOUND } from './endpoint-words'

export function SendTest({ endpoint: e, onDone }: { endpoint: WebhookEndpoint; onDone(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const send = useMutation(
    trpc.webhooks.sendTest.mutationOptions({
      onSuccess: async (r) => {
        onDone(`Test event ${r.eventId} queued: it is sent within seconds and appears in the delivery log below.`)
        await queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() })
      },
    }),
  )
  return (
    <>
      <h3>Send a test event</h3>
      <p className="hint">
        A <code>webhook.test</code> event, signed like every other, sent to this endpoint only: check that your receiver verifies it and answers with
        a 2xx status.
      </p>
      {e.enabled ? (
        <div className="filter-actions">
          <button type="button" className="button secondary" disabled={send.isPending} onClick={() => send.mutate({ id: e.id })}>
            {send.isPending ? 'Sending…' : 'Send a test event'}
          </button>
        </div>
      ) : (
        <p className="muted">The endpoint is disabled: enable it (below) to send a test event.</p>
      )}
      {send.isError && <ErrorMessage title="No test event was sent.">{errorMessage(send.error, { notFound: NOT_FOUND })}</ErrorMessage>}
    </>
  )
}
