'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useRouter } from 'next/navigation'
import { useTRPC } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { ConfirmedAction, useConfirmation } from '../../../_components/confirm-dialog'
import { ErrorMessage } from '../../../_components/ui'
import type { WebhookEndpoint } from '../webhook-parts'
import { NOT_FOUND, plural } from './endpoint-words'

export function EndpointDangerZone({ endpoint: e, onDone }: { endpoint: WebhookEndpoint; onDone(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const router = useRouter()
  const disableConfirmation = useConfirmation()
  const deleteConfirmation = useConfirmation()
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() })
  const setEnabled = useMutation(
    trpc.webhooks.setEnabled.mutationOptions({
      onSuccess: async (r) => {
        disableConfirmation.close()
        onDone(r.enabled ? 'Endpoint enabled: events are sent to it again.' : 'Endpoint disabled: nothing is sent to it until you enable it again.')
        await invalidate()
      },
      onError: (err) => disableConfirmation.fail(errorMessage(err, { notFound: NOT_FOUND })),
    }),
  )
  const remove = useMutation(
    trpc.webhooks.delete.mutationOptions({
      onSuccess: async () => {
        deleteConfirmation.close()
        await invalidate()
        router.push('/admin/webhooks?deleted=1')
      },
      onError: (err) => deleteConfirmation.fail(errorMessage(err, { notFound: NOT_FOUND })),
    }),
  )
  return (
    <section className="panel danger-zone" aria-labelledby="danger-heading">
      <h2 id="danger-heading">Disable or delete</h2>
      <div className="actions-row">
        {e.enabled ? (
          <ConfirmedAction
            label="Disable endpoint"
            {...disableConfirmation.props}
            title="Disable this endpoint?"
            busyLabel="Disabling…"
            busy={setEnabled.isPending}
            onConfirm={() => setEnabled.mutate({ id: e.id, enabled: false })}
          >
            <p>
              Nothing is sent to <code>{e.url}</code> until you enable it again. Events that happen meanwhile are not sent to it later; deliveries
              already waiting are sent once it is enabled. To pause a receiver without losing events, leave it enabled: failed deliveries are retried
              for about a day.
            </p>
          </ConfirmedAction>
        ) : (
          <button
            type="button"
            className="button secondary"
            disabled={setEnabled.isPending}
            onClick={() => setEnabled.mutate({ id: e.id, enabled: true })}
          >
            {setEnabled.isPending ? 'Enabling…' : 'Enable endpoint'}
          </button>
        )}
        <ConfirmedAction
          label="Delete endpoint"
          {...deleteConfirmation.props}
          title="Delete this endpoint?"
          busyLabel="Deleting…"
          busy={remove.isPending}
          onConfirm={() => remove.mutate({ id: e.id })}
        >
          <p>
            <code>{e.url}</code> receives nothing more, and its delivery log is deleted with it
            {e.counts.pending > 0 ? `, ${plural(e.counts.pending, 'delivery', 'deliveries')} still waiting to be sent included` : ''}. This cannot be
            undone. The audit log keeps what happened.
          </p>
        </ConfirmedAction>
      </div>
      {!e.enabled && setEnabled.isError && (
        <ErrorMessage title="The endpoint was not enabled.">{errorMessage(setEnabled.error, { notFound: NOT_FOUND })}</ErrorMessage>
      )}
    </section>
  )
}
