import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { hashSecret } from '@gnap/domain/kernel'
import { ADMIN_ROLES } from '@gnap/domain/operator'
import { issueNonInteractiveGrant, type TestDeps } from '@gnap/domain/testing'
import { adminCaller, apiKeyCaller, apiTestDeps, callerWith, expectTrpcError, signedInAdmin } from './support'

// API keys on the console's procedures (docs/protocol.md §2.18): a bearer key acts with its role, without cookie
// or CSRF, is rate limited and audited under its name, and never mixes with a session cookie.
let t: TestDeps
beforeEach(async () => {
  t = await apiTestDeps()
})
afterEach(async () => {
  await t.cleanup()
})

const onlyGrantId = async () => (await t.db.grant.findFirstOrThrow()).id
const grantState = async (id: string) => (await t.db.grant.findUniqueOrThrow({ where: { id } })).finalizedReason

describe('managing keys in the console', () => {
  it('shows a new key once, lists it by prefix without the key, and revokes it', async () => {
    const { caller } = await adminCaller(t)
    const created = await caller.apiKeys.create({ name: 'sync', role: 'operator', expiresAt: new Date(t.clock.now.getTime() + 86_400_000) })
    expect(created.key.startsWith(created.apiKey.prefix + '_')).toBe(true)
    const { items } = await caller.apiKeys.list()
    expect(items).toMatchObject([{ name: 'sync', role: 'operator', prefix: created.apiKey.prefix, status: 'active', createdBy: 'ops@example.com' }])
    expect(JSON.stringify(items)).not.toContain(created.key.slice(created.apiKey.prefix.length))
    expect(JSON.stringify(items)).not.toContain(hashSecret(created.key))
    await expect(caller.apiKeys.revoke({ id: created.apiKey.id })).resolves.toMatchObject({ status: 'revoked' })
    await expectTrpcError((await callerWith(t, { authorization: `Bearer ${created.key}` })).grants.list({}), 'UNAUTHORIZED')
    expect(
      (await t.db.auditLog.findMany({ where: { action: { startsWith: 'api-key.' } }, orderBy: { action: 'asc' } })).map((e) => [e.actor, e.action]),
    ).toEqual([
      ['ops@example.com', 'api-key.create'],
      ['ops@example.com', 'api-key.revoke'],
    ])
  })

  it.each(['viewer', 'operator'] as const)('refuses a %s person FORBIDDEN', async (role) => {
    const { caller } = await adminCaller(t, role)
    await expectTrpcError(caller.apiKeys.list(), 'FORBIDDEN')
    await expectTrpcError(caller.apiKeys.create({ name: 'mine', role: 'viewer' }), 'FORBIDDEN')
    expect(await t.db.apiKey.count()).toBe(0)
  })

  it('never lets a key manage keys, whatever its role', async () => {
    const { caller, apiKey } = await apiKeyCaller(t, 'admin')
    await expectTrpcError(caller.apiKeys.list(), 'FORBIDDEN')
    await expectTrpcError(caller.apiKeys.create({ name: 'another', role: 'admin' }), 'FORBIDDEN')
    await expectTrpcError(caller.apiKeys.revoke({ id: apiKey.id }), 'FORBIDDEN')
    expect(await t.db.apiKey.findMany({ select: { name: true, revokedAt: true } })).toEqual([{ name: 'admin key', revokedAt: null }])
  })
})

describe('a bearer key on the procedures', () => {
  it.each(ADMIN_ROLES)('acts with the role of a %s key, without CSRF, audited under the key’s name', async (role) => {
    await issueNonInteractiveGrant(t)
    const grantId = await onlyGrantId()
    const { caller } = await apiKeyCaller(t, role, `sync-${role}`)
    await expect(caller.grants.byId({ id: grantId })).resolves.toMatchObject({ id: grantId })
    const owner = { email: 'a@example.com', name: 'A', walletAddresses: ['https://wallet.example/a'] }
    if (role === 'viewer') {
      await expectTrpcError(caller.grants.revoke({ id: grantId }), 'FORBIDDEN')
      expect(await grantState(grantId)).toBe('issued')
    } else {
      await expect(caller.grants.revoke({ id: grantId })).resolves.toMatchObject({ grantId })
      expect(await t.db.auditLog.findMany({ where: { action: 'grant.revoke' } })).toMatchObject([{ actor: `api key "sync-${role}"` }])
    }
    if (role === 'admin') await expect(caller.owners.create(owner)).resolves.toMatchObject({ id: expect.any(String) })
    else await expectTrpcError(caller.owners.create(owner), 'FORBIDDEN')
  })

  it('refuses the person-only procedures: sign-in, the session, sign-out', async () => {
    const { caller } = await apiKeyCaller(t, 'admin')
    await signedInAdmin(t)
    await expectTrpcError(caller.auth.signIn({ email: 'ops@example.com', password: 'correct horse battery staple' }), 'FORBIDDEN')
    await expectTrpcError(caller.auth.session(), 'FORBIDDEN')
    await expectTrpcError(caller.auth.signOut(), 'FORBIDDEN')
    expect(await t.db.session.count()).toBe(1)
  })

  it('refuses a request carrying both a session cookie and a key, even if each is good alone', async () => {
    await issueNonInteractiveGrant(t)
    const grantId = await onlyGrantId()
    const session = await signedInAdmin(t)
    const { key } = await apiKeyCaller(t, 'operator')
    const both = await callerWith(t, { session: session.value, csrf: session.csrf, authorization: `Bearer ${key}` })
    const refused = await expectTrpcError(both.grants.revoke({ id: grantId }), 'BAD_REQUEST')
    expect(refused.message).toMatch(/not both/)
    await expectTrpcError(both.grants.list({}), 'BAD_REQUEST')
    expect(await grantState(grantId)).toBe('issued')
  })

  it('never takes a session cookie for a key, nor a key for a session cookie', async () => {
    const session = await signedInAdmin(t)
    const { key } = await apiKeyCaller(t, 'admin')
    for (const authorization of [`Bearer ${session.value}`, `Bearer ${hashSecret(session.value)}`, 'Bearer ', 'Bearer gnap_ak_x', `Bearer ${key}x`]) {
      const error = await expectTrpcError((await callerWith(t, { authorization })).grants.list({}), 'UNAUTHORIZED')
      expect(error.message).toMatch(/API key/)
    }
    await expectTrpcError((await callerWith(t, { session: key })).grants.list({}), 'UNAUTHORIZED')
    // Another scheme is not ours (a proxy's Basic): the cookie session still decides.
    await expect((await callerWith(t, { session: session.value, authorization: 'Basic dXNlcjpwYXNz' })).grants.list({})).resolves.toBeDefined()
  })

  it('refuses an expired key UNAUTHORIZED', async () => {
    const { caller } = await adminCaller(t)
    const { key } = await caller.apiKeys.create({ name: 'brief', role: 'viewer', expiresAt: new Date(t.clock.now.getTime() + 60_000) })
    await expect((await callerWith(t, { authorization: `Bearer ${key}` })).grants.list({})).resolves.toBeDefined()
    t.clock.advance(60)
    await expectTrpcError((await callerWith(t, { authorization: `Bearer ${key}` })).grants.list({}), 'UNAUTHORIZED')
  })

  it('answers TOO_MANY_REQUESTS with the wait over the key’s per-minute limit; another key is not affected', async () => {
    await t.cleanup()
    t = await apiTestDeps({ apiKeyCallsPerMinute: 3 })
    const { caller } = await apiKeyCaller(t, 'viewer')
    const other = await apiKeyCaller(t, 'viewer', 'other')
    for (let i = 0; i < 3; i++) await caller.clients.list({})
    const refused = await expectTrpcError(caller.clients.list({}), 'TOO_MANY_REQUESTS')
    expect(refused.message).toMatch(/API key/)
    await expect(other.caller.clients.list({})).resolves.toBeDefined()
    t.clock.advance(60)
    await expect(caller.clients.list({})).resolves.toBeDefined()
  })
})
