import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import superjson from 'superjson'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { TestDeps } from '@gnap/domain/testing'
import { handleRestRequest, openApiDocument } from '../src/rest'
import { adminCaller, apiKeyCaller, apiTestDeps, expectTrpcError } from './support'

// Webhook endpoints in the console and the operator API (docs/webhooks.md): admin manages them, every role reads them
// and their delivery log, the signing secret is in the answers of create and rotateSecret only, and every change is
// audited under its actor. Endpoint URLs here are address literals: names would be resolved through the network.
let t: TestDeps
beforeEach(async () => {
  t = await apiTestDeps()
})
afterEach(async () => {
  await t.cleanup()
})

const URL_A = 'https://93.184.215.14/gnap'
const URL_B = 'https://93.184.215.15/v2'

/** Marks every delivery of the endpoint failed, as the worker does when its retries are over. */
async function failAll(endpointId: string) {
  await t.sql.run(
    `UPDATE "WebhookDelivery" SET "state" = 'failed', "attempts" = 14, "lastStatus" = 502, "lastError" = 'the endpoint answered 502', "lastAttemptAt" = $2 WHERE "endpointId" = $1`,
    [endpointId, t.clock.now],
  )
}

describe('webhooks in the console', () => {
  it('lets an admin add, change, disable, rotate, test, read, replay and delete an endpoint, each change audited', async () => {
    const { caller } = await adminCaller(t)
    const created = await caller.webhooks.create({ url: URL_A, description: 'Billing', eventTypes: ['grant.revoked', 'access_token.revoked'] })
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    const id = created.endpoint.id
    expect(created.endpoint).toMatchObject({
      url: URL_A,
      description: 'Billing',
      eventTypes: ['grant.revoked', 'access_token.revoked'],
      enabled: true,
      createdBy: 'ops@example.com',
      counts: { pending: 0, delivered: 0, failed: 0 },
    })
    expect(await caller.webhooks.list()).toEqual({ items: [created.endpoint] })
    expect(await caller.webhooks.byId({ id })).toEqual(created.endpoint)

    expect(await caller.webhooks.update({ id, url: URL_B, eventTypes: ['grant.approved'] })).toMatchObject({
      url: URL_B,
      eventTypes: ['grant.approved'],
    })
    expect(await caller.webhooks.setEnabled({ id, enabled: false })).toMatchObject({ enabled: false })
    await expectTrpcError(caller.webhooks.sendTest({ id }), 'CONFLICT')
    expect(await caller.webhooks.setEnabled({ id, enabled: true })).toMatchObject({ enabled: true })

    const rotated = await caller.webhooks.rotateSecret({ id })
    expect(rotated.secret).not.toBe(created.secret)
    expect(rotated.endpoint.previousSecretUntil).toEqual(new Date(t.clock.now.getTime() + 24 * 3_600_000))

    const { eventId } = await caller.webhooks.sendTest({ id })
    const page = await caller.webhooks.deliveries({ endpointId: id })
    expect(page).toEqual({
      items: [
        {
          id: expect.any(String),
          eventId,
          eventType: 'webhook.test',
          grantId: null,
          state: 'pending',
          attempts: 0,
          lastStatus: null,
          lastError: null,
          lastAttemptAt: null,
          nextAttemptAt: t.clock.now,
          deliveredAt: null,
          createdAt: t.clock.now,
        },
      ],
      nextCursor: null,
    })
    const deliveryId = page.items[0]!.id
    await expectTrpcError(caller.webhooks.replay({ deliveryId }), 'CONFLICT')
    await failAll(id)
    expect(await caller.webhooks.deliveries({ endpointId: id, state: 'failed' })).toMatchObject({
      items: [{ id: deliveryId, state: 'failed', attempts: 14, lastStatus: 502, lastError: 'the endpoint answered 502', nextAttemptAt: null }],
    })
    expect((await caller.webhooks.byId({ id })).counts).toEqual({ pending: 0, delivered: 0, failed: 1 })
    expect(await caller.webhooks.replay({ deliveryId })).toMatchObject({ id: deliveryId, state: 'pending', nextAttemptAt: t.clock.now })

    expect(await caller.webhooks.delete({ id })).toEqual({ id })
    await expectTrpcError(caller.webhooks.byId({ id }), 'NOT_FOUND')
    expect(await caller.webhooks.list()).toEqual({ items: [] })

    const entries = await t.db.auditLog.findMany({ where: { action: { startsWith: 'webhook.' } }, orderBy: { id: 'asc' } })
    expect(entries.map((e) => e.action).sort()).toEqual(
      [
        'webhook.create',
        'webhook.update',
        'webhook.disable',
        'webhook.enable',
        'webhook.rotate-secret',
        'webhook.test',
        'webhook.replay',
        'webhook.delete',
      ].sort(),
    )
    for (const e of entries) expect(e).toMatchObject({ actor: 'ops@example.com', target: `webhook:${id}` })
    const audit = superjson.stringify(await caller.audit.list({ filters: { action: { value: 'webhook.', match: 'prefix' } } }))
    for (const secret of [created.secret, rotated.secret]) expect(audit).not.toContain(secret.slice('whsec_'.length))
  })

  it('answers NOT_FOUND for unknown ids, BAD_REQUEST for refused URLs and bad input, writing nothing', async () => {
    const { caller } = await adminCaller(t)
    const unknown = crypto.randomUUID()
    await expectTrpcError(caller.webhooks.byId({ id: unknown }), 'NOT_FOUND')
    await expectTrpcError(caller.webhooks.update({ id: unknown, description: 'x' }), 'NOT_FOUND')
    await expectTrpcError(caller.webhooks.setEnabled({ id: unknown, enabled: false }), 'NOT_FOUND')
    await expectTrpcError(caller.webhooks.rotateSecret({ id: unknown }), 'NOT_FOUND')
    await expectTrpcError(caller.webhooks.sendTest({ id: unknown }), 'NOT_FOUND')
    await expectTrpcError(caller.webhooks.delete({ id: unknown }), 'NOT_FOUND')
    await expectTrpcError(caller.webhooks.deliveries({ endpointId: unknown }), 'NOT_FOUND')
    await expectTrpcError(caller.webhooks.replay({ deliveryId: unknown }), 'NOT_FOUND')
    for (const [url, message] of [
      ['http://93.184.215.14/gnap', /https/],
      ['https://10.0.0.5/gnap', /10\.0\.0\.5 is not a public address/],
      ['https://127.0.0.1/gnap', /not a public address/],
      ['https://[::1]/gnap', /not a public address/],
      ['https://169.254.169.254/', /not a public address/],
    ] as const) {
      const error = await expectTrpcError(caller.webhooks.create({ url, eventTypes: ['grant.revoked'] }), 'BAD_REQUEST')
      expect(error.message).toMatch(message)
    }
    await expectTrpcError(caller.webhooks.create({ url: URL_A, eventTypes: [] }), 'BAD_REQUEST')
    await expectTrpcError(caller.webhooks.create({ url: URL_A, eventTypes: ['grant.revoked'], description: 'x'.repeat(201) }), 'BAD_REQUEST')
    await expectTrpcError(caller.webhooks.create({ url: URL_A, eventTypes: ['webhook.test' as never] }), 'BAD_REQUEST')
    const { endpoint } = await caller.webhooks.create({ url: URL_A, eventTypes: ['grant.revoked'] })
    await expectTrpcError(caller.webhooks.rotateSecret({ id: endpoint.id, overlapHours: 169 }), 'BAD_REQUEST')
    await expectTrpcError(caller.webhooks.deliveries({ endpointId: endpoint.id, limit: 101 }), 'BAD_REQUEST')
    await expectTrpcError(caller.webhooks.deliveries({ endpointId: endpoint.id, cursor: 'not-a-cursor' }), 'BAD_REQUEST')
    expect(await t.db.webhookEndpoint.count()).toBe(1)
    expect(await t.db.auditLog.count({ where: { action: { startsWith: 'webhook.' } } })).toBe(1)
  })

  it('takes a loopback http endpoint outside production when its network is allowed', async () => {
    await t.cleanup()
    t = await apiTestDeps({ webhookAllowHttp: true, webhookAllowedNetworks: ['127.0.0.0/8'] })
    const { caller } = await adminCaller(t)
    await expect(caller.webhooks.create({ url: 'http://127.0.0.1:4010/hook', eventTypes: ['grant.revoked'] })).resolves.toMatchObject({
      endpoint: { url: 'http://127.0.0.1:4010/hook' },
    })
    await expectTrpcError(caller.webhooks.create({ url: 'http://10.0.0.5/hook', eventTypes: ['grant.revoked'] }), 'BAD_REQUEST')
  })

  it.each(['viewer', 'operator'] as const)('lets the %s role read endpoints and the log, and refuses every change FORBIDDEN', async (role) => {
    const admin = await adminCaller(t)
    const { endpoint } = await admin.caller.webhooks.create({ url: URL_A, eventTypes: ['grant.revoked'] })
    await admin.caller.webhooks.sendTest({ id: endpoint.id })
    await failAll(endpoint.id)
    const deliveryId = (await t.db.webhookDelivery.findFirstOrThrow()).id
    const { caller } = await adminCaller(t, role)
    expect((await caller.webhooks.list()).items).toHaveLength(1)
    expect(await caller.webhooks.byId({ id: endpoint.id })).toMatchObject({ id: endpoint.id })
    expect((await caller.webhooks.deliveries({ endpointId: endpoint.id })).items).toHaveLength(1)
    await expectTrpcError(caller.webhooks.create({ url: URL_B, eventTypes: ['grant.revoked'] }), 'FORBIDDEN')
    await expectTrpcError(caller.webhooks.update({ id: endpoint.id, description: 'mine' }), 'FORBIDDEN')
    await expectTrpcError(caller.webhooks.setEnabled({ id: endpoint.id, enabled: false }), 'FORBIDDEN')
    await expectTrpcError(caller.webhooks.rotateSecret({ id: endpoint.id }), 'FORBIDDEN')
    await expectTrpcError(caller.webhooks.sendTest({ id: endpoint.id }), 'FORBIDDEN')
    await expectTrpcError(caller.webhooks.replay({ deliveryId }), 'FORBIDDEN')
    await expectTrpcError(caller.webhooks.delete({ id: endpoint.id }), 'FORBIDDEN')
    expect(await t.db.webhookEndpoint.findMany({ select: { url: true, description: true, disabledAt: true } })).toEqual([
      { url: URL_A, description: '', disabledAt: null },
    ])
    expect(await t.db.webhookDelivery.findFirstOrThrow()).toMatchObject({ state: 'failed' })
  })

  it('lets an admin API key manage endpoints, audited under the key’s name', async () => {
    const { caller } = await apiKeyCaller(t, 'admin', 'provisioning')
    const { endpoint } = await caller.webhooks.create({ url: URL_A, eventTypes: ['client.blocked'] })
    await caller.webhooks.sendTest({ id: endpoint.id })
    const event = await t.db.webhookEvent.findFirstOrThrow()
    expect(JSON.parse(event.payload)).toMatchObject({ type: 'webhook.test', data: { endpoint_id: endpoint.id, actor: { type: 'api_key' } } })
    expect((await t.db.auditLog.findMany({ where: { action: { startsWith: 'webhook.' } } })).map((e) => [e.actor, e.action])).toEqual([
      ['api key "provisioning"', 'webhook.create'],
      ['api key "provisioning"', 'webhook.test'],
    ])
  })

  it('never answers the signing secret outside create and rotateSecret', async () => {
    const { caller } = await adminCaller(t)
    const created = await caller.webhooks.create({ url: URL_A, eventTypes: ['grant.revoked'] })
    const id = created.endpoint.id
    const rotated = await caller.webhooks.rotateSecret({ id, overlapHours: 48 })
    await caller.webhooks.sendTest({ id })
    const stored = await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id } })
    expect([stored.secret, stored.previousSecret]).toEqual([rotated.secret, created.secret])
    const outputs = [
      await caller.webhooks.list(),
      await caller.webhooks.byId({ id }),
      await caller.webhooks.update({ id, description: 'changed' }),
      await caller.webhooks.setEnabled({ id, enabled: false }),
      await caller.webhooks.deliveries({ endpointId: id }),
      await caller.audit.list({}),
    ]
    const text = superjson.stringify(outputs)
    for (const secret of [created.secret, rotated.secret]) {
      expect(text).not.toContain(secret)
      expect(text).not.toContain(secret.slice('whsec_'.length, 30))
    }
    expect(text).not.toContain('whsec_')
  })
})

describe('webhooks in the REST form', () => {
  const BASE = 'http://localhost/api/v1'
  const doc = openApiDocument(BASE)
  const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats(ajv)
  ajv.addSchema({ ...doc, $id: 'operator-api' })

  async function rest(method: 'GET' | 'POST', path: string, key: string, body?: unknown) {
    const res = await handleRestRequest(new Request(BASE + path, { method, headers: { authorization: `Bearer ${key}` } }), {
      deps: t.deps,
      basePath: '/api/v1',
      ip: null,
      body: body === undefined ? null : JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json()) as Record<string, unknown> }
  }

  /** Throws unless `body` is what the document promises for this operation and status. */
  function documented(path: string, method: string, res: { status: number; body: unknown }) {
    const pointer = `operator-api#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${res.status}/content/application~1json/schema`
    const check = ajv.getSchema(pointer)
    if (!check) throw new Error(`not documented: ${method} ${path} ${res.status}`)
    if (!check(res.body)) throw new Error(`${method} ${path} ${res.status}: ${ajv.errorsText(check.errors)}`)
  }

  it('documents every webhook operation, the secret only in create and rotate-secret', () => {
    const paths = doc.paths as Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>
    const ops = Object.entries(paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op.operationId] as const),
    )
    expect(ops.filter(([, id]) => id.startsWith('webhooks_'))).toEqual([
      ['GET /webhooks', 'webhooks_list'],
      ['POST /webhooks', 'webhooks_create'],
      ['GET /webhooks/{id}', 'webhooks_byId'],
      ['POST /webhooks/{id}/update', 'webhooks_update'],
      ['POST /webhooks/{id}/enabled', 'webhooks_setEnabled'],
      ['POST /webhooks/{id}/rotate-secret', 'webhooks_rotateSecret'],
      ['POST /webhooks/{id}/test', 'webhooks_sendTest'],
      ['POST /webhooks/{id}/delete', 'webhooks_delete'],
      ['POST /webhooks/{endpointId}/deliveries/search', 'webhooks_deliveries'],
      ['POST /webhook-deliveries/{deliveryId}/replay', 'webhooks_replay'],
    ])
    const withSecret = Object.entries(paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => JSON.stringify(op.responses['200']).includes('"secret"'))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    )
    expect(withSecret).toEqual(['POST /webhooks', 'POST /webhooks/{id}/rotate-secret'])
  })

  it('manages an endpoint with an admin key and reads it with a viewer key, every answer as documented', async () => {
    const { key } = await apiKeyCaller(t, 'admin', 'provisioning')
    const viewer = (await apiKeyCaller(t, 'viewer', 'dashboard')).key

    const created = await rest('POST', '/webhooks', key, { url: URL_A, eventTypes: ['grant.revoked'], description: 'Billing' })
    expect(created.status).toBe(200)
    documented('/webhooks', 'POST', created)
    const id = (created.body.endpoint as { id: string }).id
    expect(created.body.secret).toMatch(/^whsec_/)

    for (const [path, res] of [
      ['/webhooks', await rest('GET', '/webhooks', viewer)],
      ['/webhooks/{id}', await rest('GET', `/webhooks/${id}`, viewer)],
    ] as const) {
      expect(res.status, path).toBe(200)
      documented(path, 'GET', res)
      expect(JSON.stringify(res.body)).not.toContain('whsec_')
    }

    const steps: [string, string, unknown][] = [
      ['/webhooks/{id}/update', `/webhooks/${id}/update`, { description: 'Billing, v2', eventTypes: ['grant.revoked', 'grant.expired'] }],
      ['/webhooks/{id}/enabled', `/webhooks/${id}/enabled`, { enabled: false }],
      ['/webhooks/{id}/enabled', `/webhooks/${id}/enabled`, { enabled: true }],
      ['/webhooks/{id}/rotate-secret', `/webhooks/${id}/rotate-secret`, { overlapHours: 0 }],
      ['/webhooks/{id}/rotate-secret', `/webhooks/${id}/rotate-secret`, undefined],
      ['/webhooks/{id}/test', `/webhooks/${id}/test`, undefined],
    ]
    for (const [doc, path, body] of steps) {
      const res = await rest('POST', path, key, body)
      expect(res.status, path).toBe(200)
      documented(doc, 'POST', res)
    }
    expect(await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id } })).toMatchObject({ description: 'Billing, v2', disabledAt: null })

    const log = await rest('POST', `/webhooks/${id}/deliveries/search`, viewer, { limit: 10 })
    expect(log.status).toBe(200)
    documented('/webhooks/{endpointId}/deliveries/search', 'POST', log)
    const [delivery] = log.body.items as { id: string }[]
    const notFailed = await rest('POST', `/webhook-deliveries/${delivery!.id}/replay`, key)
    expect(notFailed).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT' } } })
    documented('/webhook-deliveries/{deliveryId}/replay', 'POST', notFailed)
    await failAll(id)
    const replayed = await rest('POST', `/webhook-deliveries/${delivery!.id}/replay`, key)
    expect(replayed).toMatchObject({ status: 200, body: { id: delivery!.id, state: 'pending' } })
    documented('/webhook-deliveries/{deliveryId}/replay', 'POST', replayed)

    const refused = await rest('POST', '/webhooks', viewer, { url: URL_B, eventTypes: ['grant.revoked'] })
    expect(refused).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } })
    const bad = await rest('POST', '/webhooks', key, { url: 'https://10.0.0.5/', eventTypes: ['grant.revoked'] })
    expect(bad).toMatchObject({ status: 400, body: { error: { code: 'BAD_REQUEST', message: expect.stringContaining('not a public address') } } })
    documented('/webhooks', 'POST', bad)

    const deleted = await rest('POST', `/webhooks/${id}/delete`, key)
    expect(deleted).toMatchObject({ status: 200, body: { id } })
    documented('/webhooks/{id}/delete', 'POST', deleted)
    const gone = await rest('GET', `/webhooks/${id}`, viewer)
    expect(gone).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } })
    documented('/webhooks/{id}', 'GET', gone)
    expect(await t.db.auditLog.count({ where: { action: { startsWith: 'webhook.' }, actor: 'api key "provisioning"' } })).toBe(9)
  })
})
