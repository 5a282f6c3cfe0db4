'use client'

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import Link from 'next/link'
import { useRouter } from 'next/navigation'
import { useRef, useState, type FormEvent } from 'react'
import { useTRPC, useTRPCClient } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { useFocusOnFailure } from '../../../_lib/focus-on-failure'
import { formatDateTime } from '../../../_lib/format'
import { ForRole, useCan } from '../../../_lib/role'
import { ConfirmedAction, useConfirmation } from '../../../_components/confirm-dialog'
import { Notice } from '../../../_components/notice'
import { Empty, ErrorMessage, Loading, Time } from '../../../_components/ui'
import {
  checkedEventTypes,
  DELIVERY_STATE_LABEL,
  DeliveryStateBadge,
  EndpointStatusBadge,
  EventTypeFields,
  EventTypeTags,
  NewSecret,
  webhookHref,
  type DeliveryState,
  type WebhookDelivery,
  type WebhookEndpoint,
} from '../webhook-parts'

const NOT_FOUND = 'No webhook endpoint has this id. It may have been deleted.'
const PAGE_SIZE = 50
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** One endpoint: what it receives, its delivery log, and for an admin every change (edit, test, rotate, disable, delete). */
export function WebhookDetailView({ id, state }: { id: string; state: DeliveryState | null }) {
  const trpc = useTRPC()
  // Refreshed now and then, as the log is: its counts follow the deliveries.
  const endpoint = useQuery({ ...trpc.webhooks.byId.queryOptions({ id }), refetchInterval: (q) => (q.state.status === 'error' ? false : 10_000) })
  const canManage = useCan('admin')
  const [notice, setNotice] = useState<string | null>(null)
  const [secret, setSecret] = useState<{ value: string; overlap: string } | null>(null)

  if (endpoint.isPending) return <Loading>Loading the webhook endpoint…</Loading>
  if (endpoint.isError) {
    return (
      <>
        <Breadcrumb />
        <h1>Webhook endpoint</h1>
        <ErrorMessage title="This endpoint could not be shown." action={<Link href="/admin/webhooks">Back to the webhooks</Link>}>
          {errorMessage(endpoint.error, { notFound: NOT_FOUND })}
        </ErrorMessage>
      </>
    )
  }
  const e = endpoint.data
  return (
    <>
      <Breadcrumb />
      <div className="page-head">
        <div>
          <h1>Webhook endpoint</h1>
          <p>
            <code>{e.url}</code> · <EndpointStatusBadge enabled={e.enabled} />
          </p>
        </div>
      </div>
      {secret && (
        <NewSecret
          heading="The new signing secret"
          url={e.url}
          secret={secret.value}
          overlap={secret.overlap}
          onDone={() => {
            setSecret(null)
            setNotice('Secret rotated. Deliveries are signed with the new secret.')
          }}
        />
      )}
      <Notice text={notice} />

      <div className="grid-2">
        <section className="panel" aria-labelledby="endpoint-heading">
          <h2 id="endpoint-heading">Endpoint</h2>
          <EndpointFacts endpoint={e} />
          <ForRole role="admin">
            <EditEndpoint endpoint={e} onDone={setNotice} />
          </ForRole>
        </section>

        <section className="panel" aria-labelledby="test-heading">
          <h2 id="test-heading">Test and signing secret</h2>
          <ForRole role="admin">
            <div className="stack">
              <div>
                <SendTest endpoint={e} onDone={setNotice} />
              </div>
              <div>
                <RotateSecret endpoint={e} onRotated={(value, overlap) => (setNotice(null), setSecret({ value, overlap }))} />
              </div>
            </div>
          </ForRole>
          {!canManage && <p className="muted">Only administrators with the admin role send test events, rotate the secret or change the endpoint.</p>}
        </section>
      </div>

      <DeliveryLog endpoint={e} state={state} onNotice={setNotice} />

      <ForRole role="admin">
        <DangerZone endpoint={e} onDone={setNotice} />
      </ForRole>
    </>
  )
}

function Breadcrumb() {
  return (
    <p className="breadcrumb">
      <Link href="/admin/webhooks">← Webhooks</Link>
    </p>
  )
}

function EndpointFacts({ endpoint: e }: { endpoint: WebhookEndpoint }) {
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

/** URL, description and event types, behind an Edit button. */
function EditEndpoint({ endpoint: e, onDone }: { endpoint: WebhookEndpoint; onDone(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [open, setOpen] = useState(false)
  const [missingTypes, setMissingTypes] = useState(0)
  const update = useMutation(
    trpc.webhooks.update.mutationOptions({
      onSuccess: async () => {
        setOpen(false)
        onDone('Endpoint saved. Events recorded from now on follow the new settings.')
        await queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() })
      },
    }),
  )
  const errorRef = useFocusOnFailure(update)
  if (!open) {
    return (
      <div className="filter-actions">
        <button type="button" className="button secondary" onClick={() => setOpen(true)}>
          Edit endpoint
        </button>
      </div>
    )
  }
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const f = new FormData(event.currentTarget)
    const eventTypes = checkedEventTypes(f)
    if (eventTypes.length === 0) {
      setMissingTypes((n) => n + 1)
      return
    }
    update.mutate({ id: e.id, url: String(f.get('url') ?? '').trim(), description: String(f.get('description') ?? '').trim(), eventTypes })
  }
  return (
    <form onSubmit={submit} aria-labelledby="edit-heading">
      <h3 id="edit-heading">Edit the endpoint</h3>
      {update.isError && (
        <div ref={errorRef} tabIndex={-1}>
          <ErrorMessage title="Not saved.">{errorMessage(update.error, { notFound: NOT_FOUND })}</ErrorMessage>
        </div>
      )}
      <div className="field">
        <label htmlFor="edit-url">URL</label>
        <input id="edit-url" name="url" type="url" required maxLength={2048} defaultValue={e.url} spellCheck={false} autoComplete="off" autoFocus />
      </div>
      <div className="field">
        <label htmlFor="edit-description">Description (optional)</label>
        <input id="edit-description" name="description" maxLength={200} defaultValue={e.description ?? ''} autoComplete="off" />
      </div>
      <EventTypeFields idPrefix="edit" checked={e.eventTypes} missing={missingTypes} onPicked={() => setMissingTypes(0)} />
      <div className="filter-actions">
        <button type="submit" className="button" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save'}
        </button>
        <button
          type="button"
          className="button quiet"
          onClick={() => {
            setOpen(false)
            update.reset()
          }}
        >
          Cancel
        </button>
      </div>
    </form>
  )
}

function SendTest({ endpoint: e, onDone }: { endpoint: WebhookEndpoint; onDone(message: string): void }) {
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

/** A new secret, after a confirmation; the old one keeps signing for the overlap, so the receiver can switch. */
function RotateSecret({ endpoint: e, onRotated }: { endpoint: WebhookEndpoint; onRotated(secret: string, overlap: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const confirmation = useConfirmation()
  const hoursRef = useRef<HTMLInputElement>(null)
  const [hours, setHours] = useState('24')
  const [invalid, setInvalid] = useState(false)
  const overlapHours = /^\d{1,3}$/.test(hours.trim()) ? Number(hours.trim()) : NaN
  const valid = Number.isInteger(overlapHours) && overlapHours >= 0 && overlapHours <= 168
  const rotate = useMutation(
    trpc.webhooks.rotateSecret.mutationOptions({
      gcTime: 0,
      onSuccess: async (r) => {
        confirmation.close()
        // The answer holds the secret: the page keeps it only until "I have stored the secret", not in the query client.
        rotate.reset()
        const until = r.endpoint.previousSecretUntil
        onRotated(
          r.secret,
          // The server gives previousSecretUntil only while the old secret still signs.
          until
            ? `Until ${formatDateTime(until)} each delivery is signed with both the old and the new secret: give your receiver the new one before then.`
            : 'The old secret no longer signs anything: give your receiver the new one now.',
        )
        await queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() })
      },
      onError: (err) => confirmation.fail(errorMessage(err, { notFound: NOT_FOUND })),
    }),
  )
  return (
    <>
      <h3>Rotate the signing secret</h3>
      <p className="hint">Do this when the secret may have leaked. The new secret is shown once.</p>
      <div className="field">
        <label htmlFor="overlap-hours">Hours the old secret keeps working</label>
        <input
          id="overlap-hours"
          ref={hoursRef}
          type="number"
          inputMode="numeric"
          min={0}
          max={168}
          step={1}
          value={hours}
          onChange={(ev) => {
            setHours(ev.target.value)
            setInvalid(false)
          }}
          aria-describedby={invalid ? 'overlap-hours-hint overlap-hours-error' : 'overlap-hours-hint'}
          aria-invalid={invalid ? 'true' : undefined}
        />
        <span className="hint" id="overlap-hours-hint">
          From 0 to 168 (a week). Meanwhile every delivery carries a signature with each secret, so your receiver keeps verifying while you give it
          the new one. 0 stops the old secret at once.
        </span>
        {invalid && (
          <span className="error-text" id="overlap-hours-error" role="alert">
            Give a whole number of hours from 0 to 168.
          </span>
        )}
      </div>
      <div className="filter-actions">
        <ConfirmedAction
          label="Rotate secret"
          {...confirmation.props}
          onOpen={() => {
            if (!valid) {
              setInvalid(true)
              hoursRef.current?.focus()
              return
            }
            confirmation.props.onOpen()
          }}
          title="Rotate the signing secret?"
          busyLabel="Rotating…"
          busy={rotate.isPending}
          onConfirm={() => rotate.mutate({ id: e.id, overlapHours })}
        >
          <p>
            A new secret signs every delivery to <code>{e.url}</code> from now on.{' '}
            {overlapHours > 0
              ? `The current one also signs them for ${plural(overlapHours, 'hour')}, then stops.`
              : 'The current one stops at once: deliveries fail to verify until your receiver has the new one.'}
          </p>
        </ConfirmedAction>
      </div>
    </>
  )
}

/** The deliveries to this endpoint, newest first, filtered by state, paged with "Load more"; Replay for failed ones. */
function DeliveryLog({ endpoint: e, state, onNotice }: { endpoint: WebhookEndpoint; state: DeliveryState | null; onNotice(message: string): void }) {
  const trpc = useTRPC()
  const client = useTRPCClient()
  const router = useRouter()
  const canReplay = useCan('admin')
  const input = { endpointId: e.id, limit: PAGE_SIZE, ...(state ? { state } : {}) }
  // Not `infiniteQueryOptions`: it adds a `direction` member to the input, which the procedure's strict schema refuses.
  // The key is the one it would use, so invalidating `webhooks` refreshes the log too.
  const deliveries = useInfiniteQuery({
    queryKey: trpc.webhooks.deliveries.infiniteQueryKey(input),
    queryFn: ({ pageParam, signal }) => client.webhooks.deliveries.query({ ...input, ...(pageParam ? { cursor: pageParam } : {}) }, { signal }),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
    // The log follows the worker by itself: often while something waits to be sent, now and then otherwise; after a
    // failure only when asked (Try again), so the error stays on the screen.
    refetchInterval: (query) =>
      query.state.status === 'error' ? false : query.state.data?.pages.some((p) => p.items.some((d) => d.state === 'pending')) ? 3_000 : 10_000,
  })
  const items = deliveries.data?.pages.flatMap((p) => p.items) ?? []

  function filter(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const value = String(new FormData(event.currentTarget).get('state') ?? '')
    router.push(value ? `${webhookHref(e.id)}?state=${encodeURIComponent(value)}` : webhookHref(e.id))
  }

  const what = state ? `${DELIVERY_STATE_LABEL[state].toLowerCase()} deliveries` : 'deliveries'
  return (
    <section className="panel" aria-labelledby="log-heading">
      <h2 id="log-heading">Delivery log</h2>
      <p className="hint">
        Every event sent to this endpoint, newest first. A delivery is retried with growing pauses for about a day until the endpoint answers with a
        2xx status, then marked failed; a failed one can be replayed. Receivers recognise a repeated event by its id (the <code>webhook-id</code>{' '}
        header).
      </p>
      <form key={state ?? 'all'} onSubmit={filter} className="inline-form" aria-label="Filter the delivery log">
        <div>
          <label htmlFor="log-state">State</label>
          <select id="log-state" name="state" defaultValue={state ?? ''}>
            <option value="">Every state</option>
            {(Object.keys(DELIVERY_STATE_LABEL) as DeliveryState[]).map((s) => (
              <option key={s} value={s}>
                {DELIVERY_STATE_LABEL[s]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button secondary">
          Show
        </button>
        <button type="button" className="button quiet" onClick={() => void deliveries.refetch()} disabled={deliveries.isFetching}>
          {deliveries.isFetching && !deliveries.isFetchingNextPage ? 'Refreshing…' : 'Refresh'}
        </button>
      </form>

      {deliveries.isPending && <Loading>Loading deliveries…</Loading>}
      {deliveries.isError && (
        <ErrorMessage
          title="The delivery log could not be loaded."
          action={
            <button type="button" className="button secondary" onClick={() => void deliveries.refetch()}>
              Try again
            </button>
          }
        >
          {errorMessage(deliveries.error, { notFound: NOT_FOUND })}
        </ErrorMessage>
      )}
      {deliveries.data && items.length === 0 && (
        <Empty title={state ? `No ${what}.` : 'No deliveries yet.'}>
          <p>{state ? 'Choose another state to see the others.' : 'Events of its types appear here once they happen; or send a test event.'}</p>
        </Empty>
      )}
      {items.length > 0 && (
        <div className="table-wrap delivery-table">
          <table>
            <caption>
              {items.length === 1 ? '1 delivery' : `${items.length} ${what}`}
              {deliveries.hasNextPage ? ', more below' : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Grant</th>
                <th scope="col">State</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">Next attempt</th>
                <th scope="col">Delivered</th>
                {canReplay && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {items.map((d) => (
                <DeliveryRow key={d.id} delivery={d} canReplay={canReplay} onNotice={onNotice} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {deliveries.hasNextPage && (
        <div className="filter-actions">
          <button type="button" className="button secondary" onClick={() => void deliveries.fetchNextPage()} disabled={deliveries.isFetchingNextPage}>
            {deliveries.isFetchingNextPage ? 'Loading…' : 'Load more'}
          </button>
        </div>
      )}
    </section>
  )
}

function DeliveryRow({ delivery: d, canReplay, onNotice }: { delivery: WebhookDelivery; canReplay: boolean; onNotice(message: string): void }) {
  return (
    <tr>
      <td>
        <code className="event-type">{d.eventType}</code>
        <span className="cell-sub">
          <span className="visually-hidden">Event id </span>
          <span className="mono">{d.eventId}</span>
        </span>
        <span className="cell-note">
          <Time value={d.createdAt} />
        </span>
      </td>
      <td>
        {d.grantId ? (
          <Link href={`/admin/grants/${encodeURIComponent(d.grantId)}`} className="mono">
            {d.grantId}
          </Link>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td>
        <DeliveryStateBadge state={d.state} />
      </td>
      <td>{d.attempts}</td>
      <td>
        {d.lastStatus !== null ? (
          `HTTP ${d.lastStatus}`
        ) : d.attempts > 0 ? (
          <span className="muted">No answer</span>
        ) : (
          <span className="muted">—</span>
        )}
        {d.lastError && <span className="cell-note">{d.lastError}</span>}
        {d.lastAttemptAt && (
          <span className="cell-note">
            <Time value={d.lastAttemptAt} />
          </span>
        )}
      </td>
      <td>
        <Time value={d.nextAttemptAt} />
      </td>
      <td>
        <Time value={d.deliveredAt} />
      </td>
      {canReplay && <td>{d.state === 'failed' && <Replay delivery={d} onNotice={onNotice} />}</td>}
    </tr>
  )
}

function Replay({ delivery: d, onNotice }: { delivery: WebhookDelivery; onNotice(message: string): void }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const replay = useMutation(
    trpc.webhooks.replay.mutationOptions({
      onSuccess: async () => {
        onNotice(`The ${d.eventType} event ${d.eventId} is queued again: it is sent within seconds, with the same id.`)
        await queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() })
      },
    }),
  )
  return (
    <>
      <button
        type="button"
        className="button secondary"
        disabled={replay.isPending}
        aria-label={`Replay the ${d.eventType} event ${d.eventId}`}
        onClick={() => replay.mutate({ deliveryId: d.id })}
      >
        {replay.isPending ? 'Replaying…' : 'Replay'}
      </button>
      {replay.isError && (
        <span className="error-text" role="alert">
          {errorMessage(replay.error, { notFound: 'This delivery no longer exists: it may have been removed by retention.' })}
        </span>
      )}
    </>
  )
}

function DangerZone({ endpoint: e, onDone }: { endpoint: WebhookEndpoint; onDone(message: string): void }) {
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
