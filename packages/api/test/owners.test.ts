import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createOwner, signInOwner } from '@gnap/domain/operator'
import { issueInteractiveGrant, type TestDeps } from '@gnap/domain/testing'
import { ADMIN, adminCaller, apiTestDeps, expectTrpcError } from './support'

let t: TestDeps
let caller: Awaited<ReturnType<typeof adminCaller>>['caller']
beforeEach(async () => {
  t = await apiTestDeps()
  caller = (await adminCaller(t)).caller
})
afterEach(async () => {
  await t.cleanup()
})

describe('owners procedures', () => {
  it('create, edit, add and remove a wallet address, disable, enable, delete: each answers what the console shows and is audited', async () => {
    const { id } = await caller.owners.create({ email: 'Dana@Example.com', name: 'Dana', walletAddresses: ['https://wallet.example/dana/'] })
    let detail = await caller.owners.byId({ ownerId: id })
    expect(detail).toMatchObject({
      email: 'dana@example.com',
      status: 'active',
      hasPassword: false,
      walletAddresses: ['https://wallet.example/dana'],
    })
    expect(detail).not.toHaveProperty('passwordHash')

    t.clock.advance(1)
    await caller.owners.edit({ ownerId: id, email: 'dana@example.com', name: 'Dana D' })
    t.clock.advance(1)
    await caller.owners.addWalletAddress({ ownerId: id, walletAddress: 'https://wallet.example/dana-2' })
    t.clock.advance(1)
    await expect(
      caller.owners.removeWalletAddress({ ownerId: id, walletAddress: 'https://wallet.example/dana', revokeGrants: false }),
    ).resolves.toEqual({
      id,
      revokedGrants: 0,
    })
    t.clock.advance(1)
    await caller.owners.disable({ ownerId: id, revokeGrants: false })
    expect((await caller.owners.list({ search: 'dana' })).items).toEqual([expect.objectContaining({ id, name: 'Dana D', status: 'disabled' })])
    t.clock.advance(1)
    await caller.owners.enable({ ownerId: id })
    detail = await caller.owners.byId({ ownerId: id })
    expect(detail.audit.map((a) => a.action)).toEqual([
      'owner.enable',
      'owner.disable',
      'owner.wallet-address.remove',
      'owner.wallet-address.add',
      'owner.edit',
      'owner.create',
    ])
    expect(detail.audit.every((a) => a.actor === ADMIN.email)).toBe(true)
    await caller.owners.delete({ ownerId: id })
    await expectTrpcError(caller.owners.byId({ ownerId: id }), 'NOT_FOUND')
  })

  it('answers CONFLICT for a wallet address another owner has, compared as normalised URLs', async () => {
    await caller.owners.create({ email: 'dana@example.com', name: 'Dana', walletAddresses: ['https://wallet.example/dana'] })
    const error = await expectTrpcError(
      caller.owners.create({ email: 'eve@example.com', name: 'Eve', walletAddresses: ['HTTPS://WALLET.EXAMPLE/dana/'] }),
      'CONFLICT',
    )
    expect(error.message).toBe('the wallet address https://wallet.example/dana already belongs to another owner')
    expect(await t.db.owner.count()).toBe(1)
  })

  it('answers BAD_REQUEST for input the schema refuses (unknown fields, no wallet address)', async () => {
    await expectTrpcError(caller.owners.create({ email: 'x@example.com', name: 'X', walletAddresses: [] }), 'BAD_REQUEST')
    await expectTrpcError(
      caller.owners.create({ email: 'x@example.com', name: 'X', walletAddresses: ['https://wallet.example/x'], password: 'p' } as never),
      'BAD_REQUEST',
    )
    expect(await t.db.owner.count()).toBe(0)
  })

  it('disable with revokeGrants revokes the grants on the owner’s wallet addresses; the owner then cannot sign in', async () => {
    const { id } = await createOwner(t.sql, {
      email: 'alice@example.com',
      name: 'Alice',
      password: 'alice-password',
      walletAddresses: ['https://wallet.example/alice'],
    })
    const grant = await issueInteractiveGrant(t)
    expect((await caller.owners.byId({ ownerId: id })).grants.map((g) => g.status)).toEqual(['issued'])
    await expect(caller.owners.disable({ ownerId: id, revokeGrants: true })).resolves.toEqual({ id, revokedGrants: 1 })
    expect(await t.db.grant.findFirstOrThrow({ where: { continueId: grant.continueId } })).toMatchObject({ finalizedReason: 'revoked' })
    await expect(signInOwner(t.deps, { email: 'alice@example.com', password: 'alice-password' })).rejects.toMatchObject({ status: 403 })
  })
})
