import { describe, expect, it } from 'vitest'
import type { ConsoleActor } from './admin/roles'
import { authAs, grantRequest, incomingAccess } from '../testing/deps'
import { useTestDeps } from '../testing/use-test-deps'
import { createTenant, deleteTenant } from '../protocol/tenant/tenants'
import { parseCreateTenant } from '../protocol/tenant/tenant.wire'
import { requestGrant } from '../protocol/grant/request-grant'
import {
  addWalletAddress,
  adminCreateOwner,
  adminDeleteOwner,
  adminIssueOwnerLink,
  CreateOwnerInputSchema,
  disableOwner,
  editOwner,
  enableOwner,
  removeWalletAddress,
} from './owner/manage-owners'
import { getOwnerDetail, listOwners, ListOwnersInputSchema } from './owner/owner-views'
import { importOwners } from './owner/import-owners'
import { parseOwnerFile } from './owner/owner-import-file'
import { listAuditLog, ListAuditLogInputSchema } from './audit/list-audit-log'
import { adminRevokeGrant } from './admin/admin-revoke-grant'
import { adminRevokeToken } from './admin/admin-revoke-token'
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  rotateWebhookSecret,
  sendTestEvent,
  setWebhookEndpointEnabled,
  updateWebhookEndpoint,
} from './webhook/manage-webhooks'
import { CreateWebhookEndpointInputSchema } from './webhook/webhook-input'
import { runDeliveryPass } from './webhook/deliver-webhooks'
import { fakeReceiver } from '../testing/webhook-delivery'

// Owners, webhook endpoints and the audit log per tenant (docs/protocol.md §2.21, docs/webhooks.md): what an
// administrator chooses, and what a key bound to one tenant can reach, on both databases.

const t = useTestDeps()

const A = '6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
const B = '0e2d4c6b-8a9f-4e1d-9c3b-5a7f9e1d3c5b'
const OPERATOR = '438fa74a-fa7d-4317-9ced-dde32ece1787'

const ADMIN: ConsoleActor = { kind: 'admin', id: 'admin-1', label: 'ops@example.com', role: 'admin', tenantId: null }
const keyOf = (tenantId: string): ConsoleActor => ({
  kind: 'apiKey',
  id: `key-${tenantId.slice(0, 4)}`,
  label: `api key "${tenantId.slice(0, 4)}"`,
  role: 'admin',
  tenantId,
})

async function tenants(...ids: string[]): Promise<void> {
  for (const id of ids) await createTenant(t.deps, parseCreateTenant({ id, apiSecret: `api-secret-${id}` }))
}

const newOwner = (actor: ConsoleActor, name: string, tenantId?: string | null) =>
  adminCreateOwner(t.deps, {
    ...CreateOwnerInputSchema.parse({ email: `${name}@example.com`, name, walletAddresses: [`https://wallet.example/${name}`], tenantId }),
    actor,
  })

const list = (actor: ConsoleActor, input: object = {}) => listOwners(t.deps, { ...ListOwnersInputSchema.parse(input), actor })
const emails = async (actor: ConsoleActor, input: object = {}) => (await list(actor, input)).items.map((o) => o.email).sort()

/** The error a promise rejects with, or null. */
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e,
  )

describe('owners per tenant', () => {
  it('an administrator creates an owner in the tenant named (default: none), and lists and filters by tenant', async () => {
    await tenants(A, B)
    await newOwner(ADMIN, 'alice', A)
    await newOwner(ADMIN, 'bob', B)
    await newOwner(ADMIN, 'olga')
    const items = (await list(ADMIN)).items
    expect(Object.fromEntries(items.map((o) => [o.email, o.tenantId]))).toEqual({
      'alice@example.com': A,
      'bob@example.com': B,
      'olga@example.com': null,
    })
    expect(await emails(ADMIN, { tenantId: A })).toEqual(['alice@example.com'])
    expect(await emails(ADMIN, { tenantId: B, search: 'bo' })).toEqual(['bob@example.com'])
  })

  it('refuses an unknown or deleted tenant with a clear error, writing nothing', async () => {
    await tenants(A)
    await deleteTenant(t.deps, A, new Date())
    for (const tenantId of [A, B, 'not-a-tenant']) {
      expect(await refusal(newOwner(ADMIN, 'alice', tenantId))).toMatchObject({
        code: 'bad_request',
        message: expect.stringContaining('unknown or deleted tenant'),
      })
    }
    expect(await t.db.owner.count()).toBe(0)
    expect(await t.db.auditLog.count()).toBe(0)
  })

  it('a key bound to A creates in A only, and sees and changes only A’s owners: B’s answer as unknown ones', async () => {
    await tenants(A, B)
    const keyA = keyOf(A)
    const { id: mine } = await newOwner(keyA, 'alice')
    expect((await t.db.owner.findUniqueOrThrow({ where: { id: mine } })).tenantId).toBe(A)
    expect(await refusal(newOwner(keyA, 'mallory', B))).toMatchObject({ code: 'bad_request' })
    const { id: theirs } = await newOwner(ADMIN, 'bob', B)
    await newOwner(ADMIN, 'olga')

    expect(await emails(keyA)).toEqual(['alice@example.com'])
    expect(await emails(keyA, { tenantId: B })).toEqual([])
    expect(await emails(keyA, { search: 'https://wallet.example/' })).toEqual(['alice@example.com'])
    expect((await getOwnerDetail(t.deps, mine, keyA)).tenantId).toBe(A)

    const before = await t.db.owner.findUniqueOrThrow({ where: { id: theirs }, include: { walletAddresses: true } })
    const changes = [
      () => getOwnerDetail(t.deps, theirs, keyA),
      () => editOwner(t.deps, { ownerId: theirs, email: 'x@example.com', name: 'X', actor: keyA }),
      () => addWalletAddress(t.deps, { ownerId: theirs, walletAddress: 'https://wallet.example/bob2', actor: keyA }),
      () => removeWalletAddress(t.deps, { ownerId: theirs, walletAddress: 'https://wallet.example/bob', revokeGrants: true, actor: keyA }),
      () => disableOwner(t.deps, { ownerId: theirs, revokeGrants: true, actor: keyA }),
      () => enableOwner(t.deps, { ownerId: theirs, actor: keyA }),
      () => adminIssueOwnerLink(t.deps, { ownerId: theirs, kind: 'reset', actor: keyA }),
      () => adminDeleteOwner(t.deps, { ownerId: theirs, actor: keyA }),
    ]
    for (const change of changes) {
      expect(await refusal(change())).toMatchObject({ code: 'not_found', message: 'unknown owner' })
    }
    expect(await t.db.owner.findUniqueOrThrow({ where: { id: theirs }, include: { walletAddresses: true } })).toEqual(before)
    expect(await t.db.passwordLink.count({ where: { subjectId: theirs } })).toBe(0)
  })

  it('with an operator tenant, owners of no tenant are the operator tenant’s, for its bound key too', async () => {
    await t.reset({ config: { operatorTenant: { id: OPERATOR, apiSecret: 'admin-api-secret-0123456789' } } })
    await tenants(OPERATOR, A)
    const { id: old } = await newOwner(ADMIN, 'olga')
    await newOwner(ADMIN, 'alice', A)
    expect((await list(ADMIN, { tenantId: OPERATOR })).items.map((o) => [o.email, o.tenantId])).toEqual([['olga@example.com', OPERATOR]])
    const keyOp = keyOf(OPERATOR)
    expect(await emails(keyOp)).toEqual(['olga@example.com'])
    expect((await getOwnerDetail(t.deps, old, keyOp)).email).toBe('olga@example.com')
  })

  it('the import puts its owners in the tenant named, and refuses a row whose email is another tenant’s owner’s', async () => {
    await tenants(A, B)
    await newOwner(ADMIN, 'bob', B)
    const file = parseOwnerFile(
      'email,name,wallet_addresses\nalice@example.com,Alice,https://wallet.example/alice\nbob@example.com,Bob,https://wallet.example/bob-2\n',
      'csv',
    )
    const report = await importOwners(t.deps, file, { tenantId: A })
    expect(report.rows.map((r) => [r.email, r.outcome, r.detail])).toEqual([
      ['alice@example.com', 'created', null],
      ['bob@example.com', 'refused', 'the email belongs to an owner of another tenant'],
    ])
    expect((await t.db.owner.findUniqueOrThrow({ where: { email: 'alice@example.com' } })).tenantId).toBe(A)
    expect(await t.db.ownerWalletAddress.count({ where: { url: 'https://wallet.example/bob-2' } })).toBe(0)
    await expect(importOwners(t.deps, file, { tenantId: '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d' })).rejects.toThrow(/unknown or deleted tenant/)
  })
})

describe('the audit log per tenant', () => {
  it('names the tenant of each entry, filters by it, and shows a bound key its tenant’s entries only', async () => {
    await tenants(A, B)
    await newOwner(ADMIN, 'alice', A)
    t.clock.advance(1)
    await newOwner(ADMIN, 'bob', B)
    const read = async (actor: ConsoleActor, filters: object = {}) =>
      (await listAuditLog(t.deps, { ...ListAuditLogInputSchema.parse({ filters }), actor })).items.map((e) => [e.action, e.tenantId])
    expect(await read(ADMIN)).toEqual([
      ['owner.create', B],
      ['owner.create', A],
    ])
    expect(await read(ADMIN, { tenantId: A })).toEqual([['owner.create', A]])
    expect(await read(keyOf(A))).toEqual([['owner.create', A]])
    expect(await read(keyOf(A), { tenantId: B })).toEqual([])
  })
  it("names the grant's tenant on a console revocation of a grant and of a token", async () => {
    await tenants(A)
    const first = await issueAt(A)
    const second = await issueAt(A)
    if (!('access_token' in first) || !('access_token' in second)) throw new Error('expected issued grants')
    const managementIdOf = (grant: typeof first) => ('access_token' in grant ? grant.access_token!.manage.split('/').pop()! : '')
    const grantOf = async (managementId: string) => (await t.db.accessToken.findFirstOrThrow({ where: { managementId } })).grantId
    await adminRevokeGrant(t.deps, { grantId: await grantOf(managementIdOf(first)), actor: ADMIN })
    const managementId = managementIdOf(second)
    await adminRevokeToken(t.deps, { managementId, actor: ADMIN })
    const entries = await t.db.auditLog.findMany({ where: { action: { in: ['grant.revoke', 'token.revoke'] } } })
    expect(entries.map((e) => [e.action, e.tenantId]).sort()).toEqual([
      ['grant.revoke', A],
      ['token.revoke', A],
    ])
  })
})

const dns = async () => ['93.184.215.14']

const newEndpoint = async (actor: ConsoleActor, path: string, tenantId?: string | null) =>
  (
    await createWebhookEndpoint(
      t.deps,
      { ...CreateWebhookEndpointInputSchema.parse({ url: `https://hooks.example.com/${path}`, eventTypes: ['grant.issued'], tenantId }), actor },
      dns,
    )
  ).endpoint

/** A grant issued at once at `POST /{tenantId}` (null: `POST /`): its grant.issued event. */
const issueAt = async (tenantId: string | null) =>
  requestGrant(t.deps, { ...grantRequest({ access: [incomingAccess()] }), interact: null }, authAs(null), null, tenantId)

/** The bodies of the events an endpoint is to receive, as they will be sent. */
const bodiesFor = async (endpointId: string) => {
  const deliveries = await t.db.webhookDelivery.findMany({ where: { endpointId }, include: { event: true }, orderBy: { createdAt: 'asc' } })
  return deliveries.map((d) => JSON.parse(d.event.payload) as { type: string; tenant_id?: string })
}

describe('webhook endpoints per tenant', () => {
  it('an endpoint bound to A gets A’s events only, an unbound one every tenant’s, and each body names its tenant', async () => {
    await tenants(A, B)
    const toA = await newEndpoint(ADMIN, 'a', A)
    const toAll = await newEndpoint(ADMIN, 'all')
    expect(toA.tenantId).toBe(A)
    await issueAt(A)
    await issueAt(B)
    await issueAt(null)
    expect((await bodiesFor(toA.id)).map((b) => b.tenant_id)).toEqual([A])
    // The implicit tenant (no OPERATOR_TENANT_ID) is named by no field: single-tenant bodies are as before.
    expect((await bodiesFor(toAll.id)).map((b) => b.tenant_id ?? 'none')).toEqual([A, B, 'none'])
    expect(Object.keys((await bodiesFor(toAll.id))[2]!)).toEqual(['id', 'type', 'timestamp', 'data'])

    // Sent as recorded: the receiver bound to A gets A's event alone, its body naming A.
    const receiver = fakeReceiver()
    await runDeliveryPass(t.deps, { fetch: receiver.fetch, random: () => 0 })
    const sentTo = (url: string) =>
      receiver.received.filter((r) => r.url === url).map((r) => (JSON.parse(r.body) as { tenant_id?: string }).tenant_id ?? 'none')
    expect(sentTo(toA.url)).toEqual([A])
    expect(sentTo(toAll.url).sort()).toEqual([A, B, 'none'].sort())
  })

  it('with an operator tenant, grants at POST / are its events, sent to endpoints bound to it', async () => {
    await t.reset({ config: { operatorTenant: { id: OPERATOR, apiSecret: 'admin-api-secret-0123456789' } } })
    await tenants(OPERATOR, A)
    const toOperator = await newEndpoint(ADMIN, 'operator', OPERATOR)
    await issueAt(null)
    await issueAt(A)
    expect((await bodiesFor(toOperator.id)).map((b) => b.tenant_id)).toEqual([OPERATOR])
  })

  it('a key bound to A creates endpoints bound to A, and sees and manages only those', async () => {
    await tenants(A, B)
    const keyA = keyOf(A)
    const mine = await newEndpoint(keyA, 'mine')
    expect(mine.tenantId).toBe(A)
    expect(await refusal(newEndpoint(keyA, 'theirs', B))).toMatchObject({ code: 'bad_request' })
    const theirs = await newEndpoint(ADMIN, 'b', B)
    const unbound = await newEndpoint(ADMIN, 'all')
    expect((await listWebhookEndpoints(t.deps, { actor: keyA })).map((e) => e.id)).toEqual([mine.id])
    expect((await listWebhookEndpoints(t.deps, { actor: ADMIN })).map((e) => e.id)).toHaveLength(3)
    for (const id of [theirs.id, unbound.id]) {
      const refused = [
        () => getWebhookEndpoint(t.deps, { id, actor: keyA }),
        () => updateWebhookEndpoint(t.deps, { id, description: 'x', actor: keyA }, dns),
        () => setWebhookEndpointEnabled(t.deps, { id, enabled: false, actor: keyA }),
        () => rotateWebhookSecret(t.deps, { id, overlapHours: 0, actor: keyA }),
        () => sendTestEvent(t.deps, { id, actor: keyA }),
        () => listWebhookDeliveries(t.deps, { endpointId: id, limit: 10, actor: keyA }),
        () => deleteWebhookEndpoint(t.deps, { id, actor: keyA }),
      ]
      for (const call of refused) expect(await refusal(call())).toMatchObject({ code: 'not_found' })
    }
    expect(await t.db.webhookEndpoint.count()).toBe(3)
    expect(await t.db.webhookEvent.count()).toBe(0)
    // Its own test event names its tenant.
    await sendTestEvent(t.deps, { id: mine.id, actor: keyA })
    expect((await bodiesFor(mine.id)).map((b) => [b.type, b.tenant_id])).toEqual([['webhook.test', A]])
  })
})
