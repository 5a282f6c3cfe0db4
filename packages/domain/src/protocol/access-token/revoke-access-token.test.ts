import { describe, expect, it } from 'vitest'
import { GnapError } from '../../kernel/errors'
import { TEST_CLIENT, authAs, gnapError, introspect } from '../../testing/deps'
import { issueNonInteractiveGrant, lastSegment } from '../../testing/grant-flows'
import { cancelGrant } from '../grant/cancel-grant'
import { revokeAccessToken } from './revoke-access-token'
import { rotateAccessToken } from './rotate-access-token'
import { useTestDeps } from '../../testing/use-test-deps'

const t = useTestDeps()

const revoke = (managementId: string, auth: ReturnType<typeof authAs>) => revokeAccessToken(t.deps, { managementId, auth })
const tokenRow = (managementId: string) => t.db.accessToken.findUniqueOrThrow({ where: { managementId } })

describe('revokeAccessToken: authentication (docs/protocol.md §2.5)', () => {
  it('returns invalid_client 401 without a GNAP token', async () => {
    const g = await issueNonInteractiveGrant(t)
    await expect(revoke(g.managementId, authAs(null))).rejects.toMatchObject(gnapError('invalid_client', 401))
    expect(await tokenRow(g.managementId)).toMatchObject({ state: 'active' })
  })

  it('returns invalid_client 401 for an unknown management id', async () => {
    const g = await issueNonInteractiveGrant(t)
    await expect(revoke(crypto.randomUUID(), authAs(g.tokenValue))).rejects.toMatchObject(gnapError('invalid_client', 401))
  })

  it('verifies the signature with the keys of the grant client', async () => {
    const g = await issueNonInteractiveGrant(t)
    const auth = authAs(g.tokenValue)
    await revoke(g.managementId, auth)
    expect(auth.verified).toEqual([TEST_CLIENT])
  })

  it.each([
    ['invalid_client 401 when the signature does not verify', new GnapError('invalid_client', 'bad signature'), 401],
    // The contract lists no 400 invalid_client for this operation: an unresolvable key is a 401 here.
    ['invalid_client 401 when the client key cannot be resolved', 'unresolvable-key' as const, 401],
  ])('returns %s and keeps the token', async (_name, failure, status) => {
    const g = await issueNonInteractiveGrant(t)
    await expect(revoke(g.managementId, authAs(g.tokenValue, { failSignature: failure }))).rejects.toMatchObject(gnapError('invalid_client', status))
    expect(await tokenRow(g.managementId)).toMatchObject({ state: 'active' })
  })

  it('returns invalid_client 401 when the presented value is not the token this management URI names', async () => {
    const g = await issueNonInteractiveGrant(t)
    const other = await issueNonInteractiveGrant(t)
    await expect(revoke(g.managementId, authAs(other.tokenValue))).rejects.toMatchObject(gnapError('invalid_client', 401))
    await expect(revoke(g.managementId, authAs(g.continueToken))).rejects.toMatchObject(gnapError('invalid_client', 401))
    expect(await tokenRow(g.managementId)).toMatchObject({ state: 'active' })
    expect(await tokenRow(other.managementId)).toMatchObject({ state: 'active' })
  })
})

describe('revokeAccessToken: states (docs/protocol.md §2.5)', () => {
  it('revokes a live token', async () => {
    const g = await issueNonInteractiveGrant(t)
    t.clock.advance(30)
    await expect(revoke(g.managementId, authAs(g.tokenValue))).resolves.toBeUndefined()
    expect(await tokenRow(g.managementId)).toMatchObject({ state: 'revoked', revokedAt: t.clock.now })
    expect(await introspect(t.deps, { access_token: g.tokenValue })).toEqual({ active: false })
    // Only the token: the grant stays issued.
    expect(await t.db.grant.findUniqueOrThrow({ where: { continueId: g.continueId } })).toMatchObject({
      state: 'finalized',
      finalizedReason: 'issued',
    })
  })

  it('succeeds without change for a token already revoked, keeping the first revocation time', async () => {
    const g = await issueNonInteractiveGrant(t)
    await revoke(g.managementId, authAs(g.tokenValue))
    const first = await tokenRow(g.managementId)
    t.clock.advance(60)
    await expect(revoke(g.managementId, authAs(g.tokenValue))).resolves.toBeUndefined()
    expect(await tokenRow(g.managementId)).toEqual(first)
  })

  it('revokes an expired token, so it can no longer be rotated back to life', async () => {
    const g = await issueNonInteractiveGrant(t)
    t.clock.advance(601)
    await expect(revoke(g.managementId, authAs(g.tokenValue))).resolves.toBeUndefined()
    expect((await tokenRow(g.managementId))?.state).toBe('revoked')
    expect(await introspect(t.deps, { access_token: g.tokenValue })).toEqual({ active: false })
    await expect(rotateAccessToken(t.deps, { managementId: g.managementId, auth: authAs(g.tokenValue) })).rejects.toMatchObject({
      code: 'invalid_rotation',
      status: 404,
    })
  })

  it('succeeds without change for a rotated token and never touches its successor', async () => {
    const g = await issueNonInteractiveGrant(t)
    const { access_token } = await rotateAccessToken(t.deps, { managementId: g.managementId, auth: authAs(g.tokenValue) })
    const before = await tokenRow(g.managementId)
    await expect(revoke(g.managementId, authAs(g.tokenValue))).resolves.toBeUndefined()
    expect(await tokenRow(g.managementId)).toEqual(before)
    expect(await tokenRow(lastSegment(access_token.manage))).toMatchObject({ state: 'active', revokedAt: null })
    expect(await introspect(t.deps, { access_token: access_token.value })).toMatchObject({ active: true })
  })

  it('succeeds for a token whose grant was revoked', async () => {
    const g = await issueNonInteractiveGrant(t)
    await cancelGrant(t.deps, { continueId: g.continueId, auth: authAs(g.continueToken) })
    await expect(revoke(g.managementId, authAs(g.tokenValue))).resolves.toBeUndefined()
  })

  it('leaves the old value dead and at most the successor the rotation returned live when racing a rotation', async () => {
    const g = await issueNonInteractiveGrant(t)
    const [rotation, revocation] = await Promise.allSettled([
      rotateAccessToken(t.deps, { managementId: g.managementId, auth: authAs(g.tokenValue) }),
      revoke(g.managementId, authAs(g.tokenValue)),
    ])
    expect(revocation).toMatchObject({ status: 'fulfilled' })
    expect(await introspect(t.deps, { access_token: g.tokenValue })).toEqual({ active: false })
    const live = await t.db.accessToken.findMany({ where: { state: 'active' } })
    if (rotation!.status === 'fulfilled') {
      expect(live.map((r) => r.managementId)).toEqual([lastSegment(rotation!.value.access_token.manage)])
    } else {
      expect(rotation!.reason).toMatchObject(gnapError('invalid_rotation', 404))
      expect(live).toEqual([])
    }
  })
})
