import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createApiKey, blockClient } from '@gnap/domain/operator'
import { createTenant, ensureOperatorTenant, parseCreateTenant } from '@gnap/domain/protocol'
import { issueNonInteractiveGrant, keyCreator, type TestDeps } from '@gnap/domain/testing'
import { apiTestDeps, callerWith, expectTrpcError } from './support'
import { restCaller } from './rest-caller'
import { routerPaths, type Caller, type ProcedurePath } from './procedures'

// Isolation of tenants in the console and the operator API (docs/protocol.md §2.21): a key bound to tenant A can
// neither read nor change tenant B's grants, tokens and clients, through tRPC and through REST. Every procedure of
// these routers is listed below, by type, so a new one does not compile until its isolation is proved here.

const OPERATOR = '438fa74a-fa7d-4317-9ced-dde32ece1787'
const A = '6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
const B = '0e2d4c6b-8a9f-4e1d-9c3b-5a7f9e1d3c5b'
const SHARED_CLIENT = 'https://wallet.example/test-app'
const B_CLIENT = 'https://wallet.example/b-only-app'
const B_BLOCKED = 'https://wallet.example/b-blocked-app'

/** The routers whose rows belong to tenants and that this file covers; the owners', webhooks' and audit's are elsewhere. */
const ROUTERS = ['grants', 'tokens', 'clients', 'stats', 'tenants'] as const
type Covered = Extract<ProcedurePath, `${(typeof ROUTERS)[number]}.${string}`>

interface Seeded {
  a: { grantId: string; managementId: string }
  b: { grantId: string; managementId: string }
}

let t: TestDeps
let seeded: Seeded

/** Tenants A and B; A has a grant of the shared client; B one of the shared client and one of a client only B has, and a blocked client. */
async function seed(): Promise<Seeded> {
  await ensureOperatorTenant(t.deps)
  for (const id of [A, B]) await createTenant(t.deps, parseCreateTenant({ id, apiSecret: `api-secret-${id}` }))
  const at = async (tenantId: string, client: string) => {
    const g = await issueNonInteractiveGrant(t)
    const row = await t.db.grant.update({ where: { continueId: g.continueId }, data: { tenantId, client } })
    return { grantId: row.id, managementId: g.managementId }
  }
  const a = await at(A, SHARED_CLIENT)
  await at(B, SHARED_CLIENT)
  const b = await at(B, B_CLIENT)
  await at(B, B_BLOCKED)
  await blockClient(t.deps, { walletAddress: B_BLOCKED, reason: 'its key leaked', actor: await keyCreator(t.sql) })
  return { a, b }
}

/** B's grant and token as they were: issued and active. */
async function expectBUnchanged() {
  const grant = await t.db.grant.findUniqueOrThrow({ where: { id: seeded.b.grantId } })
  expect([grant.state, grant.finalizedReason]).toEqual(['finalized', 'issued'])
  expect((await t.db.accessToken.findUniqueOrThrow({ where: { managementId: seeded.b.managementId } })).state).toBe('active')
  expect(await t.db.clientBlock.count()).toBe(1)
}

const notFound = (call: Promise<unknown>) => expectTrpcError(call, 'NOT_FOUND')
const json = (value: unknown) => JSON.stringify(value)

/** For each procedure: what a key bound to A gets when it aims at B's rows. */
const ISOLATION: Record<Covered, (c: Caller) => Promise<unknown>> = {
  'grants.list': async (c) => {
    const all = await c.grants.list({})
    expect(all.items.map((g) => g.id)).toEqual([seeded.a.grantId])
    expect(all.items[0]?.tenantId).toBe(A)
    expect((await c.grants.list({ filters: { tenantId: B } })).items).toEqual([])
    expect((await c.grants.list({ filters: { search: seeded.b.grantId } })).items).toEqual([])
  },
  'grants.byId': (c) => notFound(c.grants.byId({ id: seeded.b.grantId })),
  'grants.revoke': (c) => notFound(c.grants.revoke({ id: seeded.b.grantId })),
  'tokens.chain': (c) => notFound(c.tokens.chain({ grantId: seeded.b.grantId })),
  'tokens.byManagementId': (c) => notFound(c.tokens.byManagementId({ managementId: seeded.b.managementId })),
  'tokens.revoke': (c) => notFound(c.tokens.revoke({ managementId: seeded.b.managementId })),
  'clients.list': async (c) => {
    const { items } = await c.clients.list({})
    expect(items.map((x) => [x.walletAddress, x.grants])).toEqual([[SHARED_CLIENT, 1]])
  },
  'clients.blocked': async (c) => expect((await c.clients.blocked()).items).toEqual([]),
  'clients.byWalletAddress': async (c) => {
    await notFound(c.clients.byWalletAddress({ walletAddress: B_CLIENT }))
    await notFound(c.clients.byWalletAddress({ walletAddress: B_BLOCKED }))
    const shared = await c.clients.byWalletAddress({ walletAddress: SHARED_CLIENT })
    expect(shared.grants.map((g) => g.id)).toEqual([seeded.a.grantId])
    expect(json(shared)).not.toContain(seeded.b.managementId)
  },
  // A block reaches the client at every tenant: no key bound to a tenant may set or lift one.
  'clients.block': (c) => expectTrpcError(c.clients.block({ walletAddress: B_CLIENT, reason: 'not mine to block' }), 'FORBIDDEN'),
  'clients.unblock': (c) => expectTrpcError(c.clients.unblock({ walletAddress: B_BLOCKED }), 'FORBIDDEN'),
  'stats.overview': async (c) => {
    const now = t.clock.now.getTime()
    const stats = await c.stats.overview({ from: new Date(now - 86_400_000), to: new Date(now + 86_400_000) })
    expect([stats.grants.total, stats.tokens.issued]).toEqual([1, 1])
  },
  'tenants.list': async (c) => {
    const { items } = await c.tenants.list()
    expect(items.map((x) => x.id)).toEqual([A])
    expect(json(items)).not.toContain('api-secret')
  },
}

const CALLERS: { name: string; caller(key: string): Promise<Caller> }[] = [
  { name: 'tRPC', caller: (key) => callerWith(t, { authorization: `Bearer ${key}` }) },
  { name: 'REST', caller: (key) => Promise.resolve(restCaller(t, key)) },
]

beforeEach(async () => {
  t = await apiTestDeps({ operatorTenant: { id: OPERATOR, apiSecret: 'admin-api-secret-0123456789' } })
  seeded = await seed()
})
afterEach(async () => {
  await t.cleanup()
})

describe('a key bound to tenant A (docs/protocol.md §2.21)', () => {
  it('covers every procedure of the routers with tenant rows', () => {
    expect(Object.keys(ISOLATION).sort()).toEqual(routerPaths().filter((p) => ROUTERS.some((r) => p.startsWith(`${r}.`))))
  })

  describe.each(CALLERS)('through $name', ({ caller }) => {
    it.each(Object.keys(ISOLATION) as Covered[])('%s: neither reads nor changes tenant B’s rows', async (path) => {
      const { key } = await createApiKey(t.deps, { name: 'tenant a key', role: 'admin', tenantId: A, actor: await keyCreator(t.sql) })
      const audit = await t.db.auditLog.count()
      await ISOLATION[path](await caller(key))
      await expectBUnchanged()
      expect(await t.db.auditLog.count()).toBe(audit)
    })
  })

  it('an unbound key still sees every tenant’s grants', async () => {
    const { key } = await createApiKey(t.deps, { name: 'unbound key', role: 'viewer', actor: await keyCreator(t.sql) })
    const { items } = await (await callerWith(t, { authorization: `Bearer ${key}` })).grants.list({})
    expect(items).toHaveLength(4)
    expect(new Set(items.map((g) => g.tenantId))).toEqual(new Set([A, B]))
  })
})
