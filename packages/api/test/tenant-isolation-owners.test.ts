import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { TRPCError } from '@trpc/server'
import { createTenant, parseCreateTenant } from '@gnap/domain/protocol'
import { adminCreateOwner, createApiKey, createWebhookEndpoint, type ConsoleActor } from '@gnap/domain/operator'
import { keyCreator, type TestDeps } from '@gnap/domain/testing'
import { apiTestDeps, callerWith } from './support'
import { restCaller } from './rest-caller'
import { routerPaths, type Caller, type ProcedurePath } from './procedures'

// Isolation between tenants (docs/protocol.md §2.21), for every procedure of owners, webhooks and the audit log: an
// API key bound to tenant A can neither read nor change tenant B's owners, endpoints, deliveries or audit entries,
// over tRPC and over REST. Another tenant's row answers as an unknown one (NOT_FOUND), a create naming B is refused as
// naming an unknown tenant, and a list holds nothing of B's.

const A = '6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
const B = '0e2d4c6b-8a9f-4e1d-9c3b-5a7f9e1d3c5b'
const ADMIN: ConsoleActor = { kind: 'admin', id: 'admin-1', label: 'ops@example.com', role: 'admin', tenantId: null }

/** The routers this file covers: every procedure of each must have a probe below. */
const COVERED = ['owners', 'webhooks', 'audit'] as const
type CoveredPath = Extract<ProcedurePath, `${(typeof COVERED)[number]}.${string}`>

interface BRows {
  ownerId: string
  endpointId: string
  deliveryId: string
}

/** B's rows: an owner, an endpoint bound to B with a failed delivery, and the audit entries of their creation. */
async function seedB(t: TestDeps): Promise<BRows> {
  for (const id of [A, B]) await createTenant(t.deps, parseCreateTenant({ id, apiSecret: `api-secret-${id}` }))
  const { id: ownerId } = await adminCreateOwner(t.deps, {
    email: 'bob@tenant-b.example',
    name: 'Bob of B',
    walletAddresses: ['https://wallet.example/bob'],
    tenantId: B,
    actor: ADMIN,
  })
  const { endpoint } = await createWebhookEndpoint(
    t.deps,
    { url: 'https://93.184.215.14/tenant-b', eventTypes: ['grant.revoked'], tenantId: B, actor: ADMIN },
    async () => [],
  )
  const event = await t.db.webhookEvent.create({
    data: { id: 'evt_tenant_b', type: 'grant.revoked', grantId: null, payload: '{}', createdAt: t.clock.now },
  })
  const delivery = await t.db.webhookDelivery.create({
    data: {
      id: crypto.randomUUID(),
      eventId: event.id,
      endpointId: endpoint.id,
      orderKey: 'event:evt_tenant_b',
      state: 'failed',
      attempts: 12,
      nextAttemptAt: t.clock.now,
      giveUpAt: t.clock.now,
      createdAt: t.clock.now,
    },
  })
  return { ownerId, endpointId: endpoint.id, deliveryId: delivery.id }
}

/** Everything of B's a call could change, as text. */
async function snapshotOfB(t: TestDeps, b: BRows): Promise<string> {
  return JSON.stringify([
    await t.db.owner.findUnique({ where: { id: b.ownerId }, include: { walletAddresses: true } }),
    await t.db.passwordLink.count({ where: { subjectId: b.ownerId } }),
    await t.db.webhookEndpoint.findUnique({ where: { id: b.endpointId }, include: { subscriptions: true } }),
    await t.db.webhookDelivery.findMany({ where: { endpointId: b.endpointId }, orderBy: { id: 'asc' } }),
    await t.db.webhookEvent.count(),
    await t.db.auditLog.count({ where: { tenantId: B } }),
  ])
}

/** Refused as unknown: another tenant's row is no row at all to a key bound to A. */
const UNKNOWN = 'NOT_FOUND'
/** Refused as naming a tenant that is not the key's, in the words of an unknown tenant. */
const NOT_MINE = 'BAD_REQUEST'

/**
 * One probe per procedure, typed by the router: a procedure added to one of the covered routers does not compile
 * until it has one (and the first test checks the list against the router at run time too). A probe aims at B's rows
 * and expects a refusal, or an answer holding nothing of B's.
 */
type Probe = { expect: TRPCError['code'] | 'nothing of B'; call: (c: Caller, b: BRows) => Promise<unknown> }

const probes: Record<CoveredPath, Probe> = {
  'owners.list': { expect: 'nothing of B', call: (c) => c.owners.list({}) },
  'owners.byId': { expect: UNKNOWN, call: (c, b) => c.owners.byId({ ownerId: b.ownerId }) },
  'owners.create': {
    expect: NOT_MINE,
    call: (c) => c.owners.create({ email: 'mallory@example.com', name: 'Mallory', walletAddresses: ['https://wallet.example/m'], tenantId: B }),
  },
  'owners.edit': { expect: UNKNOWN, call: (c, b) => c.owners.edit({ ownerId: b.ownerId, email: 'taken@example.com', name: 'Taken' }) },
  'owners.addWalletAddress': {
    expect: UNKNOWN,
    call: (c, b) => c.owners.addWalletAddress({ ownerId: b.ownerId, walletAddress: 'https://wallet.example/bob-2' }),
  },
  'owners.removeWalletAddress': {
    expect: UNKNOWN,
    call: (c, b) => c.owners.removeWalletAddress({ ownerId: b.ownerId, walletAddress: 'https://wallet.example/bob', revokeGrants: true }),
  },
  'owners.disable': { expect: UNKNOWN, call: (c, b) => c.owners.disable({ ownerId: b.ownerId, revokeGrants: true }) },
  'owners.enable': { expect: UNKNOWN, call: (c, b) => c.owners.enable({ ownerId: b.ownerId }) },
  'owners.delete': { expect: UNKNOWN, call: (c, b) => c.owners.delete({ ownerId: b.ownerId }) },
  'owners.issueLink': { expect: UNKNOWN, call: (c, b) => c.owners.issueLink({ ownerId: b.ownerId, kind: 'reset' }) },
  'webhooks.list': { expect: 'nothing of B', call: (c) => c.webhooks.list() },
  'webhooks.byId': { expect: UNKNOWN, call: (c, b) => c.webhooks.byId({ id: b.endpointId }) },
  'webhooks.create': {
    expect: NOT_MINE,
    call: (c) => c.webhooks.create({ url: 'https://93.184.215.14/mallory', eventTypes: ['grant.revoked'], tenantId: B }),
  },
  'webhooks.update': { expect: UNKNOWN, call: (c, b) => c.webhooks.update({ id: b.endpointId, description: 'changed by A' }) },
  'webhooks.setEnabled': { expect: UNKNOWN, call: (c, b) => c.webhooks.setEnabled({ id: b.endpointId, enabled: false }) },
  'webhooks.rotateSecret': { expect: UNKNOWN, call: (c, b) => c.webhooks.rotateSecret({ id: b.endpointId, overlapHours: 0 }) },
  'webhooks.sendTest': { expect: UNKNOWN, call: (c, b) => c.webhooks.sendTest({ id: b.endpointId }) },
  'webhooks.deliveries': { expect: UNKNOWN, call: (c, b) => c.webhooks.deliveries({ endpointId: b.endpointId }) },
  'webhooks.replay': { expect: UNKNOWN, call: (c, b) => c.webhooks.replay({ deliveryId: b.deliveryId }) },
  'webhooks.delete': { expect: UNKNOWN, call: (c, b) => c.webhooks.delete({ id: b.endpointId }) },
  'audit.list': { expect: 'nothing of B', call: (c) => c.audit.list({}) },
}

/** The reads again with B named as a filter: still nothing of B's. */
const filteredReads = (c: Caller) => [c.owners.list({ tenantId: B }), c.audit.list({ filters: { tenantId: B } })]

/** A key bound to `tenantId`, as the API key procedures will write it (the binding is the row's `tenantId`). */
async function boundKey(t: TestDeps, tenantId: string): Promise<string> {
  const { key, apiKey } = await createApiKey(t.deps, { name: `key of ${tenantId.slice(0, 8)}`, role: 'admin', actor: await keyCreator(t.sql) })
  await t.db.apiKey.update({ where: { id: apiKey.id }, data: { tenantId } })
  return key
}

const codeOf = (e: unknown) => (e instanceof TRPCError ? e.code : e)

let t: TestDeps
beforeEach(async () => {
  t = await apiTestDeps()
})
afterEach(async () => {
  await t.cleanup()
})

describe('a key bound to tenant A, on every procedure of owners, webhooks and the audit log', () => {
  it('has a probe for every procedure of those routers', () => {
    const covered = routerPaths().filter((p) => COVERED.some((r) => p.startsWith(`${r}.`)))
    expect(Object.keys(probes).sort()).toEqual(covered)
  })

  for (const via of ['tRPC', 'REST'] as const) {
    it(`neither reads nor changes tenant B's rows (${via})`, async () => {
      const b = await seedB(t)
      const key = await boundKey(t, A)
      const caller = via === 'tRPC' ? await callerWith(t, { authorization: `Bearer ${key}` }) : restCaller(t, key)
      const before = await snapshotOfB(t, b)
      const traces = [b.ownerId, 'bob@tenant-b.example', b.endpointId, b.deliveryId, B]
      for (const [path, probe] of Object.entries(probes) as [CoveredPath, Probe][]) {
        const answer = await probe.call(caller, b).then(
          (value) => ({ value }),
          (e: unknown) => ({ error: codeOf(e) }),
        )
        if (probe.expect === 'nothing of B') {
          expect(answer, path).toHaveProperty('value')
          const text = JSON.stringify(answer)
          for (const trace of traces) expect(text, `${path} shows ${trace}`).not.toContain(trace)
        } else {
          expect(answer, path).toEqual({ error: probe.expect })
        }
        expect(await snapshotOfB(t, b), `${path} changed B's rows`).toBe(before)
      }
      for (const read of filteredReads(caller)) {
        const text = JSON.stringify(await read)
        for (const trace of [b.ownerId, 'bob@tenant-b.example']) expect(text).not.toContain(trace)
      }
      // Nothing was created in B's name either.
      expect(await t.db.owner.count({ where: { email: 'mallory@example.com' } })).toBe(0)
      expect(await t.db.webhookEndpoint.count({ where: { url: { contains: 'mallory' } } })).toBe(0)
    })
  }

  it('an unbound key of the same role reaches B’s rows, so the probes above aim at real ones', async () => {
    const b = await seedB(t)
    const { key } = await createApiKey(t.deps, { name: 'unbound', role: 'admin', actor: await keyCreator(t.sql) })
    const caller = await callerWith(t, { authorization: `Bearer ${key}` })
    expect((await caller.owners.byId({ ownerId: b.ownerId })).email).toBe('bob@tenant-b.example')
    expect((await caller.webhooks.byId({ id: b.endpointId })).tenantId).toBe(B)
    expect((await caller.audit.list({ filters: { tenantId: B } })).items.map((e) => e.action).sort()).toEqual(['owner.create', 'webhook.create'])
    expect((await caller.owners.list({ tenantId: B })).items.map((o) => o.tenantId)).toEqual([B])
  })
})
