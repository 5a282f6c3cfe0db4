import { describe, expect, it } from 'vitest'
import { GnapError } from '../../kernel/errors'
import { TEST_CLIENT, authAs, failWrites, gnapError, introspect } from '../../testing/deps'
import {
  approvedGrant,
  interact,
  issueInteractiveGrant,
  issueNonInteractiveGrant,
  lastSegment,
  requestPendingGrant,
  type IssuedGrant,
} from '../../testing/grant-flows'
import { rotateAccessToken } from '../access-token/rotate-access-token'
import { revokeAccessToken } from '../access-token/revoke-access-token'
import { cancelGrant } from './cancel-grant'
import { useTestDeps } from '../../testing/use-test-deps'

const t = useTestDeps()

const cancel = (g: { continueId: string; continueToken: string }, auth = authAs(g.continueToken)) =>
  cancelGrant(t.deps, { continueId: g.continueId, auth })

const grantRow = (continueId: string) =>
  t.db.grant.findUniqueOrThrow({ where: { continueId }, include: { interaction: true, accessTokens: { orderBy: { createdAt: 'asc' } } } })

const rotate = (managementId: string, value: string) => rotateAccessToken(t.deps, { managementId, auth: authAs(value) })

async function rotated(g: IssuedGrant): Promise<{ managementId: string; value: string }> {
  const { access_token } = await rotate(g.managementId, g.tokenValue)
  return { managementId: lastSegment(access_token.manage), value: access_token.value }
}

describe('cancelGrant: authentication (docs/protocol.md §2.3, §2.2 steps 2–4)', () => {
  it('returns invalid_continuation 401 without a GNAP token', async () => {
    const g = await requestPendingGrant(t)
    await expect(cancel(g, authAs(null))).rejects.toMatchObject(gnapError('invalid_continuation', 401))
    expect(await grantRow(g.continueId)).toMatchObject({ state: 'pending' })
  })

  it('returns invalid_request 404 for an unknown continue id', async () => {
    await expect(cancel({ continueId: crypto.randomUUID(), continueToken: 'TOKEN' })).rejects.toMatchObject(gnapError('invalid_request', 404))
  })

  it('returns invalid_continuation 401 for the continuation token of another grant', async () => {
    const a = await requestPendingGrant(t)
    const b = await requestPendingGrant(t)
    await expect(cancel(a, authAs(b.continueToken))).rejects.toMatchObject(gnapError('invalid_continuation', 401))
    expect(await grantRow(a.continueId)).toMatchObject({ state: 'pending' })
  })

  it('verifies the signature with the keys of the grant client', async () => {
    const g = await requestPendingGrant(t)
    const auth = authAs(g.continueToken)
    await cancel(g, auth)
    expect(auth.verified).toEqual([TEST_CLIENT])
  })

  it.each([
    ['invalid_client 401 when the signature does not verify', new GnapError('invalid_client', 'bad signature'), 401],
    // The contract lists no 400 invalid_client for this operation: an unresolvable key is a 401 here.
    ['invalid_client 401 when the client key cannot be resolved', 'unresolvable-key' as const, 401],
  ])('returns %s and revokes nothing', async (_name, failure, status) => {
    const g = await issueNonInteractiveGrant(t)
    await expect(cancel(g, authAs(g.continueToken, { failSignature: failure }))).rejects.toMatchObject(gnapError('invalid_client', status))
    expect(await grantRow(g.continueId)).toMatchObject({ state: 'finalized', finalizedReason: 'issued', accessTokens: [{ state: 'active' }] })
  })
})

describe('cancelGrant: states (docs/protocol.md §2.3)', () => {
  it('revokes a pending grant', async () => {
    const g = await requestPendingGrant(t)
    await expect(cancel(g)).resolves.toBeUndefined()
    expect(await grantRow(g.continueId)).toMatchObject({ state: 'finalized', finalizedReason: 'revoked', finalizedAt: t.clock.now })
  })

  it('revokes an approved grant, so its interact_ref no longer issues a token', async () => {
    const g = await approvedGrant(t)
    await cancel(g)
    expect(await grantRow(g.continueId)).toMatchObject({ state: 'finalized', finalizedReason: 'revoked' })
  })

  it('revokes an issued grant and every live token of it in one go', async () => {
    const g = await issueInteractiveGrant(t)
    t.clock.advance(10)
    await cancel(g)
    const grant = await grantRow(g.continueId)
    expect(grant).toMatchObject({ state: 'finalized', finalizedReason: 'revoked', finalizedAt: t.clock.now })
    expect(grant.accessTokens).toEqual([expect.objectContaining({ state: 'revoked', revokedAt: t.clock.now })])
    expect(await introspect(t.deps, { access_token: g.tokenValue })).toEqual({ active: false })
  })

  it('keeps the rotation chain and the first revocation time of tokens already dead (docs/protocol.md §8.12)', async () => {
    const g = await issueNonInteractiveGrant(t)
    t.clock.advance(1)
    const second = await rotated(g)
    const rotatedAt = new Date(t.clock.now)
    t.clock.advance(1)
    const third = await rotated({ ...g, managementId: second.managementId, tokenValue: second.value })
    t.clock.advance(1)
    await revokeAccessToken(t.deps, { managementId: third.managementId, auth: authAs(third.value) })
    const revokedAt = new Date(t.clock.now)
    t.clock.advance(1)
    await cancel(g)
    const tokens = (await grantRow(g.continueId)).accessTokens
    expect(tokens.map((tk) => tk.state)).toEqual(['rotated', 'rotated', 'revoked'])
    expect(tokens[0]).toMatchObject({ rotatedAt, revokedAt: null })
    expect(tokens[2]).toMatchObject({ revokedAt })
    expect(tokens[1]!.previousId).toBe(tokens[0]!.id)
    expect(tokens[2]!.previousId).toBe(tokens[1]!.id)
  })

  it('revokes the rotated successor, not only the first token', async () => {
    const g = await issueNonInteractiveGrant(t)
    const next = await rotated(g)
    await cancel(g)
    const tokens = (await grantRow(g.continueId)).accessTokens
    expect(tokens.map((tk) => tk.state)).toEqual(['rotated', 'revoked'])
    expect(await introspect(t.deps, { access_token: next.value })).toEqual({ active: false })
    await expect(rotate(next.managementId, next.value)).rejects.toMatchObject(gnapError('invalid_rotation', 404))
  })

  it('answers a rejected grant with success and leaves it rejected', async () => {
    const g = await interact(t, await requestPendingGrant(t), 'reject')
    const before = await grantRow(g.continueId)
    await expect(cancel(g)).resolves.toBeUndefined()
    expect(await grantRow(g.continueId)).toEqual(before)
    expect(before).toMatchObject({ state: 'finalized', finalizedReason: 'rejected' })
  })

  it('returns invalid_continuation 401 for a grant already revoked', async () => {
    const g = await issueNonInteractiveGrant(t)
    await cancel(g)
    const before = await grantRow(g.continueId)
    t.clock.advance(5)
    await expect(cancel(g)).rejects.toMatchObject(gnapError('invalid_continuation', 401))
    expect(await grantRow(g.continueId)).toEqual(before)
  })

  it('lets exactly one of two concurrent cancellations succeed', async () => {
    const g = await issueNonInteractiveGrant(t)
    const results = await Promise.allSettled([cancel(g), cancel(g)])
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    const loser = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')
    expect(loser?.reason).toMatchObject(gnapError('invalid_continuation', 401))
  })

  it('changes nothing when revoking the tokens fails', async () => {
    const g = await issueNonInteractiveGrant(t)
    await failWrites(t, 'AccessToken', 'UPDATE')
    await expect(cancel(g)).rejects.not.toBeInstanceOf(GnapError)
    expect(await grantRow(g.continueId)).toMatchObject({ state: 'finalized', finalizedReason: 'issued', accessTokens: [{ state: 'active' }] })
  })
})

describe('cancelGrant racing rotation (docs/protocol.md §3 races)', () => {
  it.each(Array.from({ length: 5 }, (_, i) => i))('leaves no live token when the grant is revoked while its token rotates (run %i)', async () => {
    const g = await issueNonInteractiveGrant(t)
    const results = await Promise.allSettled([rotate(g.managementId, g.tokenValue), cancel(g)])
    expect(results[1]).toMatchObject({ status: 'fulfilled' })
    expect(await t.db.accessToken.count({ where: { state: 'active' } })).toBe(0)
    const rotation = results[0]!
    if (rotation.status === 'fulfilled') {
      expect(await introspect(t.deps, { access_token: rotation.value.access_token.value })).toEqual({ active: false })
    } else {
      expect(rotation.reason).toMatchObject(gnapError('invalid_rotation', 404))
    }
  })
})
