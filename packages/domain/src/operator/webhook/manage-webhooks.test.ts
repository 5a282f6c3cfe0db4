import { describe, expect, it } from 'vitest'
import type { ConsoleActor } from '../admin/roles'
import { createLogger } from '../../kernel/log'
import { databaseText } from '../../testing/deps'
import { useTestDeps } from '../../testing/use-test-deps'
import { recordEvent, type NewEvent } from '../../protocol/events/outbox.repo'
import { WEBHOOK_SECRET_SHAPE } from './webhook-signing'
import type { z } from 'zod'
import {
  CreateWebhookEndpointInputSchema,
  DEFAULT_SECRET_OVERLAP_HOURS,
  ListWebhookDeliveriesInputSchema,
  RotateWebhookSecretInputSchema,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  MAX_WEBHOOK_ENDPOINTS,
  replayDelivery,
  rotateWebhookSecret,
  sendTestEvent,
  setWebhookEndpointEnabled,
  updateWebhookEndpoint,
  type HostResolver,
} from './manage-webhooks'

// Endpoint management (docs/webhooks.md): the rules for URLs, the secret shown once, rotation with an overlap, the
// delivery log and replay, and an audit entry for every change, with no secret in it. Host names resolve through a
// table here: the tests never use the network.

// Production settings (testConfig's defaults): https only, no private network allowed.
const t = useTestDeps()

const ADMIN: ConsoleActor = { kind: 'admin', id: 'admin-1', label: 'ops@example.com', role: 'admin', tenantId: null }
const PUBLIC_HOST = 'hooks.example.com'
const PUBLIC_URL = `https://${PUBLIC_HOST}/gnap`

/** A resolver answering from a table; a name not in it does not resolve. */
const dns =
  (table: Record<string, string[]> = {}): HostResolver =>
  (hostname) => {
    const addresses = { [PUBLIC_HOST]: ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'], ...table }[hostname]
    return addresses
      ? Promise.resolve(addresses)
      : Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }))
  }

/** As the router calls it: the input parsed by the procedure's schema first, then the use case. */
const create = async (input: Partial<z.input<typeof CreateWebhookEndpointInputSchema>> = {}, resolve = dns()) =>
  createWebhookEndpoint(
    t.deps,
    { ...CreateWebhookEndpointInputSchema.parse({ url: PUBLIC_URL, eventTypes: ['grant.revoked'], ...input }), actor: ADMIN },
    resolve,
  )

const audit = () =>
  t.db.auditLog.findMany({ orderBy: [{ createdAt: 'asc' }, { action: 'asc' }], select: { actor: true, action: true, target: true, detail: true } })

const grantRevoked = (grantId: string): NewEvent<'grant.revoked'> => ({
  type: 'grant.revoked',
  grantId,
  data: {
    grant: { id: grantId, client: { wallet_address: 'https://wallet.example/app' }, access: [] },
    revoked_tokens: 1,
    actor: { type: 'client' },
  },
})

const record = async (event: Parameters<typeof recordEvent>[1]) => (await t.sql.transaction((tx) => recordEvent(tx, event, t.clock.now)))!
const deliveriesTo = (endpointId: string) => t.db.webhookDelivery.findMany({ where: { endpointId }, include: { event: true } })

async function fail(deliveryId: string) {
  await t.sql.run(
    `UPDATE "WebhookDelivery" SET "state" = 'failed', "attempts" = 9, "lastStatus" = 500, "lastError" = 'the endpoint answered 500', "lastAttemptAt" = $2 WHERE "id" = $1`,
    [deliveryId, t.clock.now],
  )
}

describe('createWebhookEndpoint', () => {
  it('answers the signing secret once; no read returns it again, and only the endpoint row stores it', async () => {
    const { endpoint, secret } = await create({ description: '  Billing service ', eventTypes: ['grant.revoked', 'grant.approved'] })
    expect(secret).toMatch(/^whsec_/)
    expect(secret).toMatch(WEBHOOK_SECRET_SHAPE)
    expect(endpoint).toEqual({
      id: expect.any(String),
      url: PUBLIC_URL,
      description: 'Billing service',
      eventTypes: ['grant.approved', 'grant.revoked'],
      tenantId: null,
      enabled: true,
      createdBy: 'ops@example.com',
      createdAt: t.clock.now,
      updatedAt: t.clock.now,
      previousSecretUntil: null,
      counts: { pending: 0, delivered: 0, failed: 0 },
    })
    const reads = [await listWebhookEndpoints(t.deps), await getWebhookEndpoint(t.deps, { id: endpoint.id })]
    expect(reads[0]).toEqual([endpoint])
    expect(reads[1]).toEqual(endpoint)
    expect(JSON.stringify(reads)).not.toContain(secret)
    expect(JSON.stringify(reads)).not.toContain(secret.slice('whsec_'.length))
    expect(await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).toMatchObject({ secret, previousSecret: null })
    expect(await audit()).toEqual([
      {
        actor: 'ops@example.com',
        action: 'webhook.create',
        target: `webhook:${endpoint.id}`,
        detail: `${PUBLIC_URL} (grant.approved, grant.revoked)`,
      },
    ])
    expect((await databaseText(t)).split(secret).length).toBe(2)
  })

  it('gives each endpoint its own secret', async () => {
    const a = await create()
    const b = await create()
    expect(a.secret).not.toBe(b.secret)
    expect(a.endpoint.id).not.toBe(b.endpoint.id)
  })

  it('subscribes to the event types given: an event fans out to the endpoints subscribed to its type only', async () => {
    const revoked = await create({ eventTypes: ['grant.revoked'] })
    const approved = await create({ eventTypes: ['grant.approved', 'client.blocked'] })
    await record(grantRevoked('grant-1'))
    expect(await deliveriesTo(revoked.endpoint.id)).toHaveLength(1)
    expect(await deliveriesTo(approved.endpoint.id)).toHaveLength(0)
    expect((await getWebhookEndpoint(t.deps, { id: revoked.endpoint.id })).counts).toEqual({ pending: 1, delivered: 0, failed: 0 })
  })

  it.each([
    ['plain http', 'http://hooks.example.com/gnap', /https/],
    ['loopback', 'https://127.0.0.1/gnap', /127\.0\.0\.1 is not a public address/],
    ['loopback in another spelling', 'https://2130706433/gnap', /127\.0\.0\.1 is not a public address/],
    ['a private network', 'https://10.0.0.5/gnap', /10\.0\.0\.5 is not a public address/],
    ['IPv6 loopback', 'https://[::1]:8443/gnap', /\[::1\] is not a public address/],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/gnap', /is not a public address/],
    ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data', /169\.254\.169\.254 is not a public address/],
    ['a name resolving to a private address', 'https://intranet.example.com/gnap', /intranet\.example\.com resolves to 192\.168\.1\.2/],
    ['a name with one private address among public ones', 'https://mixed.example.com/gnap', /resolves to 10\.1\.2\.3/],
    ['a name that does not resolve', 'https://nowhere.example.com/gnap', /could not be resolved/],
    ['a user name and password', 'https://user:pass@hooks.example.com/gnap', /user name or password/],
    ['a fragment', 'https://hooks.example.com/gnap#x', /fragment/],
    ['another scheme', 'ftp://hooks.example.com/gnap', /https/],
    ['no URL at all', 'hooks.example.com/gnap', /not valid/],
  ])('refuses %s in production, writing nothing', async (_name, url, message) => {
    const resolve = dns({ 'intranet.example.com': ['192.168.1.2'], 'mixed.example.com': ['93.184.215.14', '10.1.2.3'] })
    await expect(create({ url }, resolve)).rejects.toMatchObject({ code: 'bad_request', message: expect.stringMatching(message) })
    expect(await t.db.webhookEndpoint.count()).toBe(0)
    expect(await t.db.auditLog.count()).toBe(0)
  })

  it('takes a public address or name in production, in the URL parser’s normal form', async () => {
    expect((await create({ url: 'https://93.184.215.14/in' })).endpoint.url).toBe('https://93.184.215.14/in')
    expect((await create({ url: 'https://HOOKS.example.com' })).endpoint.url).toBe('https://hooks.example.com/')
  })

  it('takes plain http to this machine when loopback is allowed (a local start), and still refuses the others', async () => {
    await t.reset({ config: { webhookAllowHttp: false, webhookAllowedNetworks: ['127.0.0.0/8', '::1/128'] } })
    const local = dns({ localhost: ['127.0.0.1', '::1'] })
    expect((await create({ url: 'http://127.0.0.1:9000/hook' })).endpoint.url).toBe('http://127.0.0.1:9000/hook')
    expect((await create({ url: 'http://[::1]:9000/hook' })).endpoint.url).toBe('http://[::1]:9000/hook')
    expect((await create({ url: 'http://localhost:9000/hook' }, local)).endpoint.url).toBe('http://localhost:9000/hook')
    await expect(create({ url: 'http://10.0.0.5/hook' })).rejects.toMatchObject({ code: 'bad_request', message: expect.stringMatching(/https/) })
    await expect(create({ url: 'http://169.254.169.254/' })).rejects.toMatchObject({ code: 'bad_request' })
    await t.reset({ config: { webhookAllowHttp: false, webhookAllowedNetworks: [] } })
    await expect(create({ url: 'http://127.0.0.1:9000/hook' })).rejects.toMatchObject({ code: 'bad_request' })
  })

  it('takes plain http off loopback only with ALLOW_HTTP_WEBHOOKS, and only to an allowed address', async () => {
    await t.reset({ config: { webhookAllowHttp: true, webhookAllowedNetworks: ['10.0.0.0/8'] } })
    expect((await create({ url: 'http://10.0.0.5/hook' })).endpoint.url).toBe('http://10.0.0.5/hook')
    await expect(create({ url: 'http://192.168.1.2/hook' })).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/not a public/),
    })
  })

  it('refuses a long description, no event type, an unknown or repeated one, and a URL over 2048 characters', async () => {
    await expect(create({ description: 'x'.repeat(201) })).rejects.toThrow('200')
    await expect(create({ eventTypes: [] })).rejects.toThrow('at least one')
    await expect(create({ eventTypes: ['grant.revoked', 'grant.revoked'] })).rejects.toThrow('once')
    await expect(create({ eventTypes: ['webhook.test' as never] })).rejects.toThrow()
    await expect(create({ url: `${PUBLIC_URL}/${'a'.repeat(2048)}` })).rejects.toThrow('2048')
    expect((await create({ description: 'x'.repeat(200) })).endpoint.description).toHaveLength(200)
    expect(await t.db.webhookEndpoint.count()).toBe(1)
  })

  it(`allows at most ${MAX_WEBHOOK_ENDPOINTS} endpoints`, async () => {
    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS; i++) await create()
    await expect(create()).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('delete one first') })
    expect(await t.db.webhookEndpoint.count()).toBe(MAX_WEBHOOK_ENDPOINTS)
  })

  it(`keeps to ${MAX_WEBHOOK_ENDPOINTS} when creations race: of ten at once for the last place, one is made`, async () => {
    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS - 1; i++) await create()
    // On PostgreSQL, ten connections open beforehand, so the ten transactions overlap rather than wait to connect.
    if (t.provider === 'postgresql') await Promise.all(Array.from({ length: 10 }, () => t.sql.transaction((tx) => tx.all('SELECT pg_sleep(0.05)'))))
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => create()))
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1)
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toMatchObject({ code: 'conflict' })
    expect(await t.db.webhookEndpoint.count()).toBe(MAX_WEBHOOK_ENDPOINTS)
  })
})

describe('updateWebhookEndpoint', () => {
  it('changes the fields given, replaces the event types, and audits what changed', async () => {
    const { endpoint } = await create({ description: 'old' })
    t.clock.advance(60)
    const changed = await updateWebhookEndpoint(
      t.deps,
      { id: endpoint.id, url: 'https://hooks.example.com/v2', eventTypes: ['client.blocked', 'grant.issued'], actor: ADMIN },
      dns(),
    )
    expect(changed).toMatchObject({
      url: 'https://hooks.example.com/v2',
      description: 'old',
      eventTypes: ['grant.issued', 'client.blocked'],
      updatedAt: t.clock.now,
    })
    await record(grantRevoked('grant-1'))
    expect(await deliveriesTo(endpoint.id)).toHaveLength(0)
    t.clock.advance(60)
    expect(await updateWebhookEndpoint(t.deps, { id: endpoint.id, description: 'new', actor: ADMIN })).toMatchObject({ description: 'new' })
    expect((await audit()).slice(1)).toEqual([
      {
        actor: 'ops@example.com',
        action: 'webhook.update',
        target: `webhook:${endpoint.id}`,
        detail: 'URL https://hooks.example.com/v2; event types grant.issued, client.blocked',
      },
      { actor: 'ops@example.com', action: 'webhook.update', target: `webhook:${endpoint.id}`, detail: 'description' },
    ])
  })

  it('writes nothing when nothing changes, refuses a URL the rules refuse, and answers not_found for an unknown id', async () => {
    const { endpoint } = await create()
    await updateWebhookEndpoint(t.deps, { id: endpoint.id, url: PUBLIC_URL, eventTypes: ['grant.revoked'], actor: ADMIN }, dns())
    await expect(updateWebhookEndpoint(t.deps, { id: endpoint.id, url: 'https://10.0.0.5/', actor: ADMIN })).rejects.toMatchObject({
      code: 'bad_request',
    })
    expect(await getWebhookEndpoint(t.deps, { id: endpoint.id })).toEqual(endpoint)
    expect(await t.db.auditLog.count()).toBe(1)
    for (const id of [crypto.randomUUID(), 'not-an-id']) {
      await expect(updateWebhookEndpoint(t.deps, { id, description: 'x', actor: ADMIN })).rejects.toMatchObject({ code: 'not_found' })
      await expect(getWebhookEndpoint(t.deps, { id })).rejects.toMatchObject({ code: 'not_found' })
    }
  })
})

describe('setWebhookEndpointEnabled', () => {
  it('stops new deliveries while disabled, audits each change and nothing for the state it already has', async () => {
    const { endpoint } = await create()
    expect(await setWebhookEndpointEnabled(t.deps, { id: endpoint.id, enabled: false, actor: ADMIN })).toMatchObject({ enabled: false })
    expect(await setWebhookEndpointEnabled(t.deps, { id: endpoint.id, enabled: false, actor: ADMIN })).toMatchObject({ enabled: false })
    await record(grantRevoked('grant-1'))
    expect(await deliveriesTo(endpoint.id)).toHaveLength(0)
    await expect(sendTestEvent(t.deps, { id: endpoint.id, actor: ADMIN })).rejects.toMatchObject({ code: 'conflict' })
    t.clock.advance(1)
    expect(await setWebhookEndpointEnabled(t.deps, { id: endpoint.id, enabled: true, actor: ADMIN })).toMatchObject({ enabled: true })
    await record(grantRevoked('grant-2'))
    expect(await deliveriesTo(endpoint.id)).toHaveLength(1)
    expect((await audit()).map((e) => [e.action, e.detail])).toEqual([
      ['webhook.create', `${PUBLIC_URL} (grant.revoked)`],
      ['webhook.disable', PUBLIC_URL],
      ['webhook.enable', PUBLIC_URL],
    ])
    await expect(setWebhookEndpointEnabled(t.deps, { id: crypto.randomUUID(), enabled: true, actor: ADMIN })).rejects.toMatchObject({
      code: 'not_found',
    })
  })
})

describe('rotateWebhookSecret', () => {
  it('answers a new secret once and keeps the previous one until the overlap ends', async () => {
    const { endpoint, secret: first } = await create()
    t.clock.advance(60)
    const { endpoint: rotated, secret } = await rotateWebhookSecret(t.deps, {
      id: endpoint.id,
      overlapHours: DEFAULT_SECRET_OVERLAP_HOURS,
      actor: ADMIN,
    })
    expect(secret).toMatch(WEBHOOK_SECRET_SHAPE)
    expect(secret).not.toBe(first)
    const until = new Date(t.clock.now.getTime() + 24 * 3_600_000)
    expect(rotated).toMatchObject({ previousSecretUntil: until, updatedAt: t.clock.now })
    expect(await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).toMatchObject({
      secret,
      previousSecret: first,
      previousSecretUntil: until,
    })
    t.clock.advance(24 * 3600)
    expect((await getWebhookEndpoint(t.deps, { id: endpoint.id })).previousSecretUntil).toBeNull()

    const third = await rotateWebhookSecret(t.deps, { id: endpoint.id, overlapHours: 2, actor: ADMIN })
    expect(await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).toMatchObject({
      secret: third.secret,
      previousSecret: secret,
    })
    const fourth = await rotateWebhookSecret(t.deps, { id: endpoint.id, overlapHours: 0, actor: ADMIN })
    expect(await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).toMatchObject({
      secret: fourth.secret,
      previousSecret: null,
      previousSecretUntil: null,
    })
    expect(fourth.endpoint.previousSecretUntil).toBeNull()

    const entries = await audit()
    expect(entries.map((e) => [e.action, e.detail])).toEqual([
      ['webhook.create', `${PUBLIC_URL} (grant.revoked)`],
      ['webhook.rotate-secret', `the previous secret signs too until ${until.toISOString()} (24 h)`],
      ['webhook.rotate-secret', `the previous secret signs too until ${new Date(t.clock.now.getTime() + 2 * 3_600_000).toISOString()} (2 h)`],
      ['webhook.rotate-secret', 'the previous secret stopped at once'],
    ])
    for (const s of [first, secret, third.secret, fourth.secret]) expect(JSON.stringify(entries)).not.toContain(s.slice('whsec_'.length, 20))
  })

  it('refuses an overlap outside 0 to 168 hours and an unknown endpoint', async () => {
    const { endpoint, secret } = await create()
    for (const overlapHours of [-1, 169, 1.5]) {
      expect(RotateWebhookSecretInputSchema.safeParse({ id: endpoint.id, overlapHours }).success).toBe(false)
    }
    expect(await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).toMatchObject({ secret })
    await rotateWebhookSecret(t.deps, { id: endpoint.id, overlapHours: 168, actor: ADMIN })
    await expect(rotateWebhookSecret(t.deps, { id: crypto.randomUUID(), overlapHours: 0, actor: ADMIN })).rejects.toMatchObject({ code: 'not_found' })
  })
})

describe('deleteWebhookEndpoint', () => {
  it('removes the endpoint with its event types and deliveries, audited; the next delete is not_found', async () => {
    const { endpoint } = await create()
    const other = await create()
    await record(grantRevoked('grant-1'))
    await deleteWebhookEndpoint(t.deps, { id: endpoint.id, actor: ADMIN })
    expect(await t.db.webhookEndpoint.findMany({ select: { id: true } })).toEqual([{ id: other.endpoint.id }])
    expect(await t.db.webhookSubscription.count({ where: { endpointId: endpoint.id } })).toBe(0)
    expect(await deliveriesTo(endpoint.id)).toHaveLength(0)
    expect(await deliveriesTo(other.endpoint.id)).toHaveLength(1)
    expect((await audit()).at(-1)).toEqual({
      actor: 'ops@example.com',
      action: 'webhook.delete',
      target: `webhook:${endpoint.id}`,
      detail: `${PUBLIC_URL} (1 pending deliveries dropped)`,
    })
    await expect(deleteWebhookEndpoint(t.deps, { id: endpoint.id, actor: ADMIN })).rejects.toMatchObject({ code: 'not_found' })
    await expect(listWebhookDeliveries(t.deps, ListWebhookDeliveriesInputSchema.parse({ endpointId: endpoint.id }))).rejects.toMatchObject({
      code: 'not_found',
    })
  })
})

describe('sendTestEvent', () => {
  it('records one webhook.test event delivered to that endpoint only, whatever its event types', async () => {
    const { endpoint } = await create({ eventTypes: ['client.blocked'] })
    const other = await create({ eventTypes: ['client.blocked'] })
    const { eventId } = await sendTestEvent(t.deps, { id: endpoint.id, actor: ADMIN })
    const [delivery] = await deliveriesTo(endpoint.id)
    expect(await t.db.webhookDelivery.count()).toBe(1)
    expect(delivery).toMatchObject({ eventId, state: 'pending', attempts: 0, nextAttemptAt: t.clock.now })
    expect(delivery?.event.type).toBe('webhook.test')
    expect(JSON.parse(delivery!.event.payload)).toEqual({
      id: eventId,
      type: 'webhook.test',
      timestamp: t.clock.now.toISOString(),
      data: { endpoint_id: endpoint.id, actor: { type: 'administrator', id: 'admin-1' } },
    })
    expect(await deliveriesTo(other.endpoint.id)).toHaveLength(0)
    expect((await audit()).at(-1)).toEqual({
      actor: 'ops@example.com',
      action: 'webhook.test',
      target: `webhook:${endpoint.id}`,
      detail: `event ${eventId}`,
    })
    await expect(sendTestEvent(t.deps, { id: crypto.randomUUID(), actor: ADMIN })).rejects.toMatchObject({ code: 'not_found' })
  })

  it('names an API key as the actor of its test event', async () => {
    const { endpoint } = await create()
    await sendTestEvent(t.deps, {
      id: endpoint.id,
      actor: { kind: 'apiKey', id: '0123456789abcdef', label: 'api key "ops"', role: 'admin', tenantId: null },
    })
    const [delivery] = await deliveriesTo(endpoint.id)
    expect(JSON.parse(delivery!.event.payload)).toMatchObject({ data: { actor: { type: 'api_key', id: '0123456789abcdef' } } })
  })
})

describe('listWebhookDeliveries', () => {
  it('pages the log newest event first with each event’s type and grant, by state too, and counts each state', async () => {
    const { endpoint } = await create({ eventTypes: ['grant.revoked', 'client.unblocked'] })
    const eventIds: string[] = []
    for (let i = 0; i < 7; i++) {
      // Two events at each instant: the page order breaks ties by event id.
      eventIds.push(await record(grantRevoked(`grant-${i}`)))
      eventIds.push(
        await record({
          type: 'client.unblocked',
          orderKey: 'client:x',
          data: { client: { wallet_address: 'https://wallet.example/app' }, actor: { type: 'administrator', id: 'admin-1' } },
        }),
      )
      t.clock.advance(10)
    }
    const newestFirst = [...eventIds].reverse()
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const page = await listWebhookDeliveries(t.deps, { endpointId: endpoint.id, limit: 3, cursor })
      seen.push(...page.items.map((d) => d.eventId))
      cursor = page.nextCursor
      pages++
    } while (cursor)
    expect(seen).toEqual(newestFirst)
    expect(pages).toBe(5)

    const { items } = await listWebhookDeliveries(t.deps, { endpointId: endpoint.id, limit: 2 })
    expect(items[0]).toEqual({
      id: expect.any(String),
      eventId: newestFirst[0],
      eventType: 'client.unblocked',
      grantId: null,
      state: 'pending',
      attempts: 0,
      lastStatus: null,
      lastError: null,
      lastAttemptAt: null,
      nextAttemptAt: new Date(t.clock.now.getTime() - 10_000),
      deliveredAt: null,
      createdAt: new Date(t.clock.now.getTime() - 10_000),
    })
    expect(items[1]).toMatchObject({ eventType: 'grant.revoked', grantId: 'grant-6' })

    const all = await t.db.webhookDelivery.findMany({ where: { endpointId: endpoint.id } })
    const failed = all.filter((d) => [eventIds[1], eventIds[4], eventIds[9]].includes(d.eventId))
    for (const d of failed) await fail(d.id)
    const failedPage = await listWebhookDeliveries(t.deps, { endpointId: endpoint.id, state: 'failed', limit: 2 })
    expect(failedPage.items.map((d) => d.eventId)).toEqual([eventIds[9], eventIds[4]])
    expect(failedPage.items[0]).toMatchObject({
      state: 'failed',
      attempts: 9,
      lastStatus: 500,
      lastError: 'the endpoint answered 500',
      nextAttemptAt: null,
    })
    const rest = await listWebhookDeliveries(
      t.deps,
      ListWebhookDeliveriesInputSchema.parse({ endpointId: endpoint.id, state: 'failed', cursor: failedPage.nextCursor }),
    )
    expect(rest).toEqual({ items: [expect.objectContaining({ eventId: eventIds[1] })], nextCursor: null })
    expect((await getWebhookEndpoint(t.deps, { id: endpoint.id })).counts).toEqual({ pending: 11, delivered: 0, failed: 3 })
    expect((await listWebhookEndpoints(t.deps))[0]?.counts).toEqual({ pending: 11, delivered: 0, failed: 3 })

    // A cursor belongs to its filter.
    await expect(
      listWebhookDeliveries(t.deps, ListWebhookDeliveriesInputSchema.parse({ endpointId: endpoint.id, cursor: failedPage.nextCursor })),
    ).rejects.toMatchObject({
      code: 'bad_request',
    })
    await expect(
      listWebhookDeliveries(t.deps, ListWebhookDeliveriesInputSchema.parse({ endpointId: endpoint.id, cursor: 'garbage' })),
    ).rejects.toMatchObject({ code: 'bad_request' })
    expect(ListWebhookDeliveriesInputSchema.safeParse({ endpointId: endpoint.id, limit: 101 }).success).toBe(false)
  })
})

describe('replayDelivery', () => {
  it('makes a failed delivery pending and due now with a new retry window, audited; only a failed one', async () => {
    const { endpoint } = await create()
    await record(grantRevoked('grant-1'))
    await record(grantRevoked('grant-2'))
    const [first, second] = await t.db.webhookDelivery.findMany({ orderBy: { eventId: 'asc' } })
    await fail(first!.id)
    await t.sql.run(`UPDATE "WebhookDelivery" SET "state" = 'delivered', "deliveredAt" = $2 WHERE "id" = $1`, [second!.id, t.clock.now])
    t.clock.advance(3600)

    const replayed = await replayDelivery(t.deps, { deliveryId: first!.id, actor: ADMIN })
    expect(replayed).toMatchObject({ id: first!.id, state: 'pending', attempts: 0, lastStatus: 500, nextAttemptAt: t.clock.now, grantId: 'grant-1' })
    expect(await t.db.webhookDelivery.findUniqueOrThrow({ where: { id: first!.id } })).toMatchObject({
      giveUpAt: new Date(t.clock.now.getTime() + 24 * 3_600_000),
      leaseOwner: null,
    })
    expect((await audit()).at(-1)).toEqual({
      actor: 'ops@example.com',
      action: 'webhook.replay',
      target: `webhook:${endpoint.id}`,
      detail: `delivery ${first!.id} of grant.revoked event ${first!.eventId}`,
    })

    await expect(replayDelivery(t.deps, { deliveryId: first!.id, actor: ADMIN })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('is pending'),
    })
    await expect(replayDelivery(t.deps, { deliveryId: second!.id, actor: ADMIN })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('is delivered'),
    })
    for (const deliveryId of [crypto.randomUUID(), 'nope']) {
      await expect(replayDelivery(t.deps, { deliveryId, actor: ADMIN })).rejects.toMatchObject({ code: 'not_found' })
    }
    expect(await t.db.auditLog.count({ where: { action: 'webhook.replay' } })).toBe(1)
  })
})

describe('the audit log and the logs', () => {
  it('never carry a signing secret', async () => {
    const lines: string[] = []
    const deps = { ...t.deps, log: createLogger('debug', { write: (line: string) => void lines.push(line) }) }
    const made = await createWebhookEndpoint(deps, { url: PUBLIC_URL, description: 'x', eventTypes: ['grant.revoked'], actor: ADMIN }, dns())
    const secrets = [made.secret]
    await updateWebhookEndpoint(deps, { id: made.endpoint.id, description: 'y', actor: ADMIN })
    secrets.push((await rotateWebhookSecret(deps, { id: made.endpoint.id, overlapHours: DEFAULT_SECRET_OVERLAP_HOURS, actor: ADMIN })).secret)
    await sendTestEvent(deps, { id: made.endpoint.id, actor: ADMIN })
    await setWebhookEndpointEnabled(deps, { id: made.endpoint.id, enabled: false, actor: ADMIN })
    await deleteWebhookEndpoint(deps, { id: made.endpoint.id, actor: ADMIN })
    const text = JSON.stringify(await t.db.auditLog.findMany()) + lines.join('\n')
    expect(lines.length).toBe(6)
    for (const s of secrets) {
      expect(text).not.toContain(s)
      expect(text).not.toContain(s.slice('whsec_'.length, 26))
    }
  })
})
