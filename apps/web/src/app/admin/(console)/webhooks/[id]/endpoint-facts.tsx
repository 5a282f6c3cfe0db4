import { Facts } from '../../../_components/detail-page'
import { Time } from '../../../_components/ui'
import { EndpointStatusBadge, EventTypeTags, type WebhookEndpoint } from '../webhook-parts'

export function EndpointFacts({ endpoint: e }: { endpoint: WebhookEndpoint }) {
  return (
    <Facts
      facts={[
        ['URL', <code>{e.url}</code>],
        ['Description', e.description || <span className="muted">None</span>],
        ['Event types', <EventTypeTags types={e.eventTypes} />],
        // docs/webhooks.md, "Tenants": a bound endpoint receives its tenant's events only.
        ...(e.tenantId ? [['Tenant', <code>{e.tenantId}</code>] as const] : []),
        [
          'Status',
          <>
            <EndpointStatusBadge enabled={e.enabled} />{' '}
            {e.enabled
              ? 'New events of its types are sent to it.'
              : 'Events that happen while it is disabled are not sent to it; deliveries already waiting are sent once it is enabled again.'}
          </>,
        ],
        ['Deliveries', `${e.counts.pending} pending, ${e.counts.delivered} delivered, ${e.counts.failed} failed`],
        [
          'Signing secret',
          <>
            Shown only once, when the endpoint was added or its secret rotated.
            {e.previousSecretUntil !== null && (
              <span className="cell-sub">
                The previous secret also signs deliveries until <Time value={e.previousSecretUntil} />.
              </span>
            )}
          </>,
        ],
        [
          'Added',
          <>
            <Time value={e.createdAt} />
            <span className="cell-sub">by {e.createdBy}</span>
          </>,
        ],
        ['Last change', <Time value={e.updatedAt} />],
      ]}
    />
  )
}
