import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { issueNonInteractiveGrant, type TestDeps } from '@gnap/domain/testing'
import { adminCaller, apiTestDeps, expectTrpcError } from './support'

// The role ladder on the server (docs/protocol.md §2.14): what a lower role may not do is refused FORBIDDEN and
// changes nothing, whatever the console shows.
let t: TestDeps
beforeEach(async () => {
  t = await apiTestDeps()
})
afterEach(async () => {
  await t.cleanup()
})

/** The id of the only grant. */
const onlyGrantId = async (t: TestDeps) => (await t.db.grant.findFirstOrThrow()).id

describe('roles', () => {
  it('lets a viewer read but not revoke a grant or create an owner', async () => {
    const { caller } = await adminCaller(t, 'viewer')
    await issueNonInteractiveGrant(t)
    const grantId = await onlyGrantId(t)
    await expect(caller.grants.byId({ id: grantId })).resolves.toMatchObject({ id: grantId })
    const refused = await expectTrpcError(caller.grants.revoke({ id: grantId }), 'FORBIDDEN')
    expect(refused.message).toContain('operator')
    await expectTrpcError(caller.owners.create({ email: 'a@example.com', name: 'A', walletAddresses: ['https://wallet.example/a'] }), 'FORBIDDEN')
    expect((await caller.grants.byId({ id: grantId })).finalizedReason).toBe('issued')
    expect(await t.db.owner.count()).toBe(0)
  })

  it('lets an operator revoke a grant but not manage owners', async () => {
    const { caller } = await adminCaller(t, 'operator')
    await issueNonInteractiveGrant(t)
    const grantId = await onlyGrantId(t)
    await expect(caller.grants.revoke({ id: grantId })).resolves.toMatchObject({ grantId })
    await expectTrpcError(caller.owners.create({ email: 'a@example.com', name: 'A', walletAddresses: ['https://wallet.example/a'] }), 'FORBIDDEN')
    expect(await t.db.owner.count()).toBe(0)
    expect(await t.db.auditLog.findMany({ where: { action: 'grant.revoke' } })).toMatchObject([{ actor: 'operator@example.com' }])
  })

  it('lets an admin manage owners', async () => {
    const { caller } = await adminCaller(t, 'admin')
    await expect(caller.owners.create({ email: 'a@example.com', name: 'A', walletAddresses: ['https://wallet.example/a'] })).resolves.toMatchObject({
      id: expect.any(String),
    })
  })
})
