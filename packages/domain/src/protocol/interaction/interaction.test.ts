import { describe, expect, it } from 'vitest'
import { hashSecret } from '../../kernel/secrets'
import {
  TEST_CLIENT,
  TEST_CLIENT_NONCE,
  TEST_FINISH_URI,
  authAs,
  databaseText,
  gnapError,
  grantRequest,
  incomingAccess,
  outgoingAccess,
  stubWalletAddresses,
} from '../../testing/deps'
import { approvedGrant, decide, finish, interact, requestPendingGrant, startSession, type PendingGrant } from '../../testing/grant-flows'
import { cancelGrant } from '../grant/cancel-grant'
import { continueGrant } from '../grant/continue-grant'
import { finishHash } from './finish-hash'
import { getGrantForConsent } from './get-grant-for-consent'
import { recordConsent } from './record-consent'
import { startInteraction } from './start-interaction'
import { finishInteraction } from './finish-interaction'
import type { FrontChannelResult } from './front-channel'
import { useTestDeps } from '../../testing/use-test-deps'

const t = useTestDeps()

const IDP_SECRET = 'idp-secret-123456'
const ids = (g: Pick<PendingGrant, 'interactionId' | 'nonce'>) => ({ interactionId: g.interactionId, nonce: g.nonce })
const start = (g: Pick<PendingGrant, 'interactionId' | 'nonce'>) => startInteraction(t.deps, ids(g))
const lookup = (g: Pick<PendingGrant, 'interactionId' | 'nonce'>, idpSecret: string | null = IDP_SECRET) =>
  getGrantForConsent(t.deps, { interactionId: g.interactionId, nonce: g.nonce, idpSecret })
const choose = (g: Pick<PendingGrant, 'interactionId' | 'nonce'>, choice: string, idpSecret: string | null = IDP_SECRET) =>
  recordConsent(t.deps, { interactionId: g.interactionId, nonce: g.nonce, choice, idpSecret })
const interactionRow = (g: PendingGrant) => t.db.interaction.findUniqueOrThrow({ where: { id: g.interactionId }, include: { grant: true } })
const cancel = (g: PendingGrant) => cancelGrant(t.deps, { continueId: g.continueId, auth: authAs(g.continueToken) })

function redirectQuery(result: FrontChannelResult): { base: string; query: Record<string, string> } {
  if (result.kind !== 'redirect') throw new Error(`expected a redirect, got ${JSON.stringify(result)}`)
  const url = new URL(result.location)
  return { base: url.origin + url.pathname, query: Object.fromEntries(url.searchParams) }
}

const unknownIds = [
  ['an unknown interaction id', (g: PendingGrant) => ({ interactionId: crypto.randomUUID(), nonce: g.nonce })],
  ['the wrong nonce', (g: PendingGrant) => ({ interactionId: g.interactionId, nonce: 'ABCDEF0123456789ABCDEF0123456789' })],
] as const

describe('startInteraction (docs/protocol.md §2.7)', () => {
  it.each(unknownIds)('answers a 400 unknown_interaction page for %s', async (_name, ids) => {
    const g = await requestPendingGrant(t)
    expect(await startInteraction(t.deps, ids(g))).toMatchObject({ kind: 'page', status: 400, code: 'unknown_interaction' })
    expect((await interactionRow(g)).sessionHash).toBeNull()
  })

  it('binds a session to the interaction and redirects to the identity provider with the stored client name and URI', async () => {
    await t.reset({ walletAddresses: stubWalletAddresses({ [TEST_CLIENT]: { publicName: 'Shop & Co' } }) })
    const g = await requestPendingGrant(t)
    const result = await start(g)

    const { base, query } = redirectQuery(result)
    expect(base).toBe('https://idp.example/consent')
    expect(query).toEqual({ interactId: g.interactionId, nonce: g.nonce, clientName: 'Shop & Co', clientUri: TEST_CLIENT })
    expect(result).toMatchObject({ session: { value: expect.any(String), maxAgeSeconds: 600 } })
    const session = (result as { session: { value: string } }).session.value
    expect((await interactionRow(g)).sessionHash).toBe(hashSecret(session))
    expect(await databaseText(t)).not.toContain(session)
  })

  it('gives the session cookie the lifetime the interaction has left', async () => {
    const g = await requestPendingGrant(t)
    t.clock.advance(250)
    expect(await start(g)).toMatchObject({ session: { maxAgeSeconds: 350 } })
  })

  it('still starts at the last instant of the interaction lifetime', async () => {
    const g = await requestPendingGrant(t)
    t.clock.advance(600)
    expect(await start(g)).toMatchObject({ kind: 'redirect', location: expect.stringContaining('https://idp.example/consent') })
  })

  it('answers a 403 invalid_interaction page without redirect for a finalized grant', async () => {
    const g = await requestPendingGrant(t)
    await cancel(g)
    expect(await start(g)).toMatchObject({ kind: 'page', status: 403, code: 'invalid_interaction' })
    expect((await interactionRow(g)).sessionHash).toBeNull()
  })

  it('answers a 403 invalid_interaction page without redirect for a finished interaction', async () => {
    const g = await approvedGrant(t)
    const before = await interactionRow(g)
    expect(await start(g)).toMatchObject({ kind: 'page', status: 403, code: 'invalid_interaction' })
    expect(await interactionRow(g)).toEqual(before)
  })

  it('redirects to the finish URI with invalid_interaction when the interaction was already decided, in the browser that started it', async () => {
    const g = await requestPendingGrant(t)
    const session = await startSession(t, g)
    await decide(t, g, 'accept')
    expect(redirectQuery(await startInteraction(t.deps, { ...ids(g), session }))).toEqual({
      base: TEST_FINISH_URI,
      query: { result: 'invalid_interaction', message: 'interaction already decided' },
    })
  })

  it('redirects to the finish URI with invalid_interaction when the interaction expired, in the browser that started it, and binds no session', async () => {
    const g = await requestPendingGrant(t)
    const session = await startSession(t, g)
    const before = (await interactionRow(g)).sessionHash
    t.clock.advance(600.001)
    expect(redirectQuery(await startInteraction(t.deps, { ...ids(g), session }))).toEqual({
      base: TEST_FINISH_URI,
      query: { result: 'invalid_interaction', message: 'interaction expired' },
    })
    expect((await interactionRow(g)).sessionHash).toBe(before)
  })

  // No open redirect: a stale link opened anywhere else (no cookie, another interaction's cookie) shows a page whose
  // link the person may follow, instead of sending the browser to the client's finish URI by itself.
  it.each([
    ['expired', 'Request expired', 'interaction expired', (_g: PendingGrant) => Promise.resolve(t.clock.advance(601))],
    ['already decided', 'Request already decided', 'interaction already decided', (g: PendingGrant) => decide(t, g, 'reject')],
  ])(
    'answers a 403 page with a link to the finish URI when the interaction is %s and the browser has not its session',
    async (_name, title, message, arrange) => {
      const g = await requestPendingGrant(t)
      const other = await requestPendingGrant(t)
      const otherSession = await startSession(t, other)
      await arrange(g)
      const back = `${TEST_FINISH_URI}?${new URLSearchParams({ result: 'invalid_interaction', message }).toString()}`
      for (const session of [undefined, null, otherSession, 'not-a-session']) {
        const result = await startInteraction(t.deps, { ...ids(g), session })
        expect(result).toEqual({
          kind: 'page',
          status: 403,
          code: 'invalid_interaction',
          title,
          message: expect.any(String),
          link: { href: back, text: `Go back to ${new URL(TEST_FINISH_URI).host}` },
        })
      }
      expect((await interactionRow(g)).sessionHash).toBeNull()
    },
  )

  it.each([
    ['expired', (_g: PendingGrant) => Promise.resolve(t.clock.advance(601))],
    ['already decided', (g: PendingGrant) => decide(t, g, 'reject')],
  ])('answers a 403 invalid_interaction page when the interaction is %s and there is no finish URI', async (_name, arrange) => {
    const g = await requestPendingGrant(t, grantRequest({ interact: 'poll' }))
    await arrange(g)
    expect(await start(g)).toMatchObject({ kind: 'page', status: 403, code: 'invalid_interaction' })
  })
})

describe('getGrantForConsent (docs/protocol.md §2.9)', () => {
  it.each<[string, string | null]>([
    ['no secret', null],
    ['a wrong secret', 'idp-secret-654321'],
    ['a secret of another length', 'x'],
  ])('returns invalid_request 401 for %s, before looking up the interaction', async (_name, secret) => {
    await expect(lookup({ interactionId: 'unknown', nonce: 'unknown' }, secret)).rejects.toMatchObject(gnapError('invalid_request', 401))
  })

  it('returns invalid_request 401 when no identity provider secret is configured', async () => {
    await t.reset({ config: { identityServerSecrets: null } })
    const g = await requestPendingGrant(t)
    await expect(lookup(g, IDP_SECRET)).rejects.toMatchObject(gnapError('invalid_request', 401))
  })

  it.each(unknownIds)('returns unknown_interaction 404 for %s', async (_name, ids) => {
    const g = await requestPendingGrant(t)
    await expect(lookup(ids(g))).rejects.toMatchObject(gnapError('unknown_interaction', 404))
  })

  it('returns unknown_interaction 404 for a revoked grant', async () => {
    const g = await requestPendingGrant(t)
    await cancel(g)
    await expect(lookup(g)).rejects.toMatchObject(gnapError('unknown_interaction', 404))
  })

  it('returns the grant id, the access items as granted and the interaction state', async () => {
    const access = [outgoingAccess(), incomingAccess()]
    const g = await requestPendingGrant(t, grantRequest({ access }))
    const grant = (await interactionRow(g)).grant
    expect(await lookup(g)).toEqual({ grantId: grant.id, access, state: 'PENDING' })
  })

  it.each([
    ['accept', 'APPROVED'],
    ['reject', 'DENIED'],
  ] as const)('reports %s as state %s', async (choice, state) => {
    const g = await requestPendingGrant(t)
    await decide(t, g, choice)
    expect(await lookup(g)).toMatchObject({ state })
  })
})

describe('recordConsent (docs/protocol.md §2.10)', () => {
  it('returns invalid_interaction 401 for a bad secret, before looking at the choice', async () => {
    const g = await requestPendingGrant(t)
    await expect(choose(g, 'maybe', 'wrong')).rejects.toMatchObject(gnapError('invalid_interaction', 401))
    await expect(choose(g, 'accept', null)).rejects.toMatchObject(gnapError('invalid_interaction', 401))
    expect((await interactionRow(g)).state).toBe('pending')
  })

  it('returns invalid_request 400 for a choice other than accept or reject, before looking up the interaction', async () => {
    await expect(choose({ interactionId: 'unknown', nonce: 'unknown' }, 'approve')).rejects.toMatchObject(gnapError('invalid_request', 400))
  })

  it.each(unknownIds)('returns unknown_interaction 404 for %s', async (_name, ids) => {
    const g = await requestPendingGrant(t)
    await expect(choose(ids(g), 'accept')).rejects.toMatchObject(gnapError('unknown_interaction', 404))
  })

  it('returns user_denied 401 for a revoked grant', async () => {
    const g = await requestPendingGrant(t)
    await cancel(g)
    await expect(choose(g, 'accept')).rejects.toMatchObject(gnapError('user_denied', 401))
    expect((await interactionRow(g)).state).toBe('pending')
  })

  it('returns user_denied 401 for a rejected grant', async () => {
    const g = await interact(t, await requestPendingGrant(t), 'reject')
    await expect(choose(g, 'accept')).rejects.toMatchObject(gnapError('user_denied', 401))
    expect((await interactionRow(g)).state).toBe('denied')
  })

  it('returns invalid_interaction 400 once the interaction is decided', async () => {
    const g = await requestPendingGrant(t)
    await decide(t, g, 'accept')
    await expect(choose(g, 'reject')).rejects.toMatchObject(gnapError('invalid_interaction', 400))
    await expect(choose(g, 'accept')).rejects.toMatchObject(gnapError('invalid_interaction', 400))
    expect((await interactionRow(g)).state).toBe('approved')
  })

  it('returns invalid_interaction 400 for an expired interaction', async () => {
    const g = await requestPendingGrant(t)
    t.clock.advance(601)
    await expect(choose(g, 'accept')).rejects.toMatchObject(gnapError('invalid_interaction', 400))
    expect((await interactionRow(g)).state).toBe('pending')
  })

  it('returns invalid_interaction 400 when the grant is no longer pending', async () => {
    const g = await requestPendingGrant(t)
    // Only this check differs from a decidable interaction: the interaction is still pending and unexpired.
    await t.db.grant.update({ where: { continueId: g.continueId }, data: { state: 'approved' } })
    await expect(choose(g, 'accept')).rejects.toMatchObject(gnapError('invalid_interaction', 400))
    expect((await interactionRow(g)).state).toBe('pending')
  })

  it.each([
    ['accept', 'approved'],
    ['reject', 'denied'],
  ] as const)('records %s as %s and leaves the grant pending until finish', async (choice, state) => {
    const g = await requestPendingGrant(t)
    t.clock.advance(30)
    await expect(choose(g, choice)).resolves.toBeUndefined()
    const row = await interactionRow(g)
    expect(row).toMatchObject({ state, decidedAt: t.clock.now, finishedAt: null })
    expect(row.grant).toMatchObject({ state: 'pending', finalizedReason: null })
  })

  it('lets exactly one of concurrent decisions win', async () => {
    const g = await requestPendingGrant(t)
    const results = await Promise.allSettled([choose(g, 'accept'), choose(g, 'reject'), choose(g, 'accept'), choose(g, 'reject')])
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject(gnapError('invalid_interaction', 400))
    expect(['approved', 'denied']).toContain((await interactionRow(g)).state)
  })
})

describe('finishInteraction (docs/protocol.md §2.8)', () => {
  it.each(unknownIds)('answers a 404 page for %s', async (_name, ids) => {
    const g = await requestPendingGrant(t)
    const session = await startSession(t, g)
    await decide(t, g, 'accept')
    expect(await finishInteraction(t.deps, { ...ids(g), session })).toMatchObject({ kind: 'page', status: 404 })
    expect((await interactionRow(g)).finishedAt).toBeNull()
  })

  it.each([
    ['no session', async () => null],
    ['a made-up session', async () => 'F00DF00DF00DF00DF00DF00DF00DF00DF00DF00DF00DF00D'],
    ['the session of another interaction', async () => startSession(t, await requestPendingGrant(t))],
  ])('answers a 401 invalid session page with %s', async (_name, session) => {
    const g = await requestPendingGrant(t)
    await startSession(t, g)
    await decide(t, g, 'accept')
    expect(await finish(t, g, await session())).toMatchObject({ kind: 'page', status: 401 })
    expect(await interactionRow(g)).toMatchObject({ finishedAt: null, grant: { state: 'pending' } })
  })

  it('answers a 401 page when the interaction was never started in a browser', async () => {
    const g = await requestPendingGrant(t)
    await decide(t, g, 'accept')
    expect(await finish(t, g, null)).toMatchObject({ kind: 'page', status: 401 })
  })

  it('approves the grant, marks the interaction finished and redirects with hash and interact_ref', async () => {
    const g = await requestPendingGrant(t)
    const session = await startSession(t, g)
    await decide(t, g, 'accept')
    t.clock.advance(20)
    const result = await finish(t, g, session)

    const row = await interactionRow(g)
    expect(row).toMatchObject({ finishedAt: t.clock.now, refUsedAt: null, grant: { state: 'approved', finalizedReason: null } })
    const { base, query } = redirectQuery(result)
    expect(base).toBe(TEST_FINISH_URI)
    expect(query).toEqual({
      hash: finishHash({ clientNonce: TEST_CLIENT_NONCE, asNonce: g.nonce, interactRef: row.interactRef, grantEndpoint: 'https://auth.example/' }),
      interact_ref: row.interactRef,
    })
    // URL encoding: base64's + / = never appear raw in the query.
    const rawHash = /[?&]hash=([^&]*)/.exec((result as { location: string }).location)?.[1]
    expect(rawHash).toBe(encodeURIComponent(query.hash!))
  })

  it('keeps query parameters the client put on its finish URI', async () => {
    const g = await requestPendingGrant(
      t,
      grantRequest({
        interact: { start: ['redirect'], finish: { method: 'redirect', uri: `${TEST_FINISH_URI}?state=abc`, nonce: TEST_CLIENT_NONCE } },
      }),
    )
    const { query } = redirectQuery((await interact(t, g)).finishResult)
    expect(query).toMatchObject({ state: 'abc', hash: expect.any(String), interact_ref: expect.any(String) })
  })

  it('finalizes the grant as rejected on a denial and redirects with grant_rejected, without hash or interact_ref', async () => {
    const g = await interact(t, await requestPendingGrant(t), 'reject')
    expect(redirectQuery(g.finishResult)).toEqual({ base: TEST_FINISH_URI, query: { result: 'grant_rejected' } })
    expect(await interactionRow(g)).toMatchObject({
      finishedAt: t.clock.now,
      grant: { state: 'finalized', finalizedReason: 'rejected', finalizedAt: t.clock.now },
    })
    t.clock.advance(5)
    await expect(continueGrant(t.deps, { continueId: g.continueId, interactRef: null, auth: authAs(g.continueToken) })).rejects.toMatchObject(
      gnapError('user_denied', 401),
    )
  })

  it('redirects with grant_invalid while the owner has not decided, and finishes later', async () => {
    const g = await requestPendingGrant(t)
    const session = await startSession(t, g)
    expect(redirectQuery(await finish(t, g, session))).toEqual({ base: TEST_FINISH_URI, query: { result: 'grant_invalid' } })
    expect(await interactionRow(g)).toMatchObject({ finishedAt: null, grant: { state: 'pending' } })
    await decide(t, g, 'accept')
    expect(redirectQuery(await finish(t, g, session)).query).toHaveProperty('hash')
  })

  it.each([
    ['accept', { kind: 'accepted' }, 'approved'],
    ['reject', { kind: 'accepted' }, 'finalized'],
  ] as const)('answers 202 without finish URI on %s', async (choice, expected, state) => {
    const g = await interact(t, await requestPendingGrant(t, grantRequest({ interact: 'poll' })), choice)
    expect(g.finishResult).toMatchObject(expected)
    expect((await interactionRow(g)).grant.state).toBe(state)
  })

  it('answers a 401 page without finish URI while the owner has not decided', async () => {
    const g = await requestPendingGrant(t, grantRequest({ interact: 'poll' }))
    const session = await startSession(t, g)
    expect(await finish(t, g, session)).toMatchObject({ kind: 'page', status: 401 })
    expect(await interactionRow(g)).toMatchObject({ finishedAt: null, grant: { state: 'pending' } })
  })

  it('answers a replayed finish with a 404 page and no second hash', async () => {
    const g = await approvedGrant(t)
    expect(redirectQuery(g.finishResult).query).toHaveProperty('hash')
    const before = await interactionRow(g)
    t.clock.advance(5)
    const replay = await finish(t, g, g.session)
    expect(replay).toMatchObject({ kind: 'page', status: 404 })
    expect(JSON.stringify(replay)).not.toContain(g.interactRef!)
    expect(await interactionRow(g)).toEqual(before)
  })

  it('answers a replayed finish after issuance with a 404 page and leaves the grant issued', async () => {
    const g = await approvedGrant(t)
    t.clock.advance(5)
    await continueGrant(t.deps, { continueId: g.continueId, interactRef: g.interactRef, auth: authAs(g.continueToken) })
    expect(await finish(t, g, g.session)).toMatchObject({ kind: 'page', status: 404 })
    expect((await interactionRow(g)).grant).toMatchObject({ state: 'finalized', finalizedReason: 'issued' })
  })

  it('answers a 404 page when the grant was revoked before the owner came back', async () => {
    const g = await requestPendingGrant(t)
    const session = await startSession(t, g)
    await decide(t, g, 'accept')
    await cancel(g)
    expect(await finish(t, g, session)).toMatchObject({ kind: 'page', status: 404 })
    expect(await interactionRow(g)).toMatchObject({ finishedAt: null, grant: { state: 'finalized', finalizedReason: 'revoked' } })
  })

  it('checks the session before the grant state', async () => {
    const g = await requestPendingGrant(t)
    await startSession(t, g)
    await cancel(g)
    expect(await finish(t, g, null)).toMatchObject({ kind: 'page', status: 401 })
  })

  it('redirects with invalid_interaction when the interaction expired, and finalizes the grant as expired', async () => {
    const g = await requestPendingGrant(t)
    const session = await startSession(t, g)
    await decide(t, g, 'accept')
    t.clock.advance(601)
    expect(redirectQuery(await finish(t, g, session))).toEqual({
      base: TEST_FINISH_URI,
      query: { result: 'invalid_interaction', message: 'interaction expired' },
    })
    expect(await interactionRow(g)).toMatchObject({ finishedAt: null, grant: { state: 'finalized', finalizedReason: 'expired' } })
  })

  it('answers a 401 page when the interaction expired and there is no finish URI', async () => {
    const g = await requestPendingGrant(t, grantRequest({ interact: 'poll' }))
    const session = await startSession(t, g)
    await decide(t, g, 'accept')
    t.clock.advance(601)
    expect(await finish(t, g, session)).toMatchObject({ kind: 'page', status: 401, code: 'invalid_interaction' })
    expect((await interactionRow(g)).grant).toMatchObject({ state: 'finalized', finalizedReason: 'expired' })
  })

  it('gives exactly one of concurrent finishes the redirect with the hash', async () => {
    const g = await requestPendingGrant(t)
    const session = await startSession(t, g)
    await decide(t, g, 'accept')
    const results = await Promise.all(Array.from({ length: 5 }, () => finish(t, g, session)))
    expect(results.filter((r) => r.kind === 'redirect')).toHaveLength(1)
    expect(results.filter((r) => r.kind === 'page' && r.status === 404)).toHaveLength(4)
    expect((await interactionRow(g)).grant.state).toBe('approved')
  })
})
