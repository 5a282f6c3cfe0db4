import { describe, expect, it } from 'vitest'
import { issueNonInteractiveGrant } from '../../testing/grant-flows'
import { useTestDeps } from '../../testing/use-test-deps'
import { createTenant, deleteTenant, ensureOperatorTenant } from '../../protocol/tenant/tenants'
import { parseCreateTenant } from '../../protocol/tenant/tenant.wire'
import { listGrants, ListGrantsInputSchema } from './list-grants'
import { getGrantDetail } from './get-grant-detail'
import { getTokenDetail } from './get-token-detail'
import { getTokenChain } from './get-token-chain'
import { adminRevokeGrant } from './admin-revoke-grant'
import { adminRevokeToken } from './admin-revoke-token'
import { listClientBlocks, listClients } from './list-clients'
import { getClientDetail } from './get-client-detail'
import { getStats } from './get-stats'
import { blockClient, unblockClient } from '../client-block/block-client'
import { listTenants } from '../tenant/list-tenants'
import { createApiKey, listApiKeys } from '../api-key/api-keys'
import { keyCreator } from '../../testing/key-creator'
import type { ConsoleActor } from './roles'

// A key bound to a tenant (docs/protocol.md §2.21) sees and changes that tenant's grants, tokens and clients only;
// another tenant's answer as unknown ones. The operator tenant's include the grants of `POST /`. Both databases.

const OPERATOR = '438fa74a-fa7d-4317-9ced-dde32ece1787'
const A = '6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
const B = '0e2d4c6b-8a9f-4e1d-9c3b-5a7f9e1d3c5b'
const B_CLIENT = 'https://wallet.example/b-only-app'

const t = useTestDeps({ config: { operatorTenant: { id: OPERATOR, apiSecret: 'admin-api-secret-0123456789' } } })

const keyOf = (tenantId: string | null): ConsoleActor => ({
  kind: 'apiKey',
  id: `key-${tenantId}`,
  label: `key ${tenantId}`,
  role: 'admin',
  tenantId,
})
const admin: ConsoleActor = { kind: 'admin', id: 'admin-1', label: 'ops@example.com', role: 'admin', tenantId: null }

/** Grants: one of `POST /` (the operator tenant's), one of A, one of B by a client only B has. */
async function seed() {
  await ensureOperatorTenant(t.deps)
  for (const id of [A, B])
    await createTenant(t.deps, parseCreateTenant({ id, apiSecret: `api-secret-${id}`, idpConsentUrl: `https://idp.example/${id}` }))
  const at = async (tenantId: string | null, client?: string) => {
    const g = await issueNonInteractiveGrant(t)
    const row = await t.db.grant.update({ where: { continueId: g.continueId }, data: { tenantId, ...(client ? { client } : {}) } })
    return { id: row.id, managementId: g.managementId }
  }
  return { operator: await at(null), a: await at(A), b: await at(B, B_CLIENT) }
}

const list = async (actor: ConsoleActor, filters: object = {}) =>
  (await listGrants(t.deps, { ...ListGrantsInputSchema.parse({ filters }), actor })).items.map((g) => g.id).sort()

const code = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (e: { code?: string }) => e.code,
  )

describe('a key bound to a tenant (docs/protocol.md §2.21)', () => {
  it('lists its tenant’s grants only, each with its tenant; the operator tenant’s include those of POST /', async () => {
    const g = await seed()
    expect(await list(keyOf(A))).toEqual([g.a.id])
    expect(await list(keyOf(B))).toEqual([g.b.id])
    expect(await list(keyOf(OPERATOR))).toEqual([g.operator.id])
    expect(await list(admin)).toEqual([g.operator.id, g.a.id, g.b.id].sort())
    const rows = (await listGrants(t.deps, { ...ListGrantsInputSchema.parse({}), actor: admin })).items
    expect(Object.fromEntries(rows.map((r) => [r.id, r.tenantId]))).toEqual({ [g.operator.id]: OPERATOR, [g.a.id]: A, [g.b.id]: B })
  })

  it('the tenant filter narrows the list, and never widens a bound key’s', async () => {
    const g = await seed()
    expect(await list(admin, { tenantId: A })).toEqual([g.a.id])
    expect(await list(admin, { tenantId: OPERATOR })).toEqual([g.operator.id])
    expect(await list(keyOf(A), { tenantId: B })).toEqual([])
    // A search by another tenant's id finds nothing either.
    expect(await list(keyOf(A), { search: g.b.id })).toEqual([])
  })

  it('answers another tenant’s grant and token as unknown, and cannot revoke them', async () => {
    const g = await seed()
    const a = keyOf(A)
    expect(await code(getGrantDetail(t.deps, g.b.id, a))).toBe('not_found')
    expect(await code(getGrantDetail(t.deps, g.operator.id, a))).toBe('not_found')
    expect(await code(getTokenDetail(t.deps, g.b.managementId, a))).toBe('not_found')
    expect(await code(getTokenChain(t.deps, g.b.id, a))).toBe('not_found')
    expect(await code(adminRevokeGrant(t.deps, { grantId: g.b.id, actor: a }))).toBe('not_found')
    expect(await code(adminRevokeToken(t.deps, { managementId: g.b.managementId, actor: a }))).toBe('not_found')
    expect((await t.db.grant.findUniqueOrThrow({ where: { id: g.b.id } })).state).toBe('finalized')
    expect((await t.db.grant.findUniqueOrThrow({ where: { id: g.b.id } })).finalizedReason).toBe('issued')
    expect((await t.db.accessToken.findUniqueOrThrow({ where: { managementId: g.b.managementId } })).state).toBe('active')
    // Its own: read and revoked.
    expect((await getGrantDetail(t.deps, g.a.id, a)).tenantId).toBe(A)
    expect((await getTokenDetail(t.deps, g.a.managementId, a)).grant.id).toBe(g.a.id)
    expect(await code(adminRevokeToken(t.deps, { managementId: g.a.managementId, actor: a }))).toBe('ok')
    expect(await code(adminRevokeGrant(t.deps, { grantId: g.a.id, actor: a }))).toBe('ok')
  })

  it('sees the clients of its tenant’s grants only, counted over those; another tenant’s client is unknown', async () => {
    const g = await seed()
    const clients = await listClients(t.deps, { limit: 50, actor: keyOf(A) })
    expect(clients.map((c) => [c.walletAddress, c.grants])).toEqual([['https://wallet.example/test-app', 1]])
    expect(await code(getClientDetail(t.deps, { walletAddress: B_CLIENT, actor: keyOf(A) }))).toBe('not_found')
    const detail = await getClientDetail(t.deps, { walletAddress: 'https://wallet.example/test-app', actor: keyOf(A) })
    expect(detail.grants.map((x) => x.id)).toEqual([g.a.id])
    expect(detail.tokens.map((x) => x.managementId)).toEqual([g.a.managementId])
    expect((await getClientDetail(t.deps, { walletAddress: B_CLIENT, actor: keyOf(B) })).grants.map((x) => x.id)).toEqual([g.b.id])
  })

  it('cannot block or unblock a client (a block reaches every tenant), and sees only its own clients’ blocks', async () => {
    await seed()
    const input = { walletAddress: B_CLIENT, reason: 'its key leaked' }
    expect(await code(blockClient(t.deps, { ...input, actor: keyOf(B) }))).toBe('forbidden')
    expect(await t.db.clientBlock.count()).toBe(0)
    await blockClient(t.deps, { ...input, actor: admin })
    expect(await code(unblockClient(t.deps, { walletAddress: B_CLIENT, actor: keyOf(B) }))).toBe('forbidden')
    expect((await listClientBlocks(t.deps, { actor: keyOf(B) })).map((b) => b.walletAddress)).toEqual([B_CLIENT])
    expect(await listClientBlocks(t.deps, { actor: keyOf(A) })).toEqual([])
  })

  it('counts its tenant’s grants and tokens in the overview', async () => {
    await seed()
    const range = { from: new Date(t.clock.now.getTime() - 86_400_000), to: new Date(t.clock.now.getTime() + 86_400_000), bucket: 'day' as const }
    expect((await getStats(t.deps, { ...range, actor: keyOf(A) })).grants.total).toBe(1)
    expect((await getStats(t.deps, { ...range, actor: keyOf(A) })).tokens.issued).toBe(1)
    expect((await getStats(t.deps, { ...range, actor: admin })).grants.total).toBe(3)
  })

  it('sees its own tenant in the tenants list, never a secret', async () => {
    await seed()
    await deleteTenant(t.deps, B, t.clock.now)
    const all = await listTenants(t.deps, { actor: admin })
    const byId = (x: { id: string }, y: { id: string }) => x.id.localeCompare(y.id)
    expect(all.sort(byId).map((x) => ({ id: x.id, operator: x.operator, grants: x.grants, deleted: x.deletedAt !== null }))).toEqual(
      [
        { id: OPERATOR, operator: true, grants: 1, deleted: false },
        { id: A, operator: false, grants: 1, deleted: false },
        { id: B, operator: false, grants: 1, deleted: true },
      ].sort(byId),
    )
    expect(JSON.stringify(all)).not.toMatch(/api-secret/)
    expect((await listTenants(t.deps, { actor: keyOf(A) })).map((x) => x.id)).toEqual([A])
  })
})

describe('binding an API key to a tenant', () => {
  it('binds a key to a live tenant, shows and audits the binding, and refuses an unknown or deleted tenant', async () => {
    await seed()
    const actor = await keyCreator(t.sql)
    const { apiKey } = await createApiKey(t.deps, { name: 'tenant a sync', role: 'operator', tenantId: A.toUpperCase(), actor })
    expect(apiKey.tenantId).toBe(A)
    expect((await listApiKeys(t.deps)).find((k) => k.id === apiKey.id)?.tenantId).toBe(A)
    const audit = await t.db.auditLog.findFirstOrThrow({ where: { target: `api-key:${apiKey.id}` } })
    expect(audit.detail).toContain(`bound to tenant ${A}`)
    expect((await createApiKey(t.deps, { name: 'unbound', role: 'viewer', tenantId: '', actor })).apiKey.tenantId).toBeNull()
    await deleteTenant(t.deps, B, t.clock.now)
    for (const tenantId of [B, '11111111-2222-4333-8444-555555555555', 'not a tenant']) {
      expect(await code(createApiKey(t.deps, { name: `bound ${tenantId}`, role: 'viewer', tenantId, actor }))).toBe('bad_request')
    }
    expect(await t.db.apiKey.count({ where: { name: { startsWith: 'bound ' } } })).toBe(0)
  })
})
