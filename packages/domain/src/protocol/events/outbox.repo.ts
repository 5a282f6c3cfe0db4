import type { Sql, SqlRunner, SqlValue } from '../../kernel/db/sql'
import type { GnapConfig } from '../../kernel/config/config'
import { newId } from '../../kernel/secrets'
import { eventBody, newEventId, TEST_EVENT_TYPE, type AnyEventType, type EventData, type WebhookEventType } from './webhook-events'
import { RETRY_WINDOW_MS } from './delivery-schedule'
import { signalOutbox } from './outbox-signal'

// The outbox (docs/webhooks.md): every SQL statement about events and their deliveries. An event is written by
// `recordEvents` inside the transaction of the change it tells of, with one delivery row for every enabled endpoint
// subscribed to its type, so the change and its event commit or roll back together. The delivery worker
// (deliver-webhooks.ts) claims due deliveries with a lease and records what became of each attempt.
//
// Queues: the deliveries of one endpoint with one `orderKey` (a grant's, mostly) go out one at a time, in order. The
// first pending one is the queue's head; each one behind it is `held` (1) until the one before it is delivered or
// has failed for good, when the next is released (`held` 0) in the same transaction. The claim reads heads only, so
// its cost does not grow with what waits behind them (docs/webhooks.md, "Delivery guarantees"). A write that decides
// whether a queue has a pending delivery takes the row locks of the queue's pending deliveries first (lockQueue), so
// on PostgreSQL it waits for the transaction that is ending the head, and a new delivery is never held behind a head
// that has just gone without being released.

/** One event to record: its type, its data, and the grant (or other key) its deliveries keep the order of. */
export interface NewEvent<T extends AnyEventType = AnyEventType> {
  type: T
  data: EventData<T>
  /** The grant it is about: one grant's events go out in order. */
  grantId?: string | null
  /** For events without a grant: the key whose events keep their order (`client:<id>`). */
  orderKey?: string
}

/**
 * What the outbox needs of the settings: the operator tenant, whose events include those of grants made at `POST /`
 * (docs/protocol.md §2.21). Every use case passes its deps.config; without it, such grants' events belong to no
 * tenant (the implicit tenant's).
 */
export type EventTenancy = Pick<GnapConfig, 'operatorTenant'>

/**
 * The tenant an event belongs to: its grant's (the tenant of its grant endpoint, else the operator tenant), or null
 * for the implicit tenant and for events of no grant (client blocks). Read once per grant of one call.
 */
async function tenantOfEvent(
  tx: SqlRunner,
  e: NewEvent,
  tenancy: EventTenancy | undefined,
  grantTenants: Map<string, string | null>,
): Promise<string | null> {
  if (!e.grantId) return null
  if (grantTenants.has(e.grantId)) return grantTenants.get(e.grantId)!
  const [grant] = await tx.all<{ tenantId: string | null }>(`SELECT "tenantId" FROM "Grant" WHERE "id" = $1`, [e.grantId])
  const tenantId = grant?.tenantId ?? tenancy?.operatorTenant?.id ?? null
  grantTenants.set(e.grantId, tenantId)
  return tenantId
}

/**
 * The ids of the events written, in order. Each goes to the enabled endpoints subscribed to its type that are bound
 * to no tenant or to the event's tenant (docs/webhooks.md). An event no endpoint would receive is not written at all
 * (no event row, no delivery, and no read of its grant's tenant when no endpoint subscribes to its type): nothing
 * would ever send it, and a rotation then writes only its tokens (docs/benchmark.md, statement counts).
 */
export async function recordEvents(tx: SqlRunner, events: readonly NewEvent[], at: Date, tenancy?: EventTenancy): Promise<string[]> {
  if (events.length === 0) return []
  const endpointsByType = new Map<string, SubscribedEndpoint[]>()
  const grantTenants = new Map<string, string | null>()
  const ids: string[] = []
  for (const e of events) {
    let endpoints = endpointsByType.get(e.type)
    if (!endpoints) {
      endpoints = await subscribedEndpoints(tx, e.type as WebhookEventType)
      endpointsByType.set(e.type, endpoints)
    }
    if (endpoints.length === 0) continue
    const tenantId = await tenantOfEvent(tx, e, tenancy, grantTenants)
    const receiving = endpoints.filter((ep) => ep.tenantId === null || ep.tenantId === tenantId).map((ep) => ep.id)
    if (receiving.length === 0) continue
    ids.push(await insertEvent(tx, e, at, receiving, tenantId))
  }
  if (ids.length > 0) signalOutbox()
  return ids
}

/** Records one event (recordEvents): its id, or null when no endpoint would receive it (nothing written). */
export async function recordEvent<T extends AnyEventType>(
  tx: SqlRunner,
  event: NewEvent<T>,
  at: Date,
  tenancy?: EventTenancy,
): Promise<string | null> {
  const [id] = await recordEvents(tx, [event as NewEvent], at, tenancy)
  return id ?? null
}

/**
 * "Send a test event": a `webhook.test` event delivered to this one endpoint, whatever it subscribes to; it names the
 * endpoint's tenant when the endpoint is bound to one.
 */
export async function recordTestEvent(
  tx: SqlRunner,
  endpointId: string,
  data: EventData<typeof TEST_EVENT_TYPE>,
  at: Date,
  tenantId: string | null = null,
): Promise<string> {
  const id = await insertEvent(tx, { type: TEST_EVENT_TYPE, data, orderKey: `endpoint:${endpointId}` }, at, [endpointId], tenantId)
  signalOutbox()
  return id
}

interface SubscribedEndpoint {
  id: string
  /** Null: every tenant's events. */
  tenantId: string | null
}

async function subscribedEndpoints(tx: SqlRunner, type: WebhookEventType): Promise<SubscribedEndpoint[]> {
  return tx.all<SubscribedEndpoint>(
    `SELECT e."id", e."tenantId" FROM "WebhookEndpoint" e JOIN "WebhookSubscription" s ON s."endpointId" = e."id"
     WHERE s."eventType" = $1 AND e."disabledAt" IS NULL ORDER BY e."id"`,
    [type],
  )
}

async function insertEvent(tx: SqlRunner, e: NewEvent, at: Date, endpointIds: readonly string[], tenantId: string | null): Promise<string> {
  const id = newEventId()
  const body = eventBody(id, e.type, at, e.data as EventData<AnyEventType>, tenantId)
  const orderKey = e.grantId ? `grant:${e.grantId}` : (e.orderKey ?? `event:${id}`)
  await tx.run(`INSERT INTO "WebhookEvent" ("id", "type", "grantId", "payload", "createdAt") VALUES ($1, $2, $3, $4, $5)`, [
    id,
    e.type,
    e.grantId ?? null,
    JSON.stringify(body),
    at,
  ])
  const giveUpAt = new Date(at.getTime() + RETRY_WINDOW_MS)
  for (const endpointId of endpointIds) {
    const queue = { endpointId, orderKey }
    if (e.type === ROTATED && e.grantId && (await coalesceRotation(tx, queue, { eventId: id, at, giveUpAt }))) continue
    const held = (await lockQueue(tx, queue)) ? 1 : 0
    await tx.run(
      `INSERT INTO "WebhookDelivery" ("id", "eventId", "endpointId", "orderKey", "state", "attempts", "nextAttemptAt", "giveUpAt", "createdAt", "held")
       VALUES ($1, $2, $3, $4, 'pending', 0, $5, $6, $5, $7)`,
      [newId(), id, endpointId, orderKey, at, giveUpAt, held],
    )
  }
  return id
}

const ROTATED = 'access_token.rotated'

/** One endpoint's deliveries of one order key: they go out one at a time, in order. */
interface Queue {
  endpointId: string
  orderKey: string
}

/**
 * Whether the queue has a pending delivery, after taking the row locks of its pending deliveries until the
 * transaction ends (a no-op UPDATE, the one locking statement both databases share). On PostgreSQL this waits for a
 * worker that is recording the end of the head, and then sees the head gone; a worker that comes after waits for
 * this transaction and then sees what it wrote (recordAttempt releases the next). SQLite runs one writer at a time.
 */
async function lockQueue(tx: SqlRunner, q: Queue): Promise<boolean> {
  const pending = await tx.run(`UPDATE "WebhookDelivery" SET "held" = "held" WHERE "endpointId" = $1 AND "orderKey" = $2 AND "state" = 'pending'`, [
    q.endpointId,
    q.orderKey,
  ])
  return pending > 0
}

/**
 * Coalescing (docs/webhooks.md): while the queue's last pending delivery is an `access_token.rotated` event of the
 * same grant still held behind an earlier one (never attempted, not leased), the newer rotation takes its place
 * instead of queueing behind it: the receiver is told of the grant's latest token, and one client rotating in a loop
 * against a failing receiver keeps at most two pending deliveries per endpoint (the head and one held rotation).
 * Whether it did.
 */
async function coalesceRotation(tx: SqlRunner, q: Queue, next: { eventId: string; at: Date; giveUpAt: Date }): Promise<boolean> {
  const changed = await tx.run(
    `UPDATE "WebhookDelivery" SET "eventId" = $3, "createdAt" = $4, "nextAttemptAt" = $4, "giveUpAt" = $5
     WHERE "id" = (
         SELECT t."id" FROM "WebhookDelivery" t WHERE t."endpointId" = $1 AND t."orderKey" = $2 AND t."state" = 'pending'
         ORDER BY t."createdAt" DESC, t."eventId" DESC LIMIT 1)
       AND "state" = 'pending' AND "held" = 1 AND "lastAttemptAt" IS NULL AND "leaseUntil" IS NULL
       AND "eventId" IN (SELECT ev."id" FROM "WebhookEvent" ev WHERE ev."type" = '${ROTATED}')`,
    [q.endpointId, q.orderKey, next.eventId, next.at, next.giveUpAt],
  )
  return changed === 1
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  id: string
  eventId: string
  eventType: string
  payload: string
  endpointId: string
  url: string
  secret: string
  previousSecret: string | null
  previousSecretUntil: Date | null
  attempts: number
  giveUpAt: Date
}

/**
 * Claims up to `take` due deliveries for `owner` until `leaseUntil`, and returns them: pending heads of their queues
 * (not held), due, not leased (or their lease ran out: the worker holding them died), their endpoint enabled, and no
 * earlier pending delivery of the same endpoint and grant (one grant's events go out in order while the receiver
 * keeps up). Held rows are never read: the index on ("state", "held", "nextAttemptAt", …) starts at the heads, and
 * the check for an earlier head (two events written at once on PostgreSQL can both find their queue empty) is one
 * index probe per head. A replayed delivery held behind the head does not stop it: it goes next. On PostgreSQL the rows are taken with FOR UPDATE
 * SKIP LOCKED, so two instances claiming at once take different rows; on SQLite the one statement runs under the
 * file's write lock.
 */
export async function claimDueDeliveries(
  db: SqlRunner & { readonly dialect: 'sqlite' | 'postgresql' },
  input: { owner: string; now: Date; leaseUntil: Date; take: number },
): Promise<ClaimedDelivery[]> {
  // A read first: an idle worker polls often, and an UPDATE takes SQLite's write lock even when it matches nothing.
  const due = await db.all<{ one: number }>(
    `SELECT 1 AS "one" FROM "WebhookDelivery"
     WHERE "state" = 'pending' AND "held" = 0 AND "nextAttemptAt" <= $1 AND ("leaseUntil" IS NULL OR "leaseUntil" < $1) LIMIT 1`,
    [input.now],
  )
  if (due.length === 0) return []
  const lock = db.dialect === 'postgresql' ? 'FOR UPDATE OF d SKIP LOCKED' : ''
  const claimed = await db.all<{ id: string }>(
    `UPDATE "WebhookDelivery" SET "leaseOwner" = $1, "leaseUntil" = $2
     WHERE "id" IN (
       SELECT d."id" FROM "WebhookDelivery" d JOIN "WebhookEndpoint" e ON e."id" = d."endpointId"
       WHERE d."state" = 'pending' AND d."held" = 0 AND d."nextAttemptAt" <= $3 AND (d."leaseUntil" IS NULL OR d."leaseUntil" < $3)
         AND e."disabledAt" IS NULL
         AND NOT EXISTS (
           SELECT 1 FROM "WebhookDelivery" p
           WHERE p."endpointId" = d."endpointId" AND p."orderKey" = d."orderKey" AND p."state" = 'pending' AND p."held" = 0
             AND (p."createdAt" < d."createdAt" OR (p."createdAt" = d."createdAt" AND p."eventId" < d."eventId")))
       ORDER BY d."nextAttemptAt" ASC, d."createdAt" ASC, d."eventId" ASC
       LIMIT $4 ${lock})
     RETURNING "id"`,
    [input.owner, input.leaseUntil, input.now, input.take],
  )
  if (claimed.length === 0) return []
  const ids = claimed.map((c) => c.id)
  return db.all<ClaimedDelivery>(
    `SELECT d."id", d."eventId", ev."type" AS "eventType", ev."payload", d."endpointId", e."url", e."secret", e."previousSecret",
       e."previousSecretUntil", d."attempts", d."giveUpAt"
     FROM "WebhookDelivery" d JOIN "WebhookEvent" ev ON ev."id" = d."eventId" JOIN "WebhookEndpoint" e ON e."id" = d."endpointId"
     WHERE d."id" IN (${ids.map((_, i) => `$${i + 1}`).join(', ')}) AND d."leaseOwner" = $${ids.length + 1}
     ORDER BY d."createdAt" ASC, d."eventId" ASC`,
    [...ids, input.owner],
  )
}

/** What one attempt ended with. */
export interface AttemptResult {
  at: Date
  /** The HTTP status, null when no answer came. */
  status: number | null
  /** Why it failed, in words safe to show (no body of the answer, no secret); null on success. */
  error: string | null
}

/**
 * Records an attempt of a delivery this worker holds: delivered, pending again at `nextAttemptAt`, or failed for
 * good; `giveUpAt` is the end of its retry window (set at its first attempt). A delivery that is no longer pending
 * releases the next one of its queue, in the same transaction. False when the lease was lost (it ran out and another
 * worker took the delivery): nothing is written.
 */
export async function recordAttempt(
  db: Pick<Sql, 'transaction'>,
  input: {
    id: string
    owner: string
    result: AttemptResult
    giveUpAt: Date
    outcome: { state: 'delivered' } | { state: 'pending'; nextAttemptAt: Date } | { state: 'failed' }
  },
): Promise<boolean> {
  const { result, outcome } = input
  const params: SqlValue[] = [outcome.state, result.at, result.status, result.error, input.id, input.owner, input.giveUpAt]
  const next = outcome.state === 'pending' ? `, "nextAttemptAt" = $${params.push(outcome.nextAttemptAt)}` : ''
  const delivered = outcome.state === 'delivered' ? `, "deliveredAt" = $2` : ''
  return db.transaction(async (tx) => {
    const [queue] = await tx.all<Queue>(
      `UPDATE "WebhookDelivery" SET "state" = $1, "attempts" = "attempts" + 1, "lastAttemptAt" = $2, "lastStatus" = $3, "lastError" = $4,
         "leaseOwner" = NULL, "leaseUntil" = NULL, "giveUpAt" = $7${next}${delivered}
       WHERE "id" = $5 AND "leaseOwner" = $6 AND "state" = 'pending'
       RETURNING "endpointId", "orderKey"`,
      params,
    )
    if (!queue) return false
    if (outcome.state !== 'pending') await releaseNext(tx, queue)
    return true
  })
}

/** Makes the first pending delivery of the queue its head (not held): the one before it has gone. */
async function releaseNext(tx: SqlRunner, q: Queue): Promise<void> {
  await tx.run(
    `UPDATE "WebhookDelivery" SET "held" = 0
     WHERE "id" = (
       SELECT n."id" FROM "WebhookDelivery" n WHERE n."endpointId" = $1 AND n."orderKey" = $2 AND n."state" = 'pending'
       ORDER BY n."createdAt" ASC, n."eventId" ASC LIMIT 1)
       AND "held" = 1`,
    [q.endpointId, q.orderKey],
  )
}

/** Gives a delivery back without recording an attempt (the worker is stopping before sending it). */
export async function releaseDelivery(db: SqlRunner, id: string, owner: string): Promise<void> {
  await db.run(`UPDATE "WebhookDelivery" SET "leaseOwner" = NULL, "leaseUntil" = NULL WHERE "id" = $1 AND "leaseOwner" = $2`, [id, owner])
}

/**
 * Makes a failed delivery pending again, due now, as if new: its attempts count from 0 again, so its retries start
 * again from the shortest wait, and a new retry window starts at its next attempt. While another delivery of its
 * queue is pending it is held behind it (and, being older than those held, goes next). False when it is not failed
 * (delivered, pending, or unknown). Call inside a transaction: the queue's pending rows stay locked until it ends.
 */
export async function replayFailedDelivery(tx: SqlRunner, id: string, now: Date): Promise<boolean> {
  const [queue] = await tx.all<Queue>(`SELECT "endpointId", "orderKey" FROM "WebhookDelivery" WHERE "id" = $1 AND "state" = 'failed'`, [id])
  if (!queue) return false
  const held = (await lockQueue(tx, queue)) ? 1 : 0
  const changed = await tx.run(
    `UPDATE "WebhookDelivery" SET "state" = 'pending', "attempts" = 0, "nextAttemptAt" = $1, "giveUpAt" = $2, "leaseOwner" = NULL, "leaseUntil" = NULL,
       "held" = $4
     WHERE "id" = $3 AND "state" = 'failed'`,
    [now, new Date(now.getTime() + RETRY_WINDOW_MS), id, held],
  )
  return changed === 1
}

/** Deliveries not yet delivered nor failed, and the time of the oldest one's event (metrics). */
export async function undeliveredSummary(db: SqlRunner): Promise<{ count: number; oldest: Date | null }> {
  const [row] = await db.all<{ count: number | string; oldest: Date | null }>(
    `SELECT COUNT(*) AS "count", MIN("createdAt") AS "oldest" FROM "WebhookDelivery" WHERE "state" = 'pending'`,
  )
  const oldest = row?.oldest ?? null
  return { count: Number(row?.count ?? 0), oldest: oldest === null ? null : new Date(oldest) }
}

/**
 * Retention (docs/webhooks.md): deletes up to `take` failed deliveries whose last attempt was before `failedCutoff`,
 * then up to `take` events older than `cutoff` none of whose deliveries is pending or failed, with their
 * deliveries. The numbers deleted.
 */
export async function deleteOldWebhookRows(
  tx: SqlRunner,
  input: { cutoff: Date; failedCutoff: Date; take: number },
): Promise<{ deliveries: number; events: number }> {
  const deliveries = await tx.run(
    `DELETE FROM "WebhookDelivery" WHERE "id" IN (
       SELECT "id" FROM "WebhookDelivery" WHERE "state" = 'failed' AND "lastAttemptAt" < $1 ORDER BY "lastAttemptAt" ASC LIMIT $2)`,
    [input.failedCutoff, input.take],
  )
  const events = await tx.all<{ id: string }>(
    `SELECT e."id" FROM "WebhookEvent" e WHERE e."createdAt" < $1
       AND NOT EXISTS (SELECT 1 FROM "WebhookDelivery" d WHERE d."eventId" = e."id" AND d."state" <> 'delivered')
     ORDER BY e."createdAt" ASC LIMIT $2`,
    [input.cutoff, input.take],
  )
  if (events.length === 0) return { deliveries, events: 0 }
  const list = events.map((_, i) => `$${i + 1}`).join(', ')
  const ids = events.map((e) => e.id)
  await tx.run(`DELETE FROM "WebhookDelivery" WHERE "eventId" IN (${list})`, ids)
  return { deliveries, events: await tx.run(`DELETE FROM "WebhookEvent" WHERE "id" IN (${list})`, ids) }
}
