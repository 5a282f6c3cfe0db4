import { describe, expect, it } from 'vitest'
import { isGnapError } from '../../kernel/errors'
import { hashSecret } from '../../kernel/secrets'
import type { ConsoleActor } from '../admin/roles'
import { databaseText } from '../../testing/deps'
import { useTestDeps } from '../../testing/use-test-deps'
import { admitApiKeyCall, createApiKey, findApiKeyCaller, listApiKeys, revokeApiKey } from './api-keys'

const t = useTestDeps()

const ADMIN: ConsoleActor = { kind: 'admin', id: 'admin-1', label: 'ops@example.com', role: 'admin' }

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
    expect(await findApiKeyCaller(t.deps, key)).toMatchObject({ actor: { kind: 'apiKey', id: apiKey.id, label: 'api key "sync"', role: 'operator' } })
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
