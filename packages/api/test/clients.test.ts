import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { introspectToken, requestGrant, rotateAccessToken } from '@gnap/domain/protocol'
import { TEST_CLIENT, authAs, grantRequest, incomingAccess, issueNonInteractiveGrant, type TestDeps } from '@gnap/domain/testing'
import { adminCaller, apiTestDeps, expectTrpcError } from './support'

const introspect = (deps: TestDeps['deps'], body: { access_token: string }) => introspectToken(deps, { accessToken: body.access_token, access: null })

// Clients in the console (docs/protocol.md §2.16): every role reads them; operators and admins block and unblock,
// and the block takes effect on the protocol's endpoints at once.
let t: TestDeps
beforeEach(async () => {
  t = await apiTestDeps()
})
afterEach(async () => {
  await t.cleanup()
})

const OTHER = 'https://wallet.example/other-app'

describe('clients.block and clients.unblock', () => {
  it('an operator blocks a client: its token introspects inactive, its rotation and grant requests are refused, audited under the operator', async () => {
    const { caller } = await adminCaller(t, 'operator')
    const g = await issueNonInteractiveGrant(t)

    expect(await caller.clients.block({ walletAddress: TEST_CLIENT, reason: 'its signing key leaked' })).toEqual({
      walletAddress: TEST_CLIENT,
      revokedGrants: 1,
      revokedTokens: 1,
    })

    expect(await introspect(t.deps, { access_token: g.tokenValue })).toEqual({ active: false })
    await expect(rotateAccessToken(t.deps, { managementId: g.managementId, auth: authAs(g.tokenValue) })).rejects.toMatchObject({
      code: 'invalid_client',
      status: 401,
      message: expect.stringContaining('blocked'),
    })
    await expect(requestGrant(t.deps, grantRequest({ access: [incomingAccess()], interact: null }), authAs(null), null)).rejects.toMatchObject({
      code: 'invalid_client',
      status: 401,
    })
    expect(await t.db.auditLog.findMany({ where: { action: 'client.block' } })).toMatchObject([
      { actor: 'operator@example.com', target: `client:${TEST_CLIENT}`, detail: 'its signing key leaked (1 grant and 1 live token revoked)' },
    ])
  })

  it('shows the block on the list, the blocked list and the client page', async () => {
    const { caller } = await adminCaller(t, 'operator')
    await issueNonInteractiveGrant(t)
    await issueNonInteractiveGrant(t, { client: OTHER })
    await caller.clients.block({ walletAddress: TEST_CLIENT, reason: 'its signing key leaked' })

    const { items } = await caller.clients.list({})
    expect(items.find((c) => c.walletAddress === TEST_CLIENT)).toMatchObject({ blocked: true, grants: 1 })
    expect(items.find((c) => c.walletAddress === OTHER)).toMatchObject({ blocked: false })
    expect((await caller.clients.blocked()).items).toEqual([
      { walletAddress: TEST_CLIENT, reason: 'its signing key leaked', blockedBy: 'operator@example.com', blockedAt: t.clock.now },
    ])
    const detail = await caller.clients.byWalletAddress({ walletAddress: TEST_CLIENT })
    expect(detail).toMatchObject({
      block: { reason: 'its signing key leaked', blockedBy: 'operator@example.com' },
      grantCounts: { revoked: 1, issued: 0 },
      tokens: [{ status: 'revoked' }],
    })
    expect(detail.audit).toMatchObject([{ action: 'client.block', actor: 'operator@example.com' }])
  })

  it('unblocks: grant requests work again, the old grants stay revoked', async () => {
    const { caller } = await adminCaller(t, 'admin')
    const old = await issueNonInteractiveGrant(t)
    await caller.clients.block({ walletAddress: TEST_CLIENT, reason: 'testing the switch' })
    expect(await caller.clients.unblock({ walletAddress: TEST_CLIENT })).toEqual({ walletAddress: TEST_CLIENT })
    const fresh = await issueNonInteractiveGrant(t)
    expect(await introspect(t.deps, { access_token: fresh.tokenValue })).toMatchObject({ active: true })
    expect(await introspect(t.deps, { access_token: old.tokenValue })).toEqual({ active: false })
    expect((await caller.clients.byWalletAddress({ walletAddress: TEST_CLIENT })).block).toBeNull()
    expect((await t.db.auditLog.findMany({ where: { action: 'client.unblock' } })).map((a) => a.actor)).toEqual(['ops@example.com'])
  })

  it('answers CONFLICT for a client already blocked, or not blocked, and BAD_REQUEST for an empty reason or a malformed address', async () => {
    const { caller } = await adminCaller(t, 'operator')
    await expectTrpcError(caller.clients.unblock({ walletAddress: TEST_CLIENT }), 'CONFLICT')
    await caller.clients.block({ walletAddress: TEST_CLIENT, reason: 'its signing key leaked' })
    await expectTrpcError(caller.clients.block({ walletAddress: TEST_CLIENT, reason: 'again' }), 'CONFLICT')
    await expectTrpcError(caller.clients.block({ walletAddress: OTHER, reason: '  ' }), 'BAD_REQUEST')
    await expectTrpcError(caller.clients.block({ walletAddress: 'wallet.example/x', reason: 'leak' }), 'BAD_REQUEST')
    expect(await t.db.clientBlock.count()).toBe(1)
  })

  it('refuses a viewer FORBIDDEN on block and unblock, changing nothing, while it may read', async () => {
    const { caller } = await adminCaller(t, 'viewer')
    const g = await issueNonInteractiveGrant(t)
    await expectTrpcError(caller.clients.block({ walletAddress: TEST_CLIENT, reason: 'its signing key leaked' }), 'FORBIDDEN')
    await expectTrpcError(caller.clients.unblock({ walletAddress: TEST_CLIENT }), 'FORBIDDEN')
    expect(await t.db.clientBlock.count()).toBe(0)
    expect(await introspect(t.deps, { access_token: g.tokenValue })).toMatchObject({ active: true })
    await expect(caller.clients.byWalletAddress({ walletAddress: TEST_CLIENT })).resolves.toMatchObject({ block: null })
    await expect(caller.clients.blocked()).resolves.toEqual({ items: [] })
  })
})
