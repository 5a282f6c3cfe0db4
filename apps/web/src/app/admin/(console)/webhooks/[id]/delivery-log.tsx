'use client'

import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query'
import Link from 'next/link'
import { z } from 'zod'
import type { FormEvent } from 'react'
import { useTRPC, useTRPCClient } from '../../../_lib/trpc'
import { errorMessage } from '../../../_lib/errors'
import { useCan } from '../../../_lib/role'
import { useUrlState } from '../../../_lib/url-state'
import { Empty, ErrorMessage, Time } from '../../../_components/ui'
import { DataTable, type Columns } from '../../../_components/data-table'
import { QueryBoundary } from '../../../_components/query-boundary'
import { DELIVERY_STATE_LABEL, DeliveryStateBadge, type DeliveryState, type WebhookDelivery, type WebhookEndpoint } from '../webhook-parts'
import { NOT_FOUND } from './endpoint-words'

const PAGE_SIZE = 50

/** The log's query: one state, or every state (an unknown value shows every state). */
const DeliveryQuerySchema = z.object({ state: z.enum(['pending', 'delivered', 'failed']).optional() })

/** The deliveries to this endpoint, newest first, filtered by state, paged with "Load more"; Replay for failed ones. */
export function DeliveryLog({ endpoint: e, onNotice }: { endpoint: WebhookEndpoint; onNotice(message: string): void }) {
  const url = useUrlState(DeliveryQuerySchema)
  const state = url.state.state ?? null
  const trpc = useTRPC()
  const client = useTRPCClient()
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
    url.set({ state: value ? (value as DeliveryState) : undefined })
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

      <QueryBoundary
        query={deliveries}
        loading="Loading deliveries…"
        what="The delivery log"
        notFound={NOT_FOUND}
        isEmpty={() => items.length === 0}
        empty={
          <Empty title={state ? `No ${what}.` : 'No deliveries yet.'}>
            <p>{state ? 'Choose another state to see the others.' : 'Events of its types appear here once they happen; or send a test event.'}</p>
          </Empty>
        }
      >
        {() => (
          <DataTable
            className="delivery-table"
            columns={deliveryColumns(canReplay, onNotice)}
            rows={items}
            rowKey={(d) => d.id}
            caption={
              <>
                {items.length === 1 ? '1 delivery' : `${items.length} ${what}`}
                {deliveries.hasNextPage ? ', more below' : ''}
              </>
            }
          />
        )}
      </QueryBoundary>
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

/** The log's columns; for an admin, Replay on the failed ones. */
function deliveryColumns(canReplay: boolean, onNotice: (message: string) => void): Columns<WebhookDelivery> {
  const columns: Columns<WebhookDelivery> = [
    {
      id: 'event',
      header: 'Event',
      cell: ({ row: { original: d } }) => (
        <>
          <code className="event-type">{d.eventType}</code>
          <span className="cell-sub">
            <span className="visually-hidden">Event id </span>
            <span className="mono">{d.eventId}</span>
          </span>
          <span className="cell-note">
            <Time value={d.createdAt} />
          </span>
        </>
      ),
    },
    {
      id: 'grant',
      header: 'Grant',
      cell: ({ row: { original: d } }) =>
        d.grantId ? (
          <Link href={`/admin/grants/${encodeURIComponent(d.grantId)}`} className="mono">
            {d.grantId}
          </Link>
        ) : (
          <span className="muted">—</span>
        ),
    },
    { id: 'state', header: 'State', cell: ({ row }) => <DeliveryStateBadge state={row.original.state} /> },
    { id: 'attempts', header: 'Attempts', cell: ({ row }) => row.original.attempts },
    { id: 'answer', header: 'Last answer', cell: ({ row }) => <LastAnswer delivery={row.original} /> },
    { id: 'next', header: 'Next attempt', cell: ({ row }) => <Time value={row.original.nextAttemptAt} /> },
    { id: 'delivered', header: 'Delivered', cell: ({ row }) => <Time value={row.original.deliveredAt} /> },
  ]
  if (!canReplay) return columns
  return [
    ...columns,
    {
      id: 'actions',
      header: 'Actions',
      cell: ({ row: { original: d } }) => d.state === 'failed' && <Replay delivery={d} onNotice={onNotice} />,
    },
  ]
}

function LastAnswer({ delivery: d }: { delivery: WebhookDelivery }) {
  return (
    <>
      {d.lastStatus !== null ? `HTTP ${d.lastStatus}` : d.attempts > 0 ? <span className="muted">No answer</span> : <span className="muted">—</span>}
      {d.lastError && <span className="cell-note">{d.lastError}</span>}
      {d.lastAttemptAt && (
        <span className="cell-note">
          <Time value={d.lastAttemptAt} />
        </span>
      )}
    </>
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
