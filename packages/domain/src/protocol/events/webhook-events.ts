import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import { AccessItemSchema, type AccessItem } from '../access/access.wire'
import { thumbprintOfClient } from '../client/client-instance'
import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES, type WebhookEventType } from './event-types'

// The events the server tells webhook endpoints of (docs/webhooks.md): their types, who caused them, and the JSON
// body each is sent as. Pure: the outbox (outbox.repo.ts) stores what `eventBody` builds.
//
// A body carries ids, access items, an actor and a time; never a token value, a continuation token, an interact_ref
// or a secret. The schemas below are strict, and the outbox parses every body with them before storing it, so a
// field that is not listed here cannot be written.

export { WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE, type WebhookEventType } from './event-types'

export const WebhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES)

/**
 * Who caused the change: the client instance (its own request), the resource owner (consent, `/account`), an
 * administrator in the console, a back end with an API key, a tenant's API secret on the Admin API (docs/admin-api.md),
 * or retention (the server's own timekeeping: an interaction that ran out). `id` names them where there is an id: an
 * owner's or administrator's id, an API key's id, the signing tenant's id; a client is named by the `client` of the body.
 */
export const ActorSchema = z.strictObject({
  type: z.enum(['client', 'owner', 'administrator', 'api_key', 'admin_api', 'retention']),
  id: z.string().optional(),
})
export type EventActor = z.infer<typeof ActorSchema>

/** A client instance: by its wallet address, or for a directed identity by its key's RFC 7638 thumbprint. */
export const EventClientSchema = z.union([z.strictObject({ wallet_address: z.string() }), z.strictObject({ key_thumbprint: z.string() })])
export type EventClient = z.infer<typeof EventClientSchema>

/** The client as a grant stores it (a wallet address, or a thumbprint URI) in an event's words. */
export function eventClient(storedClient: string): EventClient {
  const thumbprint = thumbprintOfClient(storedClient)
  return thumbprint === null ? { wallet_address: storedClient } : { key_thumbprint: thumbprint }
}

const GrantPartSchema = z.strictObject({
  id: z.string(),
  client: EventClientSchema,
  /** The access items exactly as the grant request wrote them (auth-server.yaml `access`). */
  access: z.array(AccessItemSchema),
})

const TokenPartSchema = z.strictObject({
  /** The token's management id: the last segment of its `manage` URI. Never its value. */
  manage_id: z.string(),
})

const time = z.iso.datetime()

/** An event's data: its own fields, then who caused it (`actor`). */
const eventData = <Shape extends z.ZodRawShape>(shape: Shape) => z.strictObject({ ...shape, actor: ActorSchema })

/** The `data` of each event type. */
export const EVENT_DATA_SCHEMAS = {
  'grant.approved': eventData({ grant: GrantPartSchema }),
  'grant.rejected': eventData({ grant: GrantPartSchema }),
  'grant.issued': eventData({
    grant: GrantPartSchema,
    /** The grant's first token; absent for a grant that asked only for a subject. */
    access_token: TokenPartSchema.optional(),
  }),
  /** `revoked_tokens`: how many live tokens were revoked with it. */
  'grant.revoked': eventData({ grant: GrantPartSchema, revoked_tokens: z.number().int().min(0) }),
  'grant.expired': eventData({ grant: GrantPartSchema }),
  'access_token.rotated': eventData({
    grant: GrantPartSchema,
    /** The token that was replaced, and its successor. */
    access_token: TokenPartSchema,
    previous_access_token: TokenPartSchema,
  }),
  'access_token.revoked': eventData({ grant: GrantPartSchema, access_token: TokenPartSchema }),
  /** `revoked_grants`: the grants revoked by the block; each also has its own grant.revoked event. */
  'client.blocked': eventData({ client: EventClientSchema, revoked_grants: z.number().int().min(0) }),
  'client.unblocked': eventData({ client: EventClientSchema }),
  'subject.confirmed': eventData({
    grant: GrantPartSchema,
    /** The subject identifiers the owner confirmed and the client received (auth-server.yaml `sub_ids`). */
    sub_ids: z.array(z.strictObject({ id: z.string(), format: z.string() })),
  }),
  [TEST_EVENT_TYPE]: eventData({ endpoint_id: z.string() }),
} as const satisfies Record<WebhookEventType | typeof TEST_EVENT_TYPE, z.ZodType>

export type AnyEventType = keyof typeof EVENT_DATA_SCHEMAS
export type EventData<T extends AnyEventType> = z.input<(typeof EVENT_DATA_SCHEMAS)[T]>

/**
 * The body of one event: `id` is also the `webhook-id` header, the key receivers deduplicate on. `tenant_id`: the
 * tenant the event belongs to (docs/webhooks.md, docs/protocol.md §2.21), absent for the implicit tenant of a server
 * without tenants and for events of no one tenant (client blocks).
 */
export function eventBodySchema<T extends AnyEventType>(type: T) {
  return BODY_SCHEMAS[type]
}

function buildBodySchema<T extends AnyEventType>(type: T) {
  return z.strictObject({ id: z.string(), type: z.literal(type), timestamp: time, tenant_id: z.string().optional(), data: EVENT_DATA_SCHEMAS[type] })
}

/** Each type's body schema, built once when the module loads: an event on the write path only parses (docs/benchmark.md). */
const BODY_SCHEMAS = Object.fromEntries((Object.keys(EVENT_DATA_SCHEMAS) as AnyEventType[]).map((type) => [type, buildBodySchema(type)])) as {
  [T in AnyEventType]: ReturnType<typeof buildBodySchema<T>>
}

export interface EventBody {
  id: string
  type: AnyEventType
  timestamp: string
  tenant_id?: string
  data: unknown
}

/**
 * Builds and checks one event's body. Throws when the data has a member its type does not list: a secret cannot
 * reach the outbox through a careless spread.
 */
export function eventBody<T extends AnyEventType>(id: string, type: T, at: Date, data: EventData<T>, tenantId: string | null = null): EventBody {
  const tenant = tenantId === null ? {} : { tenant_id: tenantId }
  return eventBodySchema(type).parse({ id, type, timestamp: at.toISOString(), ...tenant, data }) as EventBody
}

/** The part of an event about a grant. */
export const grantPart = (grant: { id: string; client: string }, access: readonly AccessItem[]) => ({
  id: grant.id,
  client: eventClient(grant.client),
  access: [...access],
})

let lastMs = 0
let counter = 0

/**
 * An event id that sorts by creation within a process: `evt_`, the milliseconds and a counter in hex, then random
 * bits. Events of one grant are ordered by their time, then by this id (outbox.repo.ts).
 */
export function newEventId(): string {
  const ms = Date.now()
  if (ms === lastMs) counter += 1
  else {
    lastMs = ms
    counter = 0
  }
  return `evt_${ms.toString(16).padStart(12, '0')}${(counter & 0xffffff).toString(16).padStart(6, '0')}${randomBytes(8).toString('hex')}`
}

/** An administrator, an API key or a tenant's API secret (the Admin API), as events name them. */
export const consoleEventActor = (actor: { kind: 'admin' | 'apiKey' | 'adminApi'; id: string }): EventActor =>
  actor.kind === 'admin'
    ? { type: 'administrator', id: actor.id }
    : actor.kind === 'apiKey'
      ? { type: 'api_key', id: actor.id }
      : { type: 'admin_api', id: actor.id }
