import { Time } from '../../../_components/ui'
import { EndpointStatusBadge, EventTypeTags, type WebhookEndpoint } from '../webhook-parts'

export function EndpointFacts({ endpoint: e }: { endpoint: WebhookEndpoint }) {
  return (
    <dl className="facts">
      <dt>URL</dt>
      <dd>
        <code>{e.url}</code>
      </dd>
      <dt>Description</dt>
      <dd>{e.description || <span className="muted">None</span>}</dd>
      <dt>Event types</dt>
      <dd>
        <EventTypeTags types={e.eventTypes} />
      </dd>
      <dt>Status</dt>
      <dd>
        <EndpointStatusBadge enabled={e.enabled} />{' '}
        {e.enabled
          ? 'New events of its types are sent to it.'
          : 'Events that happen while it is disabled are not sent to it; deliveries already waiting are sent once it is enabled again.'}
      </dd>
      <dt>Deliveries</dt>
      <dd>
        {e.counts.pending} pending, {e.counts.delivered} delivered, {e.counts.failed} failed
      </dd>
      <dt>Signing secret</dt>
      <dd>
        Shown only once, when the endpoint was added or its secret rotated.
        {e.previousSecretUntil !== null && (
          <span className="cell-sub">
            The previous secret also signs deliveries until <Time value={e.previousSecretUntil} />.
          </span>
        )}
      </dd>
      <dt>Added</dt>
      <dd>
        <Time value={e.createdAt} />
        <span className="cell-sub">by {e.createdBy}</span>
      </dd>
      <dt>Last change</dt>
      <dd>
        <Time value={e.updatedAt} />
      </dd>
    </dl>
  )
}
