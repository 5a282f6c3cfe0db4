import { beforeEach, describe, expect, it } from 'vitest'
import { isGnapError } from '../../kernel/errors'
import { hashSecret } from '../../kernel/secrets'
import { deleteAdmin } from '../admin/admin.repo'
import { changeAdminRole, disableAdmin, enableAdmin, listAdmins } from '../admin/manage-admins'
import type { ConsoleActor } from '../admin/roles'
import { databaseText } from '../../testing/deps'
import { keyCreator } from '../../testing/key-creator'
import { useTestDeps } from '../../testing/use-test-deps'
import { admitApiKeyCall, createApiKey, findApiKeyCaller, listApiKeys, revokeApiKey } from './api-keys'

const t = useTestDeps()

/** The administrator who creates the keys (a real account: a key answers to its creator). */
let ADMIN: ConsoleActor
beforeEach(async () => {
  ADMIN = await keyCreator(t.sql, 'ops@example.com')
})

describe('createApiKey', () => {
  it('gives the key once, with a recognisable prefix, and stores only its SHA-256', async () => {
    const { key, apiKey } = await createApiKey(t.deps, { name: 'sync', role: 'operator', actor: ADMIN })
    expect(key).toMatch(/^gnap_ak_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/)
    expect(key.startsWith(`${apiKey.prefix}_`)).toBe(true)
    expect(apiKey).toMatchObject({ name: 'sync', role: 'operator', status: 'active', createdBy: 'ops@example.com', lastUsedAt: null })
    const text = await databaseText(t)
    expect(text).not.toContain(key)
    expect(text).not.toContain(key.slice(apiKey.prefix.length + 1))
    expect(await t.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } })).toMatchObject({ hash: hashSecret(key), prefix: apiKey.prefix })
    expect(await t.db.auditLog.findMany()).toMatchObject([
      { actor: 'ops@example.com', action: 'api-key.create', target: `api-key:${apiKey.id}`, detail: 'api key "sync", role operator' },
    ])
  })

  it('refuses a past expiry and the name of a key in use, writing nothing', async () => {
    await expect(
      createApiKey(t.deps, { name: 'old', role: 'viewer', expiresAt: new Date(t.clock.now.getTime() - 1000), actor: ADMIN }),
    ).rejects.toThrow('future')
    await createApiKey(t.deps, { name: 'sync', role: 'viewer', actor: ADMIN })
    await expect(createApiKey(t.deps, { name: 'sync', role: 'admin', actor: ADMIN })).rejects.toThrow('exists')
    expect(await t.db.apiKey.count()).toBe(1)
    expect(await t.db.auditLog.count()).toBe(1)
  })
})

describe('findApiKeyCaller', () => {
  it('names the key and its role, and refuses a wrong secret, another shape and a session-like value', async () => {
    const { key, apiKey } = await createApiKey(t.deps, { name: 'sync', role: 'operator', actor: ADMIN })
    expect(await findApiKeyCaller(t.deps, key)).toMatchObject({
      actor: { kind: 'apiKey', id: apiKey.id, label: 'api key "sync"', role: 'operator', tenantId: null },
    })
    const last = key.at(-1) === 'A' ? 'B' : 'A'
    expect(await findApiKeyCaller(t.deps, key.slice(0, -1) + last)).toBeNull()
    expect(await findApiKeyCaller(t.deps, apiKey.prefix)).toBeNull()
    expect(await findApiKeyCaller(t.deps, 'A'.repeat(48))).toBeNull()
  })

  it('refuses a key once revoked, and an expired one', async () => {
    const revoked = await createApiKey(t.deps, { name: 'gone', role: 'admin', actor: ADMIN })
    t.clock.advance(1)
    const expiring = await createApiKey(t.deps, { name: 'brief', role: 'viewer', expiresAt: new Date(t.clock.now.getTime() + 60_000), actor: ADMIN })
    await revokeApiKey(t.deps, { id: revoked.apiKey.id, actor: ADMIN })
    expect(await findApiKeyCaller(t.deps, revoked.key)).toBeNull()
    expect(await findApiKeyCaller(t.deps, expiring.key)).not.toBeNull()
    t.clock.advance(60)
    expect(await findApiKeyCaller(t.deps, expiring.key)).toBeNull()
    expect((await listApiKeys(t.deps)).map((k) => [k.name, k.status])).toEqual([
      ['brief', 'expired'],
      ['gone', 'revoked'],
    ])
    await expect(revokeApiKey(t.deps, { id: revoked.apiKey.id, actor: ADMIN })).rejects.toThrow('already revoked')
    expect((await t.db.auditLog.findMany({ where: { action: 'api-key.revoke' } })).map((e) => e.detail)).toEqual(['api key "gone"'])
  })
})

describe('admitApiKeyCall', () => {
  it('refuses calls over the per-minute limit with Retry-After, until the next minute', async () => {
    await t.reset({ config: { apiKeyCallsPerMinute: 2 } })
    ADMIN = await keyCreator(t.sql, 'ops@example.com')
    const { key } = await createApiKey(t.deps, { name: 'sync', role: 'viewer', actor: ADMIN })
    const other = await createApiKey(t.deps, { name: 'other', role: 'viewer', actor: ADMIN })
    const caller = async (k: string) => (await findApiKeyCaller(t.deps, k))!
    await admitApiKeyCall(t.deps, await caller(key))
    await admitApiKeyCall(t.deps, await caller(key))
    const refused = await admitApiKeyCall(t.deps, await caller(key)).catch((e: unknown) => e)
    expect(isGnapError(refused) && [refused.status, refused.retryAfterSeconds]).toEqual([429, 60])
    await admitApiKeyCall(t.deps, await caller(other.key))
    t.clock.advance(60)
    await admitApiKeyCall(t.deps, await caller(key))
  })

  it('records the last use at most once a minute', async () => {
    const { key, apiKey } = await createApiKey(t.deps, { name: 'sync', role: 'viewer', actor: ADMIN })
    const lastUsed = async () => (await t.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } })).lastUsedAt
    const first = new Date(t.clock.now)
    await admitApiKeyCall(t.deps, (await findApiKeyCaller(t.deps, key))!)
    expect(await lastUsed()).toEqual(first)
    t.clock.advance(59)
    await admitApiKeyCall(t.deps, (await findApiKeyCaller(t.deps, key))!)
    expect(await lastUsed()).toEqual(first)
    t.clock.advance(2)
    await admitApiKeyCall(t.deps, (await findApiKeyCaller(t.deps, key))!)
    expect(await lastUsed()).toEqual(t.clock.now)
  })
})

describe('a key answers to its creator', () => {
  /** Another admin who manages the creator (a server keeps an active admin), and the creator's key of `role`. */
  async function setUp(role: 'viewer' | 'operator' | 'admin' = 'admin') {
    const root = await keyCreator(t.sql, 'root@example.com')
    const created = await createApiKey(t.deps, { name: 'sync', role, actor: ADMIN })
    const roleNow = async () => (await findApiKeyCaller(t.deps, created.key))?.actor.role ?? null
    return { root, ...created, roleNow }
  }

  it('acts at most with its creator’s current role: a demoted creator’s admin key acts as viewer, and as admin again once promoted', async () => {
    const { root, roleNow } = await setUp('admin')
    expect(await roleNow()).toBe('admin')
    await changeAdminRole(t.deps, { change: { adminId: ADMIN.id, role: 'viewer' }, actor: root })
    expect(await roleNow()).toBe('viewer')
    expect(await listApiKeys(t.deps)).toMatchObject([
      { name: 'sync', role: 'admin', actsAs: 'viewer', creatorStatus: 'active', createdBy: 'ops@example.com' },
    ])
    await changeAdminRole(t.deps, { change: { adminId: ADMIN.id, role: 'operator' }, actor: root })
    expect(await roleNow()).toBe('operator')
    await changeAdminRole(t.deps, { change: { adminId: ADMIN.id, role: 'admin' }, actor: root })
    expect(await roleNow()).toBe('admin')
  })

  it('keeps a key’s own lower role under a higher creator', async () => {
    const { roleNow } = await setUp('viewer')
    expect(await roleNow()).toBe('viewer')
  })

  it('is refused while its creator is disabled, and works again once they are enabled', async () => {
    const { root, roleNow, apiKey } = await setUp('operator')
    expect(await disableAdmin(t.deps, { change: { adminId: ADMIN.id }, actor: root })).toMatchObject({ revokedKeys: 0 })
    expect(await roleNow()).toBeNull()
    expect(await listApiKeys(t.deps)).toMatchObject([{ id: apiKey.id, status: 'active', creatorStatus: 'disabled', actsAs: null }])
    await enableAdmin(t.deps, { change: { adminId: ADMIN.id }, actor: root })
    expect(await roleNow()).toBe('operator')
  })

  it('is refused once its creator is deleted, and when its creator is unknown', async () => {
    const { roleNow } = await setUp('viewer')
    const other = await createApiKey(t.deps, { name: 'other', role: 'viewer', actor: await keyCreator(t.sql, 'other@example.com') })
    await deleteAdmin(t.sql, ADMIN.id)
    expect(await roleNow()).toBeNull()
    expect((await listApiKeys(t.deps)).find((k) => k.name === 'sync')).toMatchObject({ creatorStatus: 'deleted', actsAs: null })
    // A key from before keys recorded their creator, whose creator's email matched no administrator.
    await t.sql.run(`UPDATE "ApiKey" SET "createdById" = NULL WHERE "id" = $1`, [other.apiKey.id])
    expect(await findApiKeyCaller(t.deps, other.key)).toBeNull()
  })

  it('disabling with revokeKeys revokes the creator’s live keys in the same change, one audit entry each, and leaves the others alone', async () => {
    const { root, key, apiKey } = await setUp('admin')
    t.clock.advance(1)
    const second = await createApiKey(t.deps, { name: 'reports', role: 'viewer', actor: ADMIN })
    t.clock.advance(1)
    const brief = await createApiKey(t.deps, { name: 'brief', role: 'viewer', expiresAt: new Date(t.clock.now.getTime() + 1000), actor: ADMIN })
    const rootsKey = await createApiKey(t.deps, { name: 'root key', role: 'viewer', actor: root })
    t.clock.advance(2)
    expect((await listAdmins(t.deps)).map((a) => [a.email, a.liveApiKeys])).toEqual([
      ['ops@example.com', 2],
      ['root@example.com', 1],
    ])
    expect(await disableAdmin(t.deps, { change: { adminId: ADMIN.id, revokeKeys: true }, actor: root })).toMatchObject({ revokedKeys: 2 })
    const byName = new Map((await listApiKeys(t.deps)).map((k) => [k.name, k.status]))
    expect(Object.fromEntries(byName)).toEqual({ sync: 'revoked', reports: 'revoked', brief: 'expired', 'root key': 'active' })
    expect(await t.db.apiKey.findUniqueOrThrow({ where: { id: brief.apiKey.id } })).toMatchObject({ revokedAt: null })
    const revocations = await t.db.auditLog.findMany({ where: { action: 'api-key.revoke' }, orderBy: { target: 'asc' } })
    expect(revocations.map((e) => [e.actor, e.target, e.detail])).toEqual(
      [
        ['root@example.com', `api-key:${apiKey.id}`, 'api key "sync"; its creator ops@example.com was disabled'],
        ['root@example.com', `api-key:${second.apiKey.id}`, 'api key "reports"; its creator ops@example.com was disabled'],
      ].sort((a, b) => a[1]!.localeCompare(b[1]!)),
    )
    expect(await t.db.auditLog.findFirst({ where: { action: 'admin.disable' } })).toMatchObject({ detail: '0 sessions ended; 2 API keys revoked' })
    // Revoked for good: enabling the creator again does not bring them back.
    await enableAdmin(t.deps, { change: { adminId: ADMIN.id }, actor: root })
    expect(await findApiKeyCaller(t.deps, key)).toBeNull()
    expect(await findApiKeyCaller(t.deps, rootsKey.key)).not.toBeNull()
    expect((await listAdmins(t.deps)).map((a) => a.liveApiKeys)).toEqual([0, 1])
  })

  it('revokes nothing when the disable is refused', async () => {
    const { root, apiKey } = await setUp('admin')
    await expect(disableAdmin(t.deps, { change: { adminId: ADMIN.id, revokeKeys: true }, actor: ADMIN })).rejects.toThrow('your own account')
    await disableAdmin(t.deps, { change: { adminId: ADMIN.id }, actor: root })
    await expect(disableAdmin(t.deps, { change: { adminId: ADMIN.id, revokeKeys: true }, actor: root })).rejects.toThrow('already disabled')
    expect(await t.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } })).toMatchObject({ revokedAt: null })
    expect(await t.db.auditLog.count({ where: { action: 'api-key.revoke' } })).toBe(0)
  })
})
