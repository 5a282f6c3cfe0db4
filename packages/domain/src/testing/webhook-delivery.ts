import type { Deps } from '../protocol/deps'
import { openStore } from '../kernel/db/store'
import { databaseUrl } from './test-db'
import { TEST_CLIENT, type TestDeps } from './deps'
import { newId } from '../kernel/secrets'
import { recordEvent } from '../protocol/events/outbox.repo'
import { newWebhookSecret } from '../operator/webhook/webhook-signing'
import type { WebhookEventType } from '../protocol/events/event-types'

// Webhook delivery tests: endpoints arranged with plain SQL (the management use cases have tests of their own),
// events recorded through the outbox as a use case records them, and a fake `fetch` that stands for the receiver.

export interface TestEndpoint {
  id: string
  url: string
  secret: string
}

/** An endpoint subscribed to `eventTypes` (grant.revoked by default), enabled unless `disabled`. */
export async function addWebhookEndpoint(
  t: Pick<TestDeps, 'sql' | 'clock'>,
  opts: {
    url?: string
    eventTypes?: readonly WebhookEventType[]
    secret?: string
    previousSecret?: string
    previousSecretUntil?: Date
    disabled?: boolean
  } = {},
): Promise<TestEndpoint> {
  const id = newId()
  const url = opts.url ?? `https://hooks.example/${id}`
  const secret = opts.secret ?? newWebhookSecret()
  await t.sql.run(
    `INSERT INTO "WebhookEndpoint" ("id", "url", "secret", "previousSecret", "previousSecretUntil", "disabledAt", "createdBy", "createdAt", "updatedAt")
     VALUES ($1, $2, $3, $4, $5, $6, 'admin-1', $7, $7)`,
    [id, url, secret, opts.previousSecret ?? null, opts.previousSecretUntil ?? null, opts.disabled ? t.clock.now : null, t.clock.now],
  )
  for (const type of opts.eventTypes ?? ['grant.revoked']) {
    await t.sql.run(`INSERT INTO "WebhookSubscription" ("endpointId", "eventType") VALUES ($1, $2)`, [id, type])
  }
  return { id, url, secret }
}

/** recordEvent for a test that has subscribed an endpoint first: the event's id, and a failure when nothing was written. */
export async function recordEventOrFail(...args: Parameters<typeof recordEvent>): Promise<string> {
  const id = await recordEvent(...args)
  if (id === null) throw new Error(`no enabled endpoint receives ${args[1].type}: nothing was written`)
  return id
}

/** Records a `grant.revoked` event of `grantId` in a transaction of its own, at the fake clock's time; its event id. */
export function recordGrantRevoked(t: Pick<TestDeps, 'sql' | 'clock'>, grantId: string): Promise<string> {
  return t.sql.transaction((tx) =>
    recordEventOrFail(
      tx,
      {
        type: 'grant.revoked',
        grantId,
        data: { grant: { id: grantId, client: { wallet_address: TEST_CLIENT }, access: [] }, revoked_tokens: 1, actor: { type: 'client' } },
      },
      t.clock.now,
    ),
  )
}

/** One request the fake receiver got. */
export interface ReceivedRequest {
  url: string
  method: string
  headers: Record<string, string>
  body: string
  redirect: RequestRedirect | undefined
  signal: AbortSignal | undefined
  /** The `webhook-id` header: the event id. */
  eventId: string
}

export type Answer = (request: ReceivedRequest) => Response | Promise<Response>

/** A `fetch` that records every request and answers with `answer` (200 by default). */
export function fakeReceiver(answer: Answer = () => new Response('ok')): { fetch: typeof fetch; received: ReceivedRequest[] } {
  const received: ReceivedRequest[] = []
  const fakeFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (typeof init?.body !== 'string') throw new Error('the webhook body is not a string')
    const headers = Object.fromEntries(new Headers(init.headers).entries())
    const request: ReceivedRequest = {
      url: input instanceof Request ? input.url : String(input),
      method: init.method ?? 'GET',
      headers,
      body: init.body,
      redirect: init.redirect,
      signal: init.signal ?? undefined,
      eventId: headers['webhook-id'] ?? '',
    }
    received.push(request)
    return answer(request)
  }
  return { fetch: fakeFetch as typeof fetch, received }
}

/**
 * A second store on the test's own database (a second server instance): its own PostgreSQL pool, or its own SQLite
 * connection to the same file. Deps over it, and `close`.
 */
export async function openSecondInstance(t: Pick<TestDeps, 'deps' | 'db' | 'provider'>): Promise<{ deps: Deps; close(): Promise<void> }> {
  let url: string
  if (t.provider === 'postgresql') {
    const admin = process.env.TEST_DATABASE_URL
    if (!admin) throw new Error('a PostgreSQL test database without TEST_DATABASE_URL')
    const [row] = await t.db.$queryRawUnsafe<{ name: string }[]>(`SELECT current_database()::text AS name`)
    url = databaseUrl(admin, row!.name)
  } else {
    const rows = await t.db.$queryRawUnsafe<{ name: string; file: string }[]>(`PRAGMA database_list`)
    url = `file:${rows.find((r) => r.name === 'main')!.file}`
  }
  const store = await openStore(url)
  return { deps: { ...t.deps, sql: store.sql, reads: store.reads }, close: () => store.close() }
}
