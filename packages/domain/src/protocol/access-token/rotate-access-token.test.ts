import { describe, expect, it } from 'vitest'
import { GnapError } from '../../kernel/errors'
import { hashSecret } from '../../kernel/secrets'
import {
  TEST_CLIENT,
  authAs,
  databaseText,
  failWrites,
  gnapError,
  grantRequest,
  incomingAccess,
  outgoingAccess,
  introspect,
} from '../../testing/deps'
import { issueInteractiveGrant, issueNonInteractiveGrant, lastSegment, type IssuedGrant } from '../../testing/grant-flows'
import { cancelGrant } from '../grant/cancel-grant'
import { revokeAccessToken } from './revoke-access-token'
import { rotateAccessToken } from './rotate-access-token'
import { useTestDeps } from '../../testing/use-test-deps'

const t = useTestDeps()

const rotate = (managementId: string, auth: ReturnType<typeof authAs>) => rotateAccessToken(t.deps, { managementId, auth })
const rotateOwn = (g: Pick<IssuedGrant, 'managementId' | 'tokenValue'>) => rotate(g.managementId, authAs(g.tokenValue))
const tokenRow = (managementId: string) => t.db.accessToken.findUniqueOrThrow({ where: { managementId } })

describe('rotateAccessToken: authentication (docs/protocol.md §2.4 steps 1–3)', () => {
  it('returns invalid_client 401 without a GNAP token', async () => {
    const g = await issueNonInteractiveGrant(t)
    const auth = authAs(null)
    await expect(rotate(g.managementId, auth)).rejects.toMatchObject(gnapError('invalid_client', 401))
    expect(auth.verified).toEqual([])
  })

  it('returns invalid_rotation 404 for an unknown management id, before the signature', async () => {
    const g = await issueNonInteractiveGrant(t)
    const auth = authAs(g.tokenValue, { failSignature: new GnapError('invalid_client', 'bad signature') })
    await expect(rotate(crypto.randomUUID(), auth)).rejects.toMatchObject(gnapError('invalid_rotation', 404))
    expect(auth.verified).toEqual([])
  })

  it('verifies the signature with the keys of the grant client', async () => {
    const g = await issueNonInteractiveGrant(t)
    const auth = authAs(g.tokenValue)
    await rotate(g.managementId, auth)
    expect(auth.verified).toEqual([TEST_CLIENT])
  })

  it.each([
    ['invalid_client 401 when the signature does not verify', new GnapError('invalid_client', 'bad signature'), 401],
    // The contract lists no 400 invalid_client for this operation: an unresolvable key is a 401 here.
    ['invalid_client 401 when the client key cannot be resolved', 'unresolvable-key' as const, 401],
  ])('returns %s and keeps the token', async (_name, failure, status) => {
    const g = await issueNonInteractiveGrant(t)
    await expect(rotate(g.managementId, authAs(g.tokenValue, { failSignature: failure }))).rejects.toMatchObject(gnapError('invalid_client', status))
    expect(await tokenRow(g.managementId)).toMatchObject({ state: 'active', rotatedAt: null })
  })

  it.each([
    ['the token of another grant', async (_g: IssuedGrant) => (await issueNonInteractiveGrant(t)).tokenValue],
    ['the continuation token of its own grant', (g: IssuedGrant) => Promise.resolve(g.continueToken)],
    ['a made-up value', () => Promise.resolve('0123456789ABCDEF0123456789ABCDEF')],
  ])('returns invalid_client 401 when the presented value is %s', async (_name, presented) => {
    const g = await issueNonInteractiveGrant(t)
    await expect(rotate(g.managementId, authAs(await presented(g)))).rejects.toMatchObject(gnapError('invalid_client', 401))
    expect(await tokenRow(g.managementId)).toMatchObject({ state: 'active' })
    expect(await t.db.accessToken.count({ where: { grantId: (await tokenRow(g.managementId)).grantId } })).toBe(1)
  })
})

describe('rotateAccessToken: rotation (docs/protocol.md §2.4 steps 4–6)', () => {
  it('issues a new value and management URI with fresh expiry and the same access, and retires the old token', async () => {
    await t.reset({ config: { accessTokenExpirySeconds: 1800 } })
    const access = [outgoingAccess(), incomingAccess()]
    const g = await issueInteractiveGrant(t, grantRequest({ access }))
    t.clock.advance(120)

    const { access_token } = await rotateOwn(g)

    expect(access_token).toEqual({
      value: expect.any(String),
      manage: expect.stringMatching(/^https:\/\/auth\.example\/token\/[0-9a-f-]{36}$/),
      expires_in: 1800,
      access,
    })
    expect(access_token.value).not.toBe(g.tokenValue)
    expect(access_token.manage).not.toBe(g.response.access_token!.manage)
    expect(access_token.manage).not.toContain(access_token.value)

    const old = await tokenRow(g.managementId)
    const next = await tokenRow(lastSegment(access_token.manage))
    expect(old).toMatchObject({ state: 'rotated', rotatedAt: t.clock.now, revokedAt: null })
    expect(next).toMatchObject({
      state: 'active',
      grantId: old.grantId,
      previousId: old.id,
      valueHash: hashSecret(access_token.value),
      expiresIn: 1800,
      expiresAt: new Date(t.clock.now.getTime() + 1_800_000),
    })
    const text = await databaseText(t)
    expect(text).not.toContain(access_token.value)
    expect(text).not.toContain(g.tokenValue)
  })

  it('kills the old value and the old management URI at once', async () => {
    const g = await issueNonInteractiveGrant(t)
    const { access_token } = await rotateOwn(g)
    await expect(rotateOwn(g)).rejects.toMatchObject(gnapError('invalid_rotation', 404))
    // The old URI with the new value is not the token that URI names.
    await expect(rotate(g.managementId, authAs(access_token.value))).rejects.toMatchObject(gnapError('invalid_client', 401))
    expect(await introspect(t.deps, { access_token: g.tokenValue })).toEqual({ active: false })
    expect(await introspect(t.deps, { access_token: access_token.value })).toMatchObject({ active: true })
  })

  it('rotates the successor again, building a chain', async () => {
    const g = await issueNonInteractiveGrant(t)
    const second = (await rotateOwn(g)).access_token
    const third = (await rotateOwn({ managementId: lastSegment(second.manage), tokenValue: second.value })).access_token
    const rows = await t.db.accessToken.findMany({ orderBy: { createdAt: 'asc' } })
    expect(rows.map((r) => r.state)).toEqual(['rotated', 'rotated', 'active'])
    expect(rows[2]).toMatchObject({ managementId: lastSegment(third.manage), previousId: rows[1]!.id })
  })

  it('rotates an expired token', async () => {
    const g = await issueNonInteractiveGrant(t)
    t.clock.advance(601)
    expect(await introspect(t.deps, { access_token: g.tokenValue })).toEqual({ active: false })
    const { access_token } = await rotateOwn(g)
    expect(access_token.expires_in).toBe(600)
    expect(await introspect(t.deps, { access_token: access_token.value })).toMatchObject({ active: true })
  })

  it('returns invalid_rotation 404 for a revoked token', async () => {
    const g = await issueNonInteractiveGrant(t)
    await revokeAccessToken(t.deps, { managementId: g.managementId, auth: authAs(g.tokenValue) })
    await expect(rotateOwn(g)).rejects.toMatchObject(gnapError('invalid_rotation', 404))
    expect(await t.db.accessToken.count()).toBe(1)
  })

  it('returns invalid_rotation 404 for a token of a revoked grant', async () => {
    const g = await issueNonInteractiveGrant(t)
    await cancelGrant(t.deps, { continueId: g.continueId, auth: authAs(g.continueToken) })
    await expect(rotateOwn(g)).rejects.toMatchObject(gnapError('invalid_rotation', 404))
    expect(await t.db.accessToken.count()).toBe(1)
  })

  it('lets exactly one of 20 concurrent rotations of one token succeed', async () => {
    const g = await issueNonInteractiveGrant(t)
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => rotateOwn(g)))

    const winners = results.filter((r) => r.status === 'fulfilled')
    const losers = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')
    expect(winners).toHaveLength(1)
    expect(losers).toHaveLength(19)
    for (const loser of losers) expect(loser.reason).toMatchObject(gnapError('invalid_rotation', 404))
    expect(await t.db.accessToken.count()).toBe(2)
    expect(await t.db.accessToken.count({ where: { state: 'active' } })).toBe(1)
  })

  it('keeps the old token untouched when inserting the successor fails', async () => {
    const g = await issueNonInteractiveGrant(t)
    const restore = await failWrites(t, 'AccessToken', 'INSERT')
    await expect(rotateOwn(g)).rejects.not.toBeInstanceOf(GnapError)
    expect(await tokenRow(g.managementId)).toMatchObject({ state: 'active', rotatedAt: null })
    expect(await introspect(t.deps, { access_token: g.tokenValue })).toMatchObject({ active: true })
    await restore()
    await expect(rotateOwn(g)).resolves.toHaveProperty('access_token')
  })
})
