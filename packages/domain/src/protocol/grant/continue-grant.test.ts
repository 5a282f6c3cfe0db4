import { describe, expect, it } from 'vitest'
import { GnapError } from '../../kernel/errors'
import { hashSecret } from '../../kernel/secrets'
import { TEST_CLIENT, TEST_IDP_SECRET, authAs, databaseText, gnapError, grantRequest, incomingAccess, outgoingAccess } from '../../testing/deps'
import {
  approvedGrant,
  decide,
  finish,
  interact,
  issueNonInteractiveGrant,
  requestPendingGrant,
  startSession,
  type FinishedGrant,
} from '../../testing/grant-flows'
import { getGrantForConsent } from '../interaction/get-grant-for-consent'
import { recordConsent } from '../interaction/record-consent'
import { startInteraction } from '../interaction/start-interaction'
import { finishInteraction } from '../interaction/finish-interaction'
import { cancelGrant } from './cancel-grant'
import { continueGrant } from './continue-grant'
import { parseContinueRequest } from './grant.wire'
import type { RequestAuth } from '../client/request-auth'
import { useTestDeps } from '../../testing/use-test-deps'

const t = useTestDeps()

const poll = (g: { continueId: string; continueToken: string }, auth: RequestAuth = authAs(g.continueToken)) =>
  continueGrant(t.deps, { continueId: g.continueId, interactRef: null, auth })

const continueWithRef = (g: { continueId: string; continueToken: string }, interactRef: string | null, auth = authAs(g.continueToken)) =>
  continueGrant(t.deps, { continueId: g.continueId, interactRef, auth })

const grantRow = (continueId: string) =>
  t.db.grant.findUniqueOrThrow({ where: { continueId }, include: { interaction: true, accessTokens: { orderBy: { createdAt: 'asc' } } } })

/**
 * `n` request authentications whose signature checks all return together, once the n-th has been asked: the
 * requests they belong to have all read their grant before any of them goes on to write.
 */
function readTogether(n: number, token: string): RequestAuth[] {
  let arrived = 0
  let release!: () => void
  const allArrived = new Promise<void>((resolve) => (release = resolve))
  return Array.from({ length: n }, () => ({
    token,
    async verifySignature() {
      if (++arrived === n) release()
      await allArrived
    },
  }))
}

/** A grant approved by the owner without a finish method: the client learns it by polling. */
async function approvedPollGrant(): Promise<FinishedGrant> {
  return interact(t, await requestPendingGrant(t, grantRequest({ interact: 'poll' })), 'accept')
}

describe('parseContinueRequest (docs/protocol.md §2.2 step 1)', () => {
  it.each<[string, unknown, string | null]>([
    ['no body', undefined, null],
    ['an empty object', {}, null],
    ['an interact_ref', { interact_ref: 'b0a8f2c4-0000-4000-8000-000000000000' }, 'b0a8f2c4-0000-4000-8000-000000000000'],
  ])('accepts %s', (_name, body, interactRef) => {
    expect(parseContinueRequest(body)).toEqual({ interactRef })
  })

  it.each<[string, unknown]>([
    ['null', null],
    ['an array', []],
    ['a string', 'interact_ref'],
    ['a numeric interact_ref', { interact_ref: 1 }],
    ['an empty interact_ref', { interact_ref: '' }],
    ['an unknown field', { foo: 'bar' }],
    ['an interact_ref with an extra field', { interact_ref: 'abc', extra: true }],
  ])('refuses %s with invalid_request 400', (_name, body) => {
    expect(() => parseContinueRequest(body)).toThrow(expect.objectContaining(gnapError('invalid_request', 400)))
  })
})

describe('continueGrant: authentication (docs/protocol.md §2.2 steps 2–4)', () => {
  it('returns invalid_continuation 401 without a GNAP token, before looking up the grant', async () => {
    const auth = authAs(null)
    await expect(poll({ continueId: 'unknown', continueToken: '' }, auth)).rejects.toMatchObject(gnapError('invalid_continuation', 401))
    expect(auth.verified).toEqual([])
  })

  it('returns invalid_continuation 404 for an unknown continue id', async () => {
    const auth = authAs('SOME-TOKEN')
    await expect(poll({ continueId: crypto.randomUUID(), continueToken: 'SOME-TOKEN' }, auth)).rejects.toMatchObject(
      gnapError('invalid_continuation', 404),
    )
    expect(auth.verified).toEqual([])
  })

  it('returns invalid_continuation 401 for the continuation token of another grant, before the signature', async () => {
    const a = await requestPendingGrant(t)
    const b = await requestPendingGrant(t)
    t.clock.advance(5)
    const auth = authAs(b.continueToken, { failSignature: new GnapError('invalid_client', 'bad signature') })
    await expect(poll(a, auth)).rejects.toMatchObject(gnapError('invalid_continuation', 401))
    expect(auth.verified).toEqual([])
  })

  it('returns invalid_continuation 401 for an access token presented as continuation token', async () => {
    const g = await issueNonInteractiveGrant(t)
    await expect(poll(g, authAs(g.tokenValue))).rejects.toMatchObject(gnapError('invalid_continuation', 401))
  })

  it('verifies the signature with the keys of the grant client', async () => {
    const g = await requestPendingGrant(t, grantRequest({ interact: 'poll' }))
    t.clock.advance(5)
    const auth = authAs(g.continueToken)
    await poll(g, auth)
    expect(auth.verified).toEqual([TEST_CLIENT])
  })

  it.each([
    ['invalid_client 401 when the signature does not verify', new GnapError('invalid_client', 'bad signature'), 401],
    ['invalid_client 400 when the client key cannot be resolved', 'unresolvable-key' as const, 400],
  ])('returns %s, and the wait clock is not restarted', async (_name, failure, status) => {
    const g = await requestPendingGrant(t, grantRequest({ interact: 'poll' }))
    const before = await grantRow(g.continueId)
    t.clock.advance(5)
    await expect(poll(g, authAs(g.continueToken, { failSignature: failure }))).rejects.toMatchObject(gnapError('invalid_client', status))
    expect(await grantRow(g.continueId)).toEqual(before)
  })

  it('checks the signature before the grant state', async () => {
    const g = await issueNonInteractiveGrant(t)
    const auth = authAs(g.continueToken, { failSignature: new GnapError('invalid_client', 'bad signature') })
    await expect(poll(g, auth)).rejects.toMatchObject(gnapError('invalid_client', 401))
  })
})

describe('continueGrant: finalized grants (docs/protocol.md §2.2 step 5)', () => {
  it.each([
    ['a poll', false],
    ['an interact_ref', true],
  ])('returns invalid_continuation 401 for a revoked grant on %s', async (_name, withRef) => {
    const g = await approvedGrant(t)
    await cancelGrant(t.deps, { continueId: g.continueId, auth: authAs(g.continueToken) })
    t.clock.advance(5)
    await expect(continueWithRef(g, withRef ? g.interactRef : null)).rejects.toMatchObject(gnapError('invalid_continuation', 401))
  })

  it.each([
    ['a poll', false],
    ['an interact_ref', true],
  ])('returns user_denied 401 for a grant the owner denied, on %s', async (_name, withRef) => {
    const g = await interact(t, await requestPendingGrant(t), 'reject')
    const interaction = await t.db.interaction.findUniqueOrThrow({ where: { id: g.interactionId } })
    t.clock.advance(5)
    await expect(continueWithRef(g, withRef ? interaction.interactRef : null)).rejects.toMatchObject(gnapError('user_denied', 401))
    expect(await t.db.accessToken.count()).toBe(0)
  })

  it('returns user_denied rather than too_fast for a denied grant continued at once', async () => {
    const g = await interact(t, await requestPendingGrant(t), 'reject')
    await expect(poll(g)).rejects.toMatchObject(gnapError('user_denied', 401))
  })

  it('returns too_many_attempts 401 when the interact_ref of an issued grant comes back', async () => {
    const approved = await approvedGrant(t)
    t.clock.advance(5)
    await continueWithRef(approved, approved.interactRef)
    await expect(continueWithRef(approved, approved.interactRef)).rejects.toMatchObject(gnapError('too_many_attempts', 401))
    expect(await t.db.accessToken.count()).toBe(1)
  })

  it('returns request_denied 401 when an issued grant is polled', async () => {
    const approved = await approvedGrant(t)
    t.clock.advance(5)
    await continueWithRef(approved, approved.interactRef)
    await expect(poll(approved)).rejects.toMatchObject(gnapError('request_denied', 401))
  })

  it('never mints a second token for a non-interactive grant', async () => {
    const g = await issueNonInteractiveGrant(t)
    t.clock.advance(60)
    await expect(poll(g)).rejects.toMatchObject(gnapError('request_denied', 401))
    await expect(continueWithRef(g, crypto.randomUUID())).rejects.toMatchObject(gnapError('too_many_attempts', 401))
    expect(await t.db.accessToken.count()).toBe(1)
  })
})

describe('continueGrant: wait (docs/protocol.md §2.2 step 6)', () => {
  it('returns too_fast when called before wait elapses', async () => {
    const g = await requestPendingGrant(t, grantRequest({ interact: 'poll' }))
    t.clock.advance(4.999)
    await expect(poll(g)).rejects.toMatchObject(gnapError('too_fast', 400))
  })

  it('answers once wait seconds have passed since the grant was created', async () => {
    const g = await requestPendingGrant(t, grantRequest({ interact: 'poll' }))
    t.clock.advance(5)
    await expect(poll(g)).resolves.toMatchObject({ continue: { wait: 5 } })
  })

  it('does not restart the wait clock on errors', async () => {
    const g = await requestPendingGrant(t, grantRequest({ interact: 'poll' }))
    t.clock.advance(1)
    await expect(poll(g)).rejects.toMatchObject(gnapError('too_fast', 400))
    t.clock.advance(3)
    await expect(poll(g)).rejects.toMatchObject(gnapError('too_fast', 400))
    t.clock.advance(1)
    await expect(poll(g)).resolves.toBeDefined()
  })

  it('restarts the wait clock with a pending poll', async () => {
    const g = await requestPendingGrant(t, grantRequest({ interact: 'poll' }))
    t.clock.advance(5)
    await poll(g)
    t.clock.advance(4)
    await expect(poll(g)).rejects.toMatchObject(gnapError('too_fast', 400))
    t.clock.advance(1)
    await expect(poll(g)).resolves.toMatchObject({ continue: { wait: 5 } })
    expect((await grantRow(g.continueId)).continueNotBefore).toEqual(new Date(t.clock.now.getTime() + 5_000))
  })

  it('enforces WAIT_SECONDS as configured', async () => {
    await t.reset({ config: { waitSeconds: 30 } })
    const g = await requestPendingGrant(t, grantRequest({ interact: 'poll' }))
    t.clock.advance(29)
    await expect(poll(g)).rejects.toMatchObject(gnapError('too_fast', 400))
    t.clock.advance(1)
    await expect(poll(g)).resolves.toMatchObject({ continue: { wait: 30 } })
  })

  it('answers exactly one of ten concurrent polls sent once wait has passed; the others are too_fast', async () => {
    const g = await requestPendingGrant(t, grantRequest({ interact: 'poll' }))
    t.clock.advance(5)
    // Every poll has read the grant (and seen the wait passed) before any of them writes: the signature check, which
    // comes between the read and the update, waits until all ten have arrived.
    const results = await Promise.allSettled(readTogether(10, g.continueToken).map((auth) => poll(g, auth)))
    const answered = results.filter((r) => r.status === 'fulfilled')
    expect(answered).toHaveLength(1)
    expect(answered[0]).toMatchObject({ value: { continue: { wait: 5 } } })
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject(gnapError('too_fast', 400))
    // The one answer restarted the clock: the next poll is early again.
    expect((await grantRow(g.continueId)).continueNotBefore).toEqual(new Date(t.clock.now.getTime() + 5_000))
    await expect(poll(g)).rejects.toMatchObject(gnapError('too_fast', 400))
  })

  it('returns too_fast for an interact_ref sent before wait elapses, and issues after', async () => {
    const g = await approvedGrant(t)
    await expect(continueWithRef(g, g.interactRef)).rejects.toMatchObject(gnapError('too_fast', 400))
    t.clock.advance(5)
    await expect(continueWithRef(g, g.interactRef)).resolves.toHaveProperty('access_token')
  })
})

describe('continueGrant: with interact_ref (docs/protocol.md §2.2 step 7)', () => {
  it('issues the token, finalizes the grant as issued and marks the reference used', async () => {
    await t.reset({ config: { accessTokenExpirySeconds: 1200 } })
    const access = [outgoingAccess(), incomingAccess()]
    const g = await approvedGrant(t, grantRequest({ access }))
    t.clock.advance(5)
    const response = await continueWithRef(g, g.interactRef)

    expect(response).toEqual({
      access_token: {
        value: expect.any(String),
        manage: expect.stringMatching(/^https:\/\/auth\.example\/token\/[0-9a-f-]{36}$/),
        expires_in: 1200,
        access,
      },
      continue: { access_token: { value: g.continueToken }, uri: `https://auth.example/continue/${g.continueId}` },
    })
    expect(response.continue).not.toHaveProperty('wait')
    expect(response).not.toHaveProperty('interact')

    const grant = await grantRow(g.continueId)
    expect(grant).toMatchObject({ state: 'finalized', finalizedReason: 'issued', finalizedAt: t.clock.now })
    expect(grant.interaction).toMatchObject({ state: 'approved', refUsedAt: t.clock.now })
    expect(grant.accessTokens).toHaveLength(1)
    expect(grant.accessTokens[0]).toMatchObject({
      state: 'active',
      valueHash: hashSecret(response.access_token!.value),
      expiresIn: 1200,
      expiresAt: new Date(t.clock.now.getTime() + 1_200_000),
    })
    const text = await databaseText(t)
    expect(text).not.toContain(response.access_token!.value)
    expect(text).not.toContain(g.continueToken)
  })

  it('returns invalid_continuation 404 for an interact_ref of another grant, and changes nothing', async () => {
    const a = await approvedGrant(t)
    const b = await approvedGrant(t)
    t.clock.advance(5)
    await expect(continueWithRef(a, b.interactRef)).rejects.toMatchObject(gnapError('invalid_continuation', 404))
    expect(await grantRow(a.continueId)).toMatchObject({ state: 'approved', interaction: { refUsedAt: null } })
    expect(await grantRow(b.continueId)).toMatchObject({ state: 'approved', interaction: { refUsedAt: null } })
  })

  it('returns invalid_continuation 404 for a made-up interact_ref', async () => {
    const g = await approvedGrant(t)
    t.clock.advance(5)
    await expect(continueWithRef(g, crypto.randomUUID())).rejects.toMatchObject(gnapError('invalid_continuation', 404))
  })

  it('returns request_denied 401 while the grant is still pending', async () => {
    const g = await requestPendingGrant(t)
    await startSession(t, g)
    await decide(t, g, 'accept') // decided, but not finished: the grant is still pending
    const { interactRef } = await t.db.interaction.findUniqueOrThrow({ where: { id: g.interactionId } })
    t.clock.advance(5)
    await expect(continueWithRef(g, interactRef)).rejects.toMatchObject(gnapError('request_denied', 401))
    expect(await grantRow(g.continueId)).toMatchObject({ state: 'pending', interaction: { refUsedAt: null } })
  })

  it('issues exactly one token to two concurrent continuations with one interact_ref', async () => {
    const g = await approvedGrant(t)
    t.clock.advance(5)
    const results = await Promise.allSettled([continueWithRef(g, g.interactRef), continueWithRef(g, g.interactRef)])

    const fulfilled = results.filter((r) => r.status === 'fulfilled')
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')
    expect(fulfilled).toHaveLength(1)
    expect(rejected).toHaveLength(1)
    expect(rejected[0]!.reason).toMatchObject(gnapError('too_many_attempts', 401))
    expect(await t.db.accessToken.count()).toBe(1)
    expect(await grantRow(g.continueId)).toMatchObject({ state: 'finalized', finalizedReason: 'issued' })
  })

  it('issues exactly one token to ten concurrent continuations with one interact_ref', async () => {
    const g = await approvedGrant(t)
    t.clock.advance(5)
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => continueWithRef(g, g.interactRef)))
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject(gnapError('too_many_attempts', 401))
    expect(await t.db.accessToken.count()).toBe(1)
  })
})

describe('continueGrant: poll (docs/protocol.md §2.2 step 8)', () => {
  it('returns request_denied 401 when the grant has a finish method', async () => {
    const g = await requestPendingGrant(t)
    t.clock.advance(5)
    await expect(poll(g)).rejects.toMatchObject(gnapError('request_denied', 401))
  })

  it('returns request_denied 401 when an approved grant with a finish method is polled, and issues nothing', async () => {
    const g = await approvedGrant(t)
    t.clock.advance(5)
    await expect(poll(g)).rejects.toMatchObject(gnapError('request_denied', 401))
    expect(await t.db.accessToken.count()).toBe(0)
  })

  it('answers a pending grant with continue and wait only', async () => {
    const g = await requestPendingGrant(t, grantRequest({ interact: 'poll' }))
    t.clock.advance(5)
    const response = await poll(g)
    expect(response).toEqual({
      continue: { access_token: { value: g.continueToken }, uri: `https://auth.example/continue/${g.continueId}`, wait: 5 },
    })
    expect(await grantRow(g.continueId)).toMatchObject({ state: 'pending' })
  })

  it('finalizes a grant whose interaction expired as expired, and answers invalid_interaction (more in expire-grants.test.ts)', async () => {
    const g = await requestPendingGrant(t, grantRequest({ interact: 'poll' }))
    t.clock.advance(601)
    await expect(poll(g)).rejects.toMatchObject(gnapError('invalid_interaction', 401))
    expect(await grantRow(g.continueId)).toMatchObject({ state: 'finalized', finalizedReason: 'expired', interaction: { state: 'pending' } })
  })

  it('issues the token when an approved grant without finish method is polled', async () => {
    const g = await approvedPollGrant()
    expect(g.finishResult).toMatchObject({ kind: 'accepted' })
    t.clock.advance(5)
    const response = await poll(g)
    expect(response.access_token).toMatchObject({ expires_in: 600, access: g.request.access })
    expect(response.continue).toEqual({ access_token: { value: g.continueToken }, uri: `https://auth.example/continue/${g.continueId}` })
    expect(await grantRow(g.continueId)).toMatchObject({ state: 'finalized', finalizedReason: 'issued' })
  })

  it('issues exactly one token to concurrent polls of an approved grant', async () => {
    const g = await approvedPollGrant()
    t.clock.advance(5)
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => poll(g)))
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject(gnapError('request_denied', 401))
    expect(await t.db.accessToken.count()).toBe(1)
  })
})

describe('a finalized grant never changes again (docs/protocol.md §3)', () => {
  async function finalized(kind: 'issued' | 'rejected' | 'revoked'): Promise<FinishedGrant> {
    if (kind === 'rejected') return interact(t, await requestPendingGrant(t), 'reject')
    const g = await approvedGrant(t)
    t.clock.advance(5)
    if (kind === 'issued') await continueWithRef(g, g.interactRef)
    else await cancelGrant(t.deps, { continueId: g.continueId, auth: authAs(g.continueToken) })
    return g
  }

  it.each(['issued', 'rejected', 'revoked'] as const)('leaves a %s grant as it is, whatever the client or the owner does', async (kind) => {
    const g = await finalized(kind)
    const { interactRef } = await t.db.interaction.findUniqueOrThrow({ where: { id: g.interactionId } })
    t.clock.advance(60)
    const before = await grantRow(g.continueId)
    const ids = { interactionId: g.interactionId, nonce: g.nonce }
    const idpSecret = TEST_IDP_SECRET

    await expect(poll(g)).rejects.toBeInstanceOf(GnapError)
    await expect(continueWithRef(g, interactRef)).rejects.toBeInstanceOf(GnapError)
    expect(await startInteraction(t.deps, ids)).toMatchObject({ kind: 'page', status: 403 })
    await expect(recordConsent(t.deps, { ...ids, choice: 'accept', idpSecret })).rejects.toBeInstanceOf(GnapError)
    await expect(recordConsent(t.deps, { ...ids, choice: 'reject', idpSecret })).rejects.toBeInstanceOf(GnapError)
    expect(await finishInteraction(t.deps, { ...ids, session: g.session })).toMatchObject({ kind: 'page', status: 404 })
    expect(await finish(t, g, g.session)).toMatchObject({ kind: 'page', status: 404 })
    if (kind !== 'issued') await cancelGrant(t.deps, { continueId: g.continueId, auth: authAs(g.continueToken) }).catch(() => undefined)
    if (kind !== 'revoked') await getGrantForConsent(t.deps, { ...ids, idpSecret })

    expect(await grantRow(g.continueId)).toEqual(before)
  })
})
