'use client'

import { useTRPC } from '../../../_lib/trpc'
import { DangerAction, DangerZone } from '../../../_components/danger-action'
import type { WebhookEndpoint } from '../webhook-parts'
import { NOT_FOUND, plural } from './endpoint-words'

export function EndpointDangerZone({ endpoint: e, onDone }: { endpoint: WebhookEndpoint; onDone(message: string): void }) {
  const trpc = useTRPC()
  const webhooks = { queryKey: trpc.webhooks.pathKey() }
  return (
    <DangerZone
      enabled={e.enabled}
      enable={{
        label: 'Enable endpoint',
        busyLabel: 'Enabling…',
        failedTitle: 'The endpoint was not enabled.',
        mutation: trpc.webhooks.setEnabled.mutationOptions(),
        input: () => ({ id: e.id, enabled: true }),
        onSuccess: () => onDone('Endpoint enabled: events are sent to it again.'),
        invalidate: webhooks,
        notFound: NOT_FOUND,
      }}
      disable={
        <DangerAction
          words={['Disable endpoint', 'Disable this endpoint?', 'Disabling\u2026']}
          mutation={trpc.webhooks.setEnabled.mutationOptions()}
          input={() => ({ id: e.id, enabled: false })}
          onSuccess={() => onDone('Endpoint disabled: nothing is sent to it until you enable it again.')}
          invalidate={webhooks}
          notFound={NOT_FOUND}
        >
          <p>
            Nothing is sent to <code>{e.url}</code> until you enable it again. Events that happen meanwhile are not sent to it later; deliveries
            already waiting are sent once it is enabled. To pause a receiver without losing events, leave it enabled: failed deliveries are retried
            for about a day.
          </p>
        </DangerAction>
      }
    >
      <DangerAction
        words={['Delete endpoint', 'Delete this endpoint?', 'Deleting\u2026']}
        mutation={trpc.webhooks.delete.mutationOptions()}
        input={() => ({ id: e.id })}
        invalidate={webhooks}
        goTo="/admin/webhooks?deleted=1"
        notFound={NOT_FOUND}
      >
        <p>
          <code>{e.url}</code> receives nothing more, and its delivery log is deleted with it
          {e.counts.pending > 0 ? `, ${plural(e.counts.pending, 'delivery', 'deliveries')} still waiting to be sent included` : ''}. This cannot be
          undone. The audit log keeps what happened.
        </p>
      </DangerAction>
    </DangerZone>
  )
}
