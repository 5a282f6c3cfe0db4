'use client'

import type { inferRouterOutputs } from '@trpc/server'
import { useEffect, useRef } from 'react'
import type { AppRouter } from '@gnap/api'
import { WEBHOOK_EVENT_DESCRIPTIONS, WEBHOOK_EVENT_TYPES, type WebhookEventType } from '@gnap/domain/webhook-types'
import { EventTypesSchema } from '@gnap/domain/console-inputs'
import { ShownOnceSecret } from '../../_components/shown-once-secret'
import { issueOf } from '../../_components/form-field'

// What the two webhook pages share: the event-type checkboxes, the secret shown once, and the badges.

type Outputs = inferRouterOutputs<AppRouter>['webhooks']
export type WebhookEndpoint = Outputs['byId']
export type WebhookDelivery = Outputs['deliveries']['items'][number]
export type DeliveryState = WebhookDelivery['state']

export const webhookHref = (id: string) => `/admin/webhooks/${encodeURIComponent(id)}`

export const DELIVERY_STATE_LABEL: Record<DeliveryState, string> = { pending: 'Pending', delivered: 'Delivered', failed: 'Failed' }
// The console's badge colours: pending amber, delivered green, failed red.
const DELIVERY_STATE_BADGE: Record<DeliveryState, string> = { pending: 'pending', delivered: 'issued', failed: 'revoked' }

export function DeliveryStateBadge({ state }: { state: DeliveryState }) {
  return <span className={`badge ${DELIVERY_STATE_BADGE[state]}`}>{DELIVERY_STATE_LABEL[state]}</span>
}

export function EndpointStatusBadge({ enabled }: { enabled: boolean }) {
  return <span className={`badge ${enabled ? 'active' : 'expired'}`}>{enabled ? 'Enabled' : 'Disabled'}</span>
}

/** The event types an endpoint subscribes to, as small tags. */
export function EventTypeTags({ types }: { types: readonly string[] }) {
  return (
    <ul className="tags" aria-label="Event types">
      {types.map((t) => (
        <li key={t} className="tag mono">
          {t}
        </li>
      ))}
    </ul>
  )
}

/** What the server says of an endpoint with no event type, said before sending it. */
const NO_EVENT_TYPE = issueOf(EventTypesSchema, [])

/** Picked event types of a form (the checkboxes below), in the list's order. */
export const checkedEventTypes = (form: FormData): WebhookEventType[] => WEBHOOK_EVENT_TYPES.filter((t) => form.getAll('eventTypes').includes(t))

/**
 * One checkbox per event type, with what it tells in a sentence. `missing` counts the submits refused for having none
 * checked (0: none refused): the group then says so and its first checkbox takes the focus, again at each refusal.
 * Checking one clears the message (`onPicked`).
 */
export function EventTypeFields({
  idPrefix,
  checked,
  missing,
  onPicked,
}: {
  idPrefix: string
  checked: readonly string[]
  missing: number
  onPicked(): void
}) {
  const first = useRef<HTMLInputElement>(null)
  useEffect(() => {
    if (missing > 0) first.current?.focus()
  }, [missing])
  const hintId = `${idPrefix}-types-hint`
  const errorId = `${idPrefix}-types-error`
  return (
    <fieldset
      className="checks"
      aria-describedby={missing > 0 ? `${hintId} ${errorId}` : hintId}
      onChange={(e) => {
        if (e.target instanceof HTMLInputElement && e.target.checked) onPicked()
      }}
    >
      <legend>Event types</legend>
      <span className="hint" id={hintId}>
        The endpoint receives only the types checked here; a test event reaches it whatever it subscribes to.
      </span>
      {missing > 0 && (
        <span className="error-text" id={errorId} role="alert">
          {NO_EVENT_TYPE}
        </span>
      )}
      {WEBHOOK_EVENT_TYPES.map((t, i) => (
        <label key={t} className="check" htmlFor={`${idPrefix}-type-${t}`}>
          <input
            id={`${idPrefix}-type-${t}`}
            ref={i === 0 ? first : undefined}
            type="checkbox"
            name="eventTypes"
            value={t}
            defaultChecked={checked.includes(t)}
          />
          <span>
            <code>{t}</code>
            <span className="cell-note">{WEBHOOK_EVENT_DESCRIPTIONS[t]}</span>
          </span>
        </label>
      ))}
    </fieldset>
  )
}

/**
 * A signing secret, once (after creating an endpoint or rotating its secret): copy it now, it cannot be shown again.
 * It lives only in this component's props (React state of the page): never in the URL, the log or storage.
 */
export function NewSecret({
  heading,
  url,
  secret,
  overlap,
  onDone,
}: {
  heading: string
  /** The endpoint's URL, under the heading. */
  url: string
  secret: string
  overlap?: string
  onDone(): void
}) {
  return (
    <ShownOnceSecret
      id="new-secret"
      heading={heading}
      intro={
        <p>
          <code>{url}</code>
        </p>
      }
      warning="Copy the signing secret now: it will not be shown again."
      explanation={
        <>
          Your receiver verifies every delivery with it (the <code>webhook-signature</code> header, Standard Webhooks). If it is lost, rotate the
          secret on the endpoint&apos;s page.
          {overlap ? ` ${overlap}` : ''}
        </>
      }
      label="Signing secret"
      value={secret}
      copyLabel="Copy secret"
      doneLabel="I have stored the secret"
      copyFailed="The browser did not allow copying: select the secret and copy it."
      // After a rotation, the confirmation dialog closes in the same render and gives the focus back to its opener;
      // the secret must have it.
      focusNextFrame
      onDone={onDone}
    />
  )
}
