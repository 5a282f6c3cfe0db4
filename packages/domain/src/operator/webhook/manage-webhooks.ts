import { lookup } from 'node:dns/promises'
import { z } from 'zod'
import type { Deps } from '../../protocol/deps'
import type { GnapConfig } from '../../kernel/config/config'
import { insertAuditEntry, type AuditAction } from '../audit/audit.repo'
import { ConsoleError } from '../admin/console-error'
import { decodeCursor, encodeCursor } from '../admin/page-cursor'
import type { ConsoleActor } from '../admin/roles'
import { isAllowedAddress, parseIpAddress, parseNetwork } from '../../kernel/net/outbound-address'
import type { SqlRunner } from '../../kernel/db/sql'
import { isId, newId } from '../../kernel/secrets'
import { WEBHOOK_EVENT_TYPES } from '../../protocol/events/event-types'
import { consoleEventActor, WebhookEventTypeSchema } from '../../protocol/events/webhook-events'
import {
  CreateWebhookEndpointInputSchema,
  DescriptionSchema,
  EventTypesSchema,
  MAX_WEBHOOK_DESCRIPTION_LENGTH,
  MAX_WEBHOOK_URL_LENGTH,
  UrlSchema,
} from './webhook-input'
import { newWebhookSecret } from './webhook-signing'
import { isAllowedWebhookScheme } from './webhook-url'
import { recordTestEvent, replayFailedDelivery } from '../../protocol/events/outbox.repo'
import { tenantForNewRow } from '../tenant-choice'
import {
  countWebhookEndpoints,
  holdEndpointCreation,
  deleteWebhookEndpointRow,
  deliveryCountsByEndpoint,
  findDeliveryLogRow,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  listDeliveryLogRows,
  listWebhookEndpointRows,
  replaceSubscriptions,
  rotateWebhookEndpointSecret,
  setWebhookEndpointDisabledAt,
  subscriptionsByEndpoint,
  updateWebhookEndpointRow,
  type DeliveryCounts,
  type DeliveryLogRow,
  type DeliveryState,
  type WebhookEndpointRow,
} from './webhook-endpoint.repo'

// Webhook endpoints in the console and the operator API (docs/webhooks.md): `admin` creates, changes, enables and
// disables, rotates the secret of, deletes and tests endpoints and replays failed deliveries; every role reads them
// and their delivery log. Each change writes its audit entry in its own transaction. The signing secret is in the
// answers of create and rotate only: no read returns it, and no audit entry or log line names it.

/** At most this many endpoints: each event is one delivery per subscribed endpoint. */
export const MAX_WEBHOOK_ENDPOINTS = 50
export { CreateWebhookEndpointInputSchema, MAX_WEBHOOK_DESCRIPTION_LENGTH, MAX_WEBHOOK_URL_LENGTH }
/** How long an endpoint's host name may take to resolve when it is saved. */
export const WEBHOOK_RESOLVE_TIMEOUT_MS = 5_000
export const DEFAULT_SECRET_OVERLAP_HOURS = 24
export const MAX_SECRET_OVERLAP_HOURS = 168
export const DELIVERY_PAGE_DEFAULT = 50
export const DELIVERY_PAGE_MAX = 100

export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const satisfies readonly DeliveryState[]

const EndpointIdSchema = z.string().trim().min(1).max(64)
/** Only the fields given change; `eventTypes` replaces the whole list. */
export const UpdateWebhookEndpointInputSchema = z.strictObject({
  id: EndpointIdSchema,
  url: UrlSchema.optional(),
  description: DescriptionSchema.optional(),
  eventTypes: EventTypesSchema.optional(),
})

export const SetWebhookEndpointEnabledInputSchema = z.strictObject({ id: EndpointIdSchema, enabled: z.boolean() })

export const RotateWebhookSecretInputSchema = z.strictObject({
  id: EndpointIdSchema,
  /** How long the old secret still signs deliveries beside the new one, so receivers can switch without a gap. */
  overlapHours: z.number().int().min(0).max(MAX_SECRET_OVERLAP_HOURS).default(DEFAULT_SECRET_OVERLAP_HOURS),
})

export const WebhookEndpointIdInputSchema = z.strictObject({ id: EndpointIdSchema })

export const ListWebhookDeliveriesInputSchema = z.strictObject({
  endpointId: EndpointIdSchema,
  state: z.enum(DELIVERY_STATES).optional(),
  /** The previous page's `nextCursor`. */
  cursor: z.string().max(512).nullish(),
  limit: z.number().int().min(1).max(DELIVERY_PAGE_MAX).default(DELIVERY_PAGE_DEFAULT),
})

export const ReplayWebhookDeliveryInputSchema = z.strictObject({ deliveryId: z.string().trim().min(1).max(64) })

/** An endpoint as the console shows it: never its secret. */
export interface WebhookEndpointView {
  id: string
  url: string
  description: string
  /** In the order of WEBHOOK_EVENT_TYPES. */
  eventTypes: string[]
  /** The one tenant whose events it receives (docs/webhooks.md); null: every tenant's. */
  tenantId: string | null
  enabled: boolean
  createdBy: string
  createdAt: Date
  updatedAt: Date
  /** While a rotated-out secret still signs deliveries: until when; null otherwise. */
  previousSecretUntil: Date | null
  counts: DeliveryCounts
}

/** One delivery in an endpoint's log. */
export interface WebhookDeliveryView {
  id: string
  eventId: string
  eventType: string
  grantId: string | null
  state: DeliveryState
  attempts: number
  /** The HTTP status of the last answer; null when none came (refused, no connection, timeout). */
  lastStatus: number | null
  /** Why the last attempt failed, in words safe to show. */
  lastError: string | null
  lastAttemptAt: Date | null
  /** When the next attempt is due: only while pending. */
  nextAttemptAt: Date | null
  deliveredAt: Date | null
  createdAt: Date
}

export interface WebhookDeliveryPage {
  items: WebhookDeliveryView[]
  nextCursor: string | null
}

/** Resolves a host name to its addresses (every one). Tests pass their own: they never use the network. */
export type HostResolver = (hostname: string) => Promise<string[]>

/** node's resolver (getaddrinfo, as the delivery's own connection uses), given up after WEBHOOK_RESOLVE_TIMEOUT_MS. */
export const resolveHost: HostResolver = async (hostname) => {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${WEBHOOK_RESOLVE_TIMEOUT_MS / 1000} s`)), WEBHOOK_RESOLVE_TIMEOUT_MS)
    timer.unref()
  })
  try {
    return (await Promise.race([lookup(hostname, { all: true }), timeout])).map((a) => a.address)
  } finally {
    clearTimeout(timer)
  }
}

const refused = (message: string) => new ConsoleError('bad_request', message)
const NOT_PUBLIC = 'is not a public address and not in WEBHOOK_ALLOWED_NETWORKS'

/**
 * The URL as it will be stored and called, after the endpoint rules (docs/webhooks.md): an absolute http(s) URL
 * without user name, password or fragment, https unless plain http is allowed (webhook-url.ts), and a host that
 * is, or whose every address is, a public unicast address or inside WEBHOOK_ALLOWED_NETWORKS. The delivery checks
 * the addresses again at every attempt (guarded-fetch.ts): a name that resolves elsewhere later is refused then.
 * @throws ConsoleError bad_request, saying what is wrong
 */
export async function checkWebhookUrl(
  config: Pick<GnapConfig, 'webhookAllowHttp' | 'webhookAllowedNetworks'>,
  text: string,
  resolve: HostResolver,
): Promise<string> {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw refused('the URL is not valid: write it in full, e.g. https://hooks.example.com/gnap')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refused('the URL must start with https://')
  if (!isAllowedWebhookScheme(url, config.webhookAllowHttp))
    throw refused('the URL must use https: plain http is allowed only to this machine (localhost), or with ALLOW_HTTP_WEBHOOKS')
  if (url.username !== '' || url.password !== '')
    throw refused('the URL must not carry a user name or password: receivers check the signature instead')
  if (text.includes('#')) throw refused('the URL must not have a fragment (the part from #)')
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) throw refused(`the URL is too long: at most ${MAX_WEBHOOK_URL_LENGTH} characters`)

  const allowed = config.webhookAllowedNetworks.map(parseNetwork)
  // The URL parser has already written an IP address in its normal form (127.1 and 2130706433 are 127.0.0.1).
  const literal = parseIpAddress(url.hostname)
  if (literal !== null) {
    if (!isAllowedAddress(literal, allowed)) throw refused(`the address ${url.hostname} ${NOT_PUBLIC}`)
    return url.href
  }
  let addresses: string[]
  try {
    addresses = await resolve(url.hostname)
  } catch {
    throw refused(`the host ${url.hostname} could not be resolved: check its name`)
  }
  if (addresses.length === 0) throw refused(`the host ${url.hostname} could not be resolved: check its name`)
  // Every address, not just the first: a connection may use any of them.
  for (const a of addresses) {
    const address = parseIpAddress(a)
    if (address === null || !isAllowedAddress(address, allowed)) throw refused(`the host ${url.hostname} resolves to ${a}, which ${NOT_PUBLIC}`)
  }
  return url.href
}

const byTypeOrder = (a: string, b: string) =>
  (WEBHOOK_EVENT_TYPES as readonly string[]).indexOf(a) - (WEBHOOK_EVENT_TYPES as readonly string[]).indexOf(b)

function endpointView(row: WebhookEndpointRow, eventTypes: readonly string[], counts: DeliveryCounts | undefined, now: Date): WebhookEndpointView {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    eventTypes: [...eventTypes].sort(byTypeOrder),
    tenantId: row.tenantId,
    enabled: row.disabledAt === null,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    previousSecretUntil: row.previousSecretUntil !== null && row.previousSecretUntil > now ? row.previousSecretUntil : null,
    counts: counts ?? { pending: 0, delivered: 0, failed: 0 },
  }
}

/**
 * Whether the caller may see and manage an endpoint: a key bound to a tenant, only the endpoints bound to that tenant
 * (docs/webhooks.md). Not rowsOfTenant's rule: an unbound endpoint receives every tenant's events, so it is no one
 * tenant's, not even the operator tenant's.
 */
const endpointVisibleTo = (actor: ConsoleActor | undefined, row: { tenantId: string | null }) =>
  !actor || actor.tenantId === null || row.tenantId === actor.tenantId

/** One endpoint's view read through `db` (the transaction that changed it); null when unknown or not the caller's to see. */
async function readEndpoint(db: SqlRunner, id: string, now: Date, actor: ConsoleActor | undefined): Promise<WebhookEndpointView | null> {
  if (!isId(id)) return null
  const row = await findWebhookEndpoint(db, id)
  if (!row || !endpointVisibleTo(actor, row)) return null
  const types = await subscriptionsByEndpoint(db, id)
  const counts = await deliveryCountsByEndpoint(db, id)
  return endpointView(row, types.get(id) ?? [], counts.get(id), now)
}

/** @throws ConsoleError not_found, for an unknown endpoint or one bound to another tenant than the caller's */
async function requireEndpoint(db: SqlRunner, id: string, now: Date, actor: ConsoleActor | undefined): Promise<WebhookEndpointView> {
  const view = await readEndpoint(db, id, now, actor)
  if (!view) throw new ConsoleError('not_found', 'unknown webhook endpoint')
  return view
}

function deliveryView(row: DeliveryLogRow): WebhookDeliveryView {
  const state: DeliveryState = (DELIVERY_STATES as readonly string[]).includes(row.state) ? (row.state as DeliveryState) : 'pending'
  return {
    id: row.id,
    eventId: row.eventId,
    eventType: row.eventType,
    grantId: row.grantId,
    state,
    attempts: row.attempts,
    lastStatus: row.lastStatus,
    lastError: row.lastError,
    lastAttemptAt: row.lastAttemptAt,
    nextAttemptAt: state === 'pending' ? row.nextAttemptAt : null,
    deliveredAt: row.deliveredAt,
    createdAt: row.createdAt,
  }
}

/** A URL in an audit entry: the whole of it up to a length the log keeps. */
const auditUrl = (url: string) => (url.length > 300 ? `${url.slice(0, 300)}…` : url)
const typesText = (types: readonly string[]) => [...types].sort(byTypeOrder).join(', ')
const target = (id: string) => `webhook:${id}`

/** An endpoint change's audit entry: it names the endpoint's tenant when it is bound to one (docs/protocol.md §2.15). */
async function audit(
  tx: SqlRunner,
  actor: ConsoleActor,
  action: AuditAction,
  endpoint: { id: string; tenantId: string | null },
  detail: string,
  now: Date,
): Promise<void> {
  await insertAuditEntry(tx, { actor: actor.label, action, target: target(endpoint.id), detail, now, tenantId: endpoint.tenantId })
}

/**
 * Creates an endpoint receiving `eventTypes`, enabled, with a new signing secret: the answer carries the secret
 * once; no read returns it again.
 * The input is parsed by the router's `.input()` (CreateWebhookEndpointInputSchema), not again here.
 * @throws ConsoleError bad_request for a URL the rules refuse, conflict past
 *   MAX_WEBHOOK_ENDPOINTS endpoints
 */
export async function createWebhookEndpoint(
  deps: Deps,
  input: z.output<typeof CreateWebhookEndpointInputSchema> & { actor: ConsoleActor },
  resolve: HostResolver = resolveHost,
): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
  const { url, description, eventTypes } = input
  // Resolved before the transaction: no network I/O while it holds the database.
  const href = await checkWebhookUrl(deps.config, url, resolve)
  const tenantId = await tenantForNewRow(deps.sql, input.actor, input.tenantId)
  const id = newId()
  const secret = newWebhookSecret()
  const now = deps.clock()
  const endpoint = await deps.sql.transaction(async (tx) => {
    await holdEndpointCreation(tx, deps.sql.dialect)
    if ((await countWebhookEndpoints(tx)) >= MAX_WEBHOOK_ENDPOINTS) {
      throw new ConsoleError('conflict', `there are already ${MAX_WEBHOOK_ENDPOINTS} endpoints, the most allowed: delete one first`)
    }
    await insertWebhookEndpoint(tx, { id, url: href, description: description ?? '', secret, createdBy: input.actor.label, now, tenantId })
    await replaceSubscriptions(tx, id, eventTypes)
    const bound = tenantId === null ? '' : `, tenant ${tenantId}`
    await audit(tx, input.actor, 'webhook.create', { id, tenantId }, `${auditUrl(href)} (${typesText(eventTypes)}${bound})`, now)
    return requireEndpoint(tx, id, now, input.actor)
  })
  deps.log.info({ endpointId: id, eventTypes, by: input.actor.kind, subjectId: input.actor.id }, 'webhook endpoint created')
  return { endpoint, secret }
}

/**
 * Changes an endpoint's URL, description or event types (the fields given). Its pending deliveries go to the new
 * URL. A call that changes nothing writes nothing.
 * The input is parsed by the router's `.input()` (UpdateWebhookEndpointInputSchema), not again here.
 * @throws ConsoleError not_found, bad_request for a URL the rules refuse
 */
export async function updateWebhookEndpoint(
  deps: Deps,
  input: z.output<typeof UpdateWebhookEndpointInputSchema> & { actor: ConsoleActor },
  resolve: HostResolver = resolveHost,
): Promise<WebhookEndpointView> {
  const parsed = input
  const href = parsed.url === undefined ? undefined : await checkWebhookUrl(deps.config, parsed.url, resolve)
  const now = deps.clock()
  const { view, changed } = await deps.sql.transaction(async (tx) => {
    const before = await requireEndpoint(tx, parsed.id, now, input.actor)
    const changes: string[] = []
    const url = href ?? before.url
    const description = parsed.description ?? before.description
    if (url !== before.url) changes.push(`URL ${auditUrl(url)}`)
    if (description !== before.description) changes.push('description')
    const types = parsed.eventTypes ? [...parsed.eventTypes].sort(byTypeOrder) : before.eventTypes
    const typesChanged = types.join() !== before.eventTypes.join()
    if (typesChanged) changes.push(`event types ${typesText(types)}`)
    if (changes.length === 0) return { view: before, changed: false }
    await updateWebhookEndpointRow(tx, parsed.id, { url, description, now })
    if (typesChanged) await replaceSubscriptions(tx, parsed.id, types)
    await audit(tx, input.actor, 'webhook.update', before, changes.join('; '), now)
    return { view: await requireEndpoint(tx, parsed.id, now, input.actor), changed: true }
  })
  if (changed) deps.log.info({ endpointId: parsed.id, by: input.actor.kind, subjectId: input.actor.id }, 'webhook endpoint changed')
  return view
}

/**
 * Enables or disables an endpoint. While disabled it gets no deliveries of new events, and its pending deliveries
 * wait (their retry window runs on); enabling it sends them. Setting the state it already has writes nothing.
 * @throws ConsoleError not_found
 */
export async function setWebhookEndpointEnabled(
  deps: Deps,
  input: z.output<typeof SetWebhookEndpointEnabledInputSchema> & { actor: ConsoleActor },
): Promise<WebhookEndpointView> {
  const { id, enabled } = input
  const now = deps.clock()
  const { view, changed } = await deps.sql.transaction(async (tx) => {
    const before = await requireEndpoint(tx, id, now, input.actor)
    if (!(await setWebhookEndpointDisabledAt(tx, id, enabled ? null : now, now))) return { view: before, changed: false }
    await audit(tx, input.actor, enabled ? 'webhook.enable' : 'webhook.disable', before, auditUrl(before.url), now)
    return { view: await requireEndpoint(tx, id, now, input.actor), changed: true }
  })
  if (changed) deps.log.info({ endpointId: id, enabled, by: input.actor.kind, subjectId: input.actor.id }, 'webhook endpoint enabled or disabled')
  return view
}

/**
 * Gives an endpoint a new signing secret, in the answer only. For `overlapHours` the secret it replaces still
 * signs deliveries beside the new one (each carries both signatures), so the receiver can switch without losing
 * one; 0 drops it at once. A secret still in the overlap of an earlier rotation is dropped.
 * The input is RotateWebhookSecretInputSchema's output: the router's `.input()` has refused an overlap outside 0..168 hours.
 * @throws ConsoleError not_found
 */
export async function rotateWebhookSecret(
  deps: Deps,
  input: z.output<typeof RotateWebhookSecretInputSchema> & { actor: ConsoleActor },
): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
  const { id, overlapHours } = input
  const now = deps.clock()
  const secret = newWebhookSecret()
  const previousUntil = overlapHours === 0 ? null : new Date(now.getTime() + overlapHours * 3_600_000)
  const endpoint = await deps.sql.transaction(async (tx) => {
    const before = await requireEndpoint(tx, id, now, input.actor)
    await rotateWebhookEndpointSecret(tx, id, { secret, previousUntil, now })
    const detail = previousUntil
      ? `the previous secret signs too until ${previousUntil.toISOString()} (${overlapHours} h)`
      : 'the previous secret stopped at once'
    await audit(tx, input.actor, 'webhook.rotate-secret', before, detail, now)
    return requireEndpoint(tx, id, now, input.actor)
  })
  deps.log.info({ endpointId: id, overlapHours, by: input.actor.kind, subjectId: input.actor.id }, 'webhook secret rotated')
  return { endpoint, secret }
}

/**
 * Deletes an endpoint with its subscriptions and its deliveries, pending ones included (they are not sent).
 * @throws ConsoleError not_found
 */
export async function deleteWebhookEndpoint(deps: Deps, input: { id: string; actor: ConsoleActor }): Promise<{ id: string }> {
  const { id } = input
  const now = deps.clock()
  await deps.sql.transaction(async (tx) => {
    const before = await requireEndpoint(tx, id, now, input.actor)
    await deleteWebhookEndpointRow(tx, id)
    const { pending } = before.counts
    await audit(tx, input.actor, 'webhook.delete', before, `${auditUrl(before.url)}${pending ? ` (${pending} pending deliveries dropped)` : ''}`, now)
  })
  deps.log.info({ endpointId: id, by: input.actor.kind, subjectId: input.actor.id }, 'webhook endpoint deleted')
  return { id }
}

/**
 * "Send a test event": a `webhook.test` event delivered to this endpoint only, whatever its event types, through
 * the same queue, signature and retries as every other event.
 * @throws ConsoleError not_found, conflict for a disabled endpoint (its delivery would wait until it is enabled)
 */
export async function sendTestEvent(deps: Deps, input: { id: string; actor: ConsoleActor }): Promise<{ eventId: string }> {
  const { id } = input
  const now = deps.clock()
  const eventId = await deps.sql.transaction(async (tx) => {
    const endpoint = await requireEndpoint(tx, id, now, input.actor)
    if (!endpoint.enabled) throw new ConsoleError('conflict', 'the endpoint is disabled: enable it to send a test event')
    const eventId = await recordTestEvent(tx, id, { endpoint_id: id, actor: consoleEventActor(input.actor) }, now, endpoint.tenantId)
    await audit(tx, input.actor, 'webhook.test', endpoint, `event ${eventId}`, now)
    return eventId
  })
  deps.log.info({ endpointId: id, eventId, by: input.actor.kind, subjectId: input.actor.id }, 'webhook test event recorded')
  return { eventId }
}

/**
 * Every endpoint, oldest first, with its event types and the count of its deliveries by state; for a key bound to a
 * tenant, the endpoints bound to that tenant.
 */
export async function listWebhookEndpoints(deps: Deps, input: { actor?: ConsoleActor } = {}): Promise<WebhookEndpointView[]> {
  const now = deps.clock()
  const rows = await listWebhookEndpointRows(deps.sql, input.actor?.tenantId ?? null)
  const types = await subscriptionsByEndpoint(deps.sql)
  const counts = await deliveryCountsByEndpoint(deps.sql)
  return rows.map((r) => endpointView(r, types.get(r.id) ?? [], counts.get(r.id), now))
}

/**
 * One endpoint.
 * @throws ConsoleError not_found
 */
export async function getWebhookEndpoint(deps: Deps, input: { id: string; actor?: ConsoleActor }): Promise<WebhookEndpointView> {
  const { id } = input
  return requireEndpoint(deps.sql, id, deps.clock(), input.actor)
}

/** Cursors of one ordering and state filter only (page-cursor.ts). */
const deliveryOrdering = (state: DeliveryState | undefined) => `webhook-deliveries:${state ?? 'all'}`

/**
 * An endpoint's delivery log, newest event first, optionally of one state, in keyset pages.
 * @throws ConsoleError not_found for an unknown endpoint, bad_request for a cursor of another filter
 */
export async function listWebhookDeliveries(
  deps: Deps,
  { endpointId, state, cursor, limit, actor }: z.output<typeof ListWebhookDeliveriesInputSchema> & { actor?: ConsoleActor },
): Promise<WebhookDeliveryPage> {
  const ordering = deliveryOrdering(state)
  const position = cursor ? decodeCursor(ordering, cursor) : null
  const endpoint = isId(endpointId) ? await findWebhookEndpoint(deps.sql, endpointId) : null
  if (!endpoint || !endpointVisibleTo(actor, endpoint)) throw new ConsoleError('not_found', 'unknown webhook endpoint')
  const rows = await listDeliveryLogRows(deps.sql, {
    endpointId,
    state: state ?? null,
    after: position ? { createdAt: position.value, eventId: position.id } : null,
    take: limit + 1,
  })
  const items = rows.slice(0, limit).map(deliveryView)
  const last = items.at(-1)
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(ordering, { value: last.createdAt, id: last.eventId }) : null }
}

/**
 * Sends a failed delivery again: pending, due now, with a new retry window and its attempts counted from 0 again
 * (outbox.repo.ts); the last attempt's status and error stay shown until the next attempt.
 * @throws ConsoleError not_found, conflict when it is not failed (pending or delivered)
 */
export async function replayDelivery(deps: Deps, input: { deliveryId: string; actor: ConsoleActor }): Promise<WebhookDeliveryView> {
  const { deliveryId } = input
  const now = deps.clock()
  const row = await deps.sql.transaction(async (tx) => {
    const before = isId(deliveryId) ? await findDeliveryLogRow(tx, deliveryId) : null
    // A delivery of another tenant's endpoint is as unknown as one that does not exist.
    const endpoint = before ? await readEndpoint(tx, before.endpointId, now, input.actor) : null
    if (!before || !endpoint) throw new ConsoleError('not_found', 'unknown webhook delivery')
    if (!(await replayFailedDelivery(tx, deliveryId, now))) {
      throw new ConsoleError('conflict', `only a failed delivery can be replayed: this one is ${before.state}`)
    }
    await audit(tx, input.actor, 'webhook.replay', endpoint, `delivery ${deliveryId} of ${before.eventType} event ${before.eventId}`, now)
    return (await findDeliveryLogRow(tx, deliveryId))!
  })
  deps.log.info(
    { endpointId: row.endpointId, deliveryId, eventId: row.eventId, by: input.actor.kind, subjectId: input.actor.id },
    'webhook delivery replayed',
  )
  return deliveryView(row)
}
