import { describe, expect, it } from 'vitest'
import { TEST_FINISH_URI, authAs, gnapError, grantRequest } from '../../testing/deps'
import { decide, finish, requestPendingGrant, startSession, type PendingGrant } from '../../testing/grant-flows'
import { assertMatchesSpec } from '../../testing/spec-validator'
import { useTestDeps } from '../../testing/use-test-deps'
import { startInteraction } from '../interaction/start-interaction'
import { recordConsent } from '../interaction/record-consent'
import { getGrantForConsent } from '../interaction/get-grant-for-consent'
import { listGrants, ListGrantsInputSchema } from '../../operator/admin/list-grants'
import { getStats, GetStatsInputSchema } from '../../operator/admin/get-stats'
import { getGrantDetail } from '../../operator/admin/get-grant-detail'
import { revokeGrantAs } from '../../operator/admin/admin-revoke-grant'
import { deleteExpiredRecords } from '../../operator/retention/retention'
import { cancelGrant } from './cancel-grant'
import { continueGrant } from './continue-grant'
import { expireOverdueGrants } from './expire-grants'

// A grant whose interaction expires before the owner's answer comes back is finalized as expired at its first touch,
// or by the retention job (docs/protocol.md §3). Interactions last INTERACTION_EXPIRY_SECONDS (600 in tests) and are
// expired once now is past their end.

const t = useTestDeps()
const EXPIRY = 600

const poll = (g: PendingGrant) => continueGrant(t.deps, { continueId: g.continueId, interactRef: null, auth: authAs(g.continueToken) })
const cancel = (g: PendingGrant) => cancelGrant(t.deps, { continueId: g.continueId, auth: authAs(g.continueToken) })
const grantOf = (g: PendingGrant) => t.db.grant.findUniqueOrThrow({ where: { continueId: g.continueId }, include: { interaction: true } })
const pollGrant = () => requestPendingGrant(t, grantRequest({ interact: 'poll' }))

/** The error a continuation gets, as the client reads it: code, status, and whether the contract check accepts it. */
async function continueError(call: Promise<unknown>): Promise<{ code: string; status: number }> {
  const e = (await call.then(
    () => null,
    (err: unknown) => err,
  )) as { code: string; status: number; toBody: () => unknown } | null
  if (!e) throw new Error('the continuation succeeded')
  assertMatchesSpec('auth-server', '/continue/{id}', 'POST', e.status, e.toBody())
  return { code: e.code, status: e.status }
}

describe('continue and poll after the interaction expired (docs/protocol.md §2.2)', () => {
  it('keeps polling answered with wait until the interaction expires', async () => {
    const g = await pollGrant()
    t.clock.advance(EXPIRY)
    await expect(poll(g)).resolves.toMatchObject({ continue: { wait: 5 } })
    expect(await grantOf(g)).toMatchObject({ state: 'pending', finalizedReason: null })
  })

  it('finalizes the grant as expired at the first poll after, and answers 401 invalid_interaction to every poll', async () => {
    const g = await pollGrant()
    t.clock.advance(EXPIRY + 1)
    expect(await continueError(poll(g))).toEqual({ code: 'invalid_interaction', status: 401 })
    expect(await grantOf(g)).toMatchObject({ state: 'finalized', finalizedReason: 'expired', finalizedAt: t.clock.now })
    t.clock.advance(60)
    expect(await continueError(poll(g))).toEqual({ code: 'invalid_interaction', status: 401 })
  })

  it('answers invalid_interaction to a continue with the interaction reference once the interaction expired undecided', async () => {
    const g = await requestPendingGrant(t)
    const ref = (await t.db.interaction.findUniqueOrThrow({ where: { id: g.interactionId } })).interactRef
    t.clock.advance(EXPIRY + 1)
    const call = continueGrant(t.deps, { continueId: g.continueId, interactRef: ref, auth: authAs(g.continueToken) })
    expect(await continueError(call)).toEqual({ code: 'invalid_interaction', status: 401 })
    expect(await grantOf(g)).toMatchObject({ state: 'finalized', finalizedReason: 'expired' })
  })

  it('expires a grant whose owner approved at the identity provider but whose browser never came back in time', async () => {
    const g = await requestPendingGrant(t)
    await startSession(t, g)
    await decide(t, g, 'accept')
    t.clock.advance(EXPIRY + 1)
    expect(await continueError(poll(g))).toEqual({ code: 'invalid_interaction', status: 401 })
    expect(await grantOf(g)).toMatchObject({ state: 'finalized', finalizedReason: 'expired', interaction: { state: 'approved', finishedAt: null } })
  })

  it('leaves an approved grant alone: its interaction is over, and the client may still continue it', async () => {
    const g = await pollGrant()
    const session = await startSession(t, g)
    await decide(t, g, 'accept')
    await finish(t, g, session)
    t.clock.advance(EXPIRY + 1)
    expect(await expireOverdueGrants(t.deps)).toBe(0)
    await expect(poll(g)).resolves.toMatchObject({ access_token: { expires_in: 600 } })
    expect(await grantOf(g)).toMatchObject({ state: 'finalized', finalizedReason: 'issued' })
  })
})

describe('cancel after the interaction expired (docs/protocol.md §2.3)', () => {
  it('answers 204 to a cancel of an overdue grant, which it finalizes as expired, and again after', async () => {
    const g = await pollGrant()
    t.clock.advance(EXPIRY + 1)
    await expect(cancel(g)).resolves.toBeUndefined()
    expect(await grantOf(g)).toMatchObject({ state: 'finalized', finalizedReason: 'expired' })
    await expect(cancel(g)).resolves.toBeUndefined()
    expect(await grantOf(g)).toMatchObject({ state: 'finalized', finalizedReason: 'expired' })
  })

  it('answers 204 to a cancel of a grant a poll already finalized as expired, and changes nothing', async () => {
    const g = await pollGrant()
    t.clock.advance(EXPIRY + 1)
    await poll(g).catch(() => null)
    const before = await grantOf(g)
    t.clock.advance(10)
    await expect(cancel(g)).resolves.toBeUndefined()
    expect(await grantOf(g)).toEqual(before)
  })

  it('refuses an administrator revocation of an expired grant as a conflict, with nothing to revoke', async () => {
    const g = await pollGrant()
    t.clock.advance(EXPIRY + 1)
    const grant = await grantOf(g)
    const who = {
      kind: 'console' as const,
      actor: { kind: 'admin' as const, id: 'admin-1', label: 'a@example.com', role: 'admin' as const, tenantId: null },
    }
    await expect(revokeGrantAs(t.deps, { grantId: grant.id, who })).rejects.toMatchObject({ code: 'conflict' })
    expect(await grantOf(g)).toMatchObject({ state: 'finalized', finalizedReason: 'expired' })
  })
})

describe('the interaction pages and the identity-provider API after expiry (docs/protocol.md §2.7–§2.11)', () => {
  it('finalizes the grant when the owner opens the interaction link too late, and keeps saying "expired" after', async () => {
    const g = await requestPendingGrant(t)
    t.clock.advance(EXPIRY + 1)
    const first = await startInteraction(t.deps, { interactionId: g.interactionId, nonce: g.nonce })
    expect(first).toMatchObject({ kind: 'page', status: 403, code: 'invalid_interaction', title: 'Request expired' })
    expect(await grantOf(g)).toMatchObject({ state: 'finalized', finalizedReason: 'expired' })
    const again = await startInteraction(t.deps, { interactionId: g.interactionId, nonce: g.nonce })
    expect(again).toMatchObject({ kind: 'page', status: 403, code: 'invalid_interaction', title: 'Request expired' })
  })

  it('finalizes the grant at a finish that comes too late, and sends the browser back with invalid_interaction', async () => {
    const g = await requestPendingGrant(t)
    const session = await startSession(t, g)
    await decide(t, g, 'accept')
    t.clock.advance(EXPIRY + 1)
    const result = await finish(t, g, session)
    expect(result.kind === 'redirect' && new URL(result.location).searchParams.get('result')).toBe('invalid_interaction')
    expect(result.kind === 'redirect' && result.location.startsWith(TEST_FINISH_URI)).toBe(true)
    expect(await grantOf(g)).toMatchObject({ state: 'finalized', finalizedReason: 'expired', interaction: { finishedAt: null } })
    // A second finish tells the same, not "already handled".
    expect(await finish(t, g, session)).toMatchObject({ kind: 'redirect', location: result.kind === 'redirect' ? result.location : '' })
  })

  it('finalizes the grant at a late identity-provider decision (400 invalid_interaction) and at a late lookup', async () => {
    const g = await requestPendingGrant(t)
    t.clock.advance(EXPIRY + 1)
    await expect(decide(t, g, 'accept')).rejects.toMatchObject(gnapError('invalid_interaction', 400))
    expect(await grantOf(g)).toMatchObject({ state: 'finalized', finalizedReason: 'expired', interaction: { state: 'pending' } })

    const other = await requestPendingGrant(t)
    t.clock.advance(EXPIRY + 1)
    const lookup = await getGrantForConsent(t.deps, { interactionId: other.interactionId, nonce: other.nonce, idpSecret: 'idp-secret-123456' })
    expect(lookup.state).toBe('PENDING')
    expect(await grantOf(other)).toMatchObject({ state: 'finalized', finalizedReason: 'expired' })
    await expect(
      recordConsent(t.deps, { interactionId: other.interactionId, nonce: other.nonce, choice: 'reject', idpSecret: 'idp-secret-123456' }),
    ).rejects.toMatchObject(gnapError('invalid_interaction', 400))
  })
})

describe('the console after expiry (docs/protocol.md §2.13, §3)', () => {
  it('lists, filters, shows and counts an overdue grant as expired, never as pending', async () => {
    const g = await pollGrant()
    const live = await pollGrant()
    t.clock.advance(EXPIRY + 1)
    const fresh = await pollGrant()
    const id = (await grantOf(g)).id

    const expired = await listGrants(t.deps, ListGrantsInputSchema.parse({ filters: { state: 'finalized', finalizedReason: 'expired' } }))
    expect(expired.items.map((r) => r.id).sort()).toEqual([id, (await grantOf(live)).id].sort())
    expect(expired.items.every((r) => r.status === 'expired')).toBe(true)
    const pending = await listGrants(t.deps, ListGrantsInputSchema.parse({ filters: { state: 'pending' } }))
    expect(pending.items.map((r) => r.id)).toEqual([(await grantOf(fresh)).id])

    const detail = await getGrantDetail(t.deps, id)
    expect(detail).toMatchObject({ status: 'expired', state: 'finalized', finalizedReason: 'expired', revocable: false })
    expect(detail.history.map((e) => e.kind)).toEqual(['grant-requested', 'grant-expired'])

    const stats = await getStats(
      t.deps,
      GetStatsInputSchema.parse({ from: new Date(t.clock.now.getTime() - 86_400_000), to: new Date(t.clock.now.getTime() + 1000) }),
    )
    expect(stats.grants).toMatchObject({ total: 3, pending: 1, expired: 2 })
  })

  it('counts a grant as expired in the overview even when nothing else touched it', async () => {
    await pollGrant()
    t.clock.advance(EXPIRY + 1)
    const stats = await getStats(
      t.deps,
      GetStatsInputSchema.parse({ from: new Date(t.clock.now.getTime() - 86_400_000), to: new Date(t.clock.now.getTime() + 1000) }),
    )
    expect(stats.grants).toMatchObject({ total: 1, pending: 0, expired: 1 })
  })
})

describe('the retention job and overdue grants (docs/protocol.md §3, §7)', () => {
  it('finalizes every overdue grant, in batches, and leaves unexpired and approved ones alone', async () => {
    const overdue = [await pollGrant(), await pollGrant(), await pollGrant(), await requestPendingGrant(t), await requestPendingGrant(t)]
    const approved = await pollGrant()
    await finish(t, approved, await startSession(t, approved).then(async (s) => (await decide(t, approved, 'accept'), s)))
    t.clock.advance(EXPIRY + 1)
    const fresh = await pollGrant()

    expect(await deleteExpiredRecords(t.deps, { batchSize: 2 })).toMatchObject({ expiredGrants: 5 })
    for (const g of overdue) expect(await grantOf(g)).toMatchObject({ state: 'finalized', finalizedReason: 'expired', finalizedAt: t.clock.now })
    expect(await grantOf(approved)).toMatchObject({ state: 'approved' })
    expect(await grantOf(fresh)).toMatchObject({ state: 'pending' })
    expect(await deleteExpiredRecords(t.deps)).toMatchObject({ expiredGrants: 0 })
  })

  it('lets a finish approving a grant and the sweep expiring it at the same instant leave one consistent outcome', async () => {
    for (let round = 0; round < 5; round++) {
      const g = await pollGrant()
      const session = await startSession(t, g)
      await decide(t, g, 'accept')
      // The finish runs at the interaction's last instant; the sweep, one millisecond later, sees it expired.
      t.clock.advance(EXPIRY)
      const later = { ...t.deps, clock: () => new Date(t.clock.now.getTime() + 1) }
      const [finished] = await Promise.all([finish(t, g, session), expireOverdueGrants(later)])
      const row = await grantOf(g)
      if (row.state === 'approved') {
        expect(finished).toMatchObject({ kind: 'accepted' })
        expect(row.interaction?.finishedAt).not.toBeNull()
      } else {
        expect(row).toMatchObject({ state: 'finalized', finalizedReason: 'expired', interaction: { finishedAt: null } })
        expect(finished).toMatchObject({ kind: 'page', status: 404 })
      }
      t.clock.advance(1)
    }
  })
})
