import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  TEST_CLIENT,
  TEST_CLIENT_NONCE,
  TEST_FINISH_URI,
  TEST_OWNER,
  authAs,
  buildTestDeps,
  databaseText,
  grantRequest,
  outgoingAccess,
  type TestDeps,
} from '../../testing/deps'
import { decide, finish, requestPendingGrant, startSession, type PendingGrant } from '../../testing/grant-flows'
import { describeAccessItem } from '../access/describe-access'
import { cancelGrant } from '../grant/cancel-grant'
import { continueGrant } from '../grant/continue-grant'
import { finishHash } from '../interaction/finish-hash'
import type { FrontChannelResult } from '../interaction/front-channel'
import { startInteraction } from '../interaction/start-interaction'
import { createOwner } from '../../operator/owner/create-owner'
import { signInOwner } from '../../operator/owner/sign-in-owner'
import { createSession } from '../../kernel/session/create-session'
import { csrfTokenFor } from '../../kernel/session/csrf'
import { getConsentScreen } from './get-consent-screen'
import { decideConsent } from './decide-consent'
import type { ConsentInput } from './consent-checks'

// The built-in consent screen, used when no identity provider is configured.
let t: TestDeps
beforeEach(async () => {
  t = await buildTestDeps({ config: { identityServerUrl: null } })
})
afterEach(async () => {
  await t.cleanup()
})

const ALICE = { email: 'alice@example.com', name: 'Alice', password: 'alice-password-1', walletAddresses: [TEST_OWNER] }
const BOB = { email: 'bob@example.com', name: 'Bob', password: 'bob-password-1', walletAddresses: ['https://wallet.example/bob'] }

/** Creates the owner and signs them in; returns the owner's id and session cookie value. */
async function signedIn(owner: typeof ALICE): Promise<{ id: string; session: string }> {
  const { id } = await createOwner(t.sql, owner)
  return { id, session: await signIn(owner) }
}

async function signIn(owner: typeof ALICE): Promise<string> {
  const session = await signInOwner(t.deps, { email: owner.email, password: owner.password })
  if (!session) throw new Error('sign-in failed')
  return session.value
}

/** A pending grant whose interaction this browser started: the interaction session is the cookie value. */
async function started(request = grantRequest()): Promise<PendingGrant & { interactionSession: string }> {
  const g = await requestPendingGrant(t, request)
  return { ...g, interactionSession: await startSession(t, g) }
}

const input = (g: Pick<PendingGrant, 'interactionId' | 'nonce'>, interactionSession: string | null, ownerSession: string | null): ConsentInput => ({
  interactionId: g.interactionId,
  nonce: g.nonce,
  interactionSession,
  ownerSession,
})

const screen = (g: Pick<PendingGrant, 'interactionId' | 'nonce'>, interactionSession: string | null, ownerSession: string | null) =>
  getConsentScreen(t.deps, input(g, interactionSession, ownerSession))

const decideAs = (
  g: Pick<PendingGrant, 'interactionId' | 'nonce'>,
  interactionSession: string | null,
  ownerSession: string | null,
  csrf: string | null,
  choice: string | null,
) => decideConsent(t.deps, { ...input(g, interactionSession, ownerSession), csrf, choice })

const ourFinishUrl = (g: Pick<PendingGrant, 'interactionId' | 'nonce'>) => `https://auth.example/interact/${g.interactionId}/${g.nonce}/finish`
const interactionRow = (g: PendingGrant) => t.db.interaction.findUniqueOrThrow({ where: { id: g.interactionId }, include: { grant: true } })
const cancel = (g: PendingGrant) => cancelGrant(t.deps, { continueId: g.continueId, auth: authAs(g.continueToken) })

function redirectTo(result: FrontChannelResult | { kind: string }): { base: string; query: Record<string, string> } {
  if (result.kind !== 'redirect' || !('location' in result)) throw new Error(`expected a redirect, got ${JSON.stringify(result)}`)
  const url = new URL(result.location)
  return { base: url.origin + url.pathname, query: Object.fromEntries(url.searchParams) }
}

/** Runs `act` and asserts that not one row of any table changed. */
async function expectNoWrites<T>(act: () => Promise<T>): Promise<T> {
  const before = await databaseText(t)
  const result = await act()
  expect(await databaseText(t)).toBe(before)
  return result
}

describe('startInteraction without an identity provider', () => {
  it('sends the browser to the built-in consent screen of this interaction', async () => {
    const g = await requestPendingGrant(t)
    const result = await startInteraction(t.deps, { interactionId: g.interactionId, nonce: g.nonce })
    expect(result).toMatchObject({
      kind: 'redirect',
      location: `https://auth.example/interact/${g.interactionId}/${g.nonce}/consent`,
      session: { value: expect.any(String), maxAgeSeconds: 600 },
    })
  })
})

describe('getConsentScreen', () => {
  it.each([
    ['an unknown interaction id', (g: PendingGrant) => ({ interactionId: crypto.randomUUID(), nonce: g.nonce })],
    ['the wrong nonce', (g: PendingGrant) => ({ interactionId: g.interactionId, nonce: 'ABCDEF0123456789ABCDEF0123456789' })],
    ['an id that is not a UUID', (g: PendingGrant) => ({ interactionId: 'not-an-id', nonce: g.nonce })],
  ])('answers a 400 unknown_interaction page for %s', async (_name, ids) => {
    const g = await started()
    const { session } = await signedIn(ALICE)
    const result = await expectNoWrites(() => screen(ids(g), g.interactionSession, session))
    expect(result).toMatchObject({ kind: 'page', status: 400, code: 'unknown_interaction' })
  })

  it.each([
    ['no interaction session', async () => null],
    ['a wrong interaction session', async () => 'F'.repeat(48)],
    ['the session of another interaction', async () => (await started()).interactionSession],
    ['the owner session in place of the interaction session', async () => signIn(ALICE)],
  ])('answers a 401 page for %s, even to a signed-in owner', async (_name, session) => {
    const g = await started()
    const owner = await signedIn(ALICE)
    const presented = await session()
    const result = await expectNoWrites(() => screen(g, presented, owner.session))
    expect(result).toMatchObject({ kind: 'page', status: 401 })
  })

  it('answers a 401 page for an interaction that was never started in a browser', async () => {
    const g = await requestPendingGrant(t)
    const other = await started()
    const result = await expectNoWrites(() => screen(g, other.interactionSession, null))
    expect(result).toMatchObject({ kind: 'page', status: 401 })
  })

  it('answers a 403 invalid_interaction page, without redirect, when the grant is finalized', async () => {
    const g = await started()
    const { session } = await signedIn(ALICE)
    await cancel(g)
    const result = await expectNoWrites(() => screen(g, g.interactionSession, session))
    expect(result).toMatchObject({ kind: 'page', status: 403, code: 'invalid_interaction' })
  })

  it('answers a 403 invalid_interaction page when the interaction is finished', async () => {
    const g = await started()
    const { session } = await signedIn(ALICE)
    await decide(t, g, 'accept')
    await finish(t, g, g.interactionSession)
    const result = await expectNoWrites(() => screen(g, g.interactionSession, session))
    expect(result).toMatchObject({ kind: 'page', status: 403, code: 'invalid_interaction' })
  })

  it('redirects to the client finish URI with invalid_interaction when the interaction expired, and finalizes the grant as expired', async () => {
    const g = await started()
    const { session } = await signedIn(ALICE)
    t.clock.advance(601)
    const result = await screen(g, g.interactionSession, session)
    expect(redirectTo(result)).toEqual({ base: TEST_FINISH_URI, query: { result: 'invalid_interaction', message: 'interaction expired' } })
    expect((await interactionRow(g)).grant).toMatchObject({ state: 'finalized', finalizedReason: 'expired' })
  })

  it('answers a 403 page when the interaction expired and there is no finish URI', async () => {
    const g = await started(grantRequest({ interact: 'poll' }))
    t.clock.advance(601)
    expect(await screen(g, g.interactionSession, null)).toMatchObject({ kind: 'page', status: 403, code: 'invalid_interaction' })
  })

  it.each([
    ['through the identity-provider API', (g: PendingGrant) => decide(t, g, 'reject')],
    [
      'on the consent screen',
      async (g: PendingGrant & { interactionSession: string }) => {
        const session = await signIn(ALICE)
        await decideAs(g, g.interactionSession, session, csrfTokenFor(session), 'approve')
      },
    ],
  ])('redirects to our finish URL when the interaction was decided %s but not finished', async (_name, arrange) => {
    const g = await started()
    const { session } = await signedIn(ALICE)
    await arrange(g)
    const result = await expectNoWrites(() => screen(g, g.interactionSession, session))
    expect(result).toEqual({ kind: 'redirect', location: ourFinishUrl(g) })
  })

  it.each([
    ['no owner session', async () => null],
    ['an unknown owner session', async () => 'E'.repeat(48)],
    [
      'an expired owner session',
      async () => {
        const session = await signIn(ALICE)
        t.clock.advance(30 * 60)
        return session
      },
    ],
    [
      'an administrator session',
      async () => (await createSession(t.sql, { kind: 'admin', subjectId: 'admin-1', ttlSeconds: 600, now: t.deps.clock() })).value,
    ],
  ])('shows the sign-in form for %s', async (_name, ownerSession) => {
    await createOwner(t.sql, ALICE)
    // The owner session is arranged first: an owner session outlives an interaction.
    const session = await ownerSession()
    const g = await started()
    const result = await expectNoWrites(() => screen(g, g.interactionSession, session))
    expect(result).toEqual({ kind: 'sign-in', client: { name: 'Test App', walletAddress: TEST_CLIENT }, grant: { tenantId: null } })
  })

  it('tells another owner that the request is not for their account', async () => {
    await createOwner(t.sql, ALICE)
    const g = await started()
    const bob = await signedIn(BOB)
    const result = await expectNoWrites(() => screen(g, g.interactionSession, bob.session))
    expect(result).toEqual({
      kind: 'not-yours',
      client: { name: 'Test App', walletAddress: TEST_CLIENT },
      ownerName: 'Bob',
      subIds: [],
      csrf: csrfTokenFor(bob.session),
    })
  })

  it('tells the owner when only some of the wallet addresses asked for are theirs', async () => {
    const access = [outgoingAccess(), outgoingAccess({ identifier: 'https://wallet.example/bob' })]
    const g = await started(grantRequest({ access }))
    const alice = await signedIn(ALICE)
    expect(await screen(g, g.interactionSession, alice.session)).toMatchObject({ kind: 'not-yours', ownerName: 'Alice' })
  })

  it('shows the owner what the client asks for, in plain words, with the CSRF token of the session', async () => {
    const access = [outgoingAccess(), outgoingAccess({ identifier: `${TEST_OWNER}/x`, actions: ['read'], limits: undefined })]
    const g = await started(grantRequest({ access }))
    const alice = await signedIn(ALICE)
    const result = await expectNoWrites(() => screen(g, g.interactionSession, alice.session))
    expect(result).toEqual({
      kind: 'consent',
      client: { name: 'Test App', walletAddress: TEST_CLIENT },
      ownerName: 'Alice',
      items: access.map(describeAccessItem),
      subIds: [],
      csrf: csrfTokenFor(alice.session),
    })
    if (result.kind !== 'consent') throw new Error('expected the consent screen')
    expect(result.items[0]?.title).toMatch(/\S/)
    expect(result.csrf).not.toBe(alice.session)
  })
})

describe('decideConsent', () => {
  it.each([
    [
      'an unknown interaction',
      400,
      (g: PendingGrant & { interactionSession: string }) => ({
        ids: { interactionId: crypto.randomUUID(), nonce: g.nonce },
        session: g.interactionSession,
      }),
    ],
    ['no interaction session', 401, (g: PendingGrant & { interactionSession: string }) => ({ ids: g, session: null })],
    ['a wrong interaction session', 401, (g: PendingGrant & { interactionSession: string }) => ({ ids: g, session: 'D'.repeat(48) })],
  ])('answers a page for %s (%i) and records nothing', async (_name, status, arrange) => {
    const g = await started()
    const alice = await signedIn(ALICE)
    const { ids, session } = arrange(g)
    const result = await expectNoWrites(() => decideAs(ids, session, alice.session, csrfTokenFor(alice.session), 'approve'))
    expect(result).toMatchObject({ kind: 'page', status })
  })

  it.each([
    ['no owner session', async () => null],
    ['an unknown owner session', async () => 'C'.repeat(48)],
    [
      'an expired owner session',
      async () => {
        const session = await signIn(ALICE)
        t.clock.advance(30 * 60 + 1)
        return session
      },
    ],
    [
      'an administrator session',
      async () => (await createSession(t.sql, { kind: 'admin', subjectId: 'admin-1', ttlSeconds: 600, now: t.deps.clock() })).value,
    ],
  ])('answers a 401 page for %s and records nothing', async (_name, ownerSession) => {
    await createOwner(t.sql, ALICE)
    // The owner session is arranged first: an owner session outlives an interaction.
    const session = await ownerSession()
    const g = await started()
    const result = await expectNoWrites(() => decideAs(g, g.interactionSession, session, session ? csrfTokenFor(session) : null, 'approve'))
    expect(result).toMatchObject({ kind: 'page', status: 401 })
  })

  it.each<[string, (own: string, other: string) => string | null]>([
    ['no CSRF token', () => null],
    ['an empty CSRF token', () => ''],
    ['a wrong CSRF token', () => 'not-the-token'],
    ['the session value in place of the CSRF token', (own) => own],
    ['the CSRF token of another session of the same owner', (_own, other) => csrfTokenFor(other)],
  ])('answers a 403 page for %s and records nothing', async (_name, csrf) => {
    const g = await started()
    const alice = await signedIn(ALICE)
    const other = await signIn(ALICE)
    const result = await expectNoWrites(() => decideAs(g, g.interactionSession, alice.session, csrf(alice.session, other), 'approve'))
    expect(result).toMatchObject({ kind: 'page', status: 403, code: 'invalid_request' })
  })

  it('answers a 403 page for the CSRF token of another owner', async () => {
    const g = await started()
    const alice = await signedIn(ALICE)
    const bob = await signedIn(BOB)
    const result = await expectNoWrites(() => decideAs(g, g.interactionSession, alice.session, csrfTokenFor(bob.session), 'approve'))
    expect(result).toMatchObject({ kind: 'page', status: 403 })
  })

  it.each([
    ['no choice', null],
    ['an empty choice', ''],
    ['the identity-provider word accept', 'accept'],
    ['a choice in another case', 'Approve'],
    ['an unknown choice', 'maybe'],
  ])('answers a 400 page for %s and records nothing', async (_name, choice) => {
    const g = await started()
    const alice = await signedIn(ALICE)
    const result = await expectNoWrites(() => decideAs(g, g.interactionSession, alice.session, csrfTokenFor(alice.session), choice))
    expect(result).toMatchObject({ kind: 'page', status: 400, code: 'invalid_request' })
  })

  it.each(['approve', 'deny'])('answers a 403 page when another owner chooses %s, and records nothing', async (choice) => {
    await createOwner(t.sql, ALICE)
    const g = await started()
    const bob = await signedIn(BOB)
    const result = await expectNoWrites(() => decideAs(g, g.interactionSession, bob.session, csrfTokenFor(bob.session), choice))
    expect(result).toMatchObject({ kind: 'page', status: 403, code: 'invalid_interaction' })
  })

  it('redirects to the client with invalid_interaction when the interaction expired, records no decision and finalizes the grant as expired', async () => {
    const g = await started()
    const alice = await signedIn(ALICE)
    t.clock.advance(601)
    const result = await decideAs(g, g.interactionSession, alice.session, csrfTokenFor(alice.session), 'approve')
    expect(redirectTo(result)).toEqual({ base: TEST_FINISH_URI, query: { result: 'invalid_interaction', message: 'interaction expired' } })
    expect(await interactionRow(g)).toMatchObject({ state: 'pending', decidedAt: null, grant: { state: 'finalized', finalizedReason: 'expired' } })
  })

  it('answers a 403 page when the grant was cancelled meanwhile, and records nothing', async () => {
    const g = await started()
    const alice = await signedIn(ALICE)
    await cancel(g)
    const result = await expectNoWrites(() => decideAs(g, g.interactionSession, alice.session, csrfTokenFor(alice.session), 'approve'))
    expect(result).toMatchObject({ kind: 'page', status: 403, code: 'invalid_interaction' })
  })

  it('records an approval by the owner and sends the browser to finish, which gives the client its hash and interact_ref once', async () => {
    const g = await started()
    const alice = await signedIn(ALICE)
    const result = await decideAs(g, g.interactionSession, alice.session, csrfTokenFor(alice.session), 'approve')
    expect(result).toEqual({ kind: 'redirect', location: ourFinishUrl(g) })
    const decided = await interactionRow(g)
    expect(decided).toMatchObject({ state: 'approved', ownerId: alice.id, decidedAt: t.clock.now, finishedAt: null })
    // The grant itself changes only at finish.
    expect(decided.grant.state).toBe('pending')

    const finished = await finish(t, g, g.interactionSession)
    const { base, query } = redirectTo(finished)
    expect(base).toBe(TEST_FINISH_URI)
    expect(query).toEqual({
      hash: finishHash({
        clientNonce: TEST_CLIENT_NONCE,
        asNonce: g.nonce,
        interactRef: decided.interactRef,
        grantEndpoint: 'https://auth.example/',
      }),
      interact_ref: decided.interactRef,
    })
    expect((await interactionRow(g)).grant.state).toBe('approved')

    t.clock.advance(t.deps.config.waitSeconds)
    const issued = await continueGrant(t.deps, { continueId: g.continueId, interactRef: query.interact_ref ?? null, auth: authAs(g.continueToken) })
    expect(issued.access_token?.access).toEqual(g.request.access)

    // A replayed finish URL re-opens nothing.
    const replay = await expectNoWrites(() => finish(t, g, g.interactionSession))
    expect(replay).toMatchObject({ kind: 'page', status: 404, code: 'unknown_interaction' })
  })

  it('records a denial by the owner; finish rejects the grant and a replayed finish is a 404 page', async () => {
    const g = await started()
    const alice = await signedIn(ALICE)
    const result = await decideAs(g, g.interactionSession, alice.session, csrfTokenFor(alice.session), 'deny')
    expect(result).toEqual({ kind: 'redirect', location: ourFinishUrl(g) })
    expect(await interactionRow(g)).toMatchObject({ state: 'denied', ownerId: alice.id, decidedAt: t.clock.now })

    expect(redirectTo(await finish(t, g, g.interactionSession))).toEqual({ base: TEST_FINISH_URI, query: { result: 'grant_rejected' } })
    expect((await interactionRow(g)).grant).toMatchObject({ state: 'finalized', finalizedReason: 'rejected' })
    const replay = await expectNoWrites(() => finish(t, g, g.interactionSession))
    expect(replay).toMatchObject({ kind: 'page', status: 404, code: 'unknown_interaction' })
  })

  it('lets a second decision lose, sending it to finish without changing the first', async () => {
    const g = await started()
    const alice = await signedIn(ALICE)
    const otherTab = await signIn(ALICE)
    await decideAs(g, g.interactionSession, alice.session, csrfTokenFor(alice.session), 'approve')
    const second = await expectNoWrites(() => decideAs(g, g.interactionSession, otherTab, csrfTokenFor(otherTab), 'deny'))
    expect(second).toEqual({ kind: 'redirect', location: ourFinishUrl(g) })
    expect(await interactionRow(g)).toMatchObject({ state: 'approved', ownerId: alice.id })
  })

  it('records exactly one of two simultaneous decisions and sends both to finish', async () => {
    const g = await started()
    const alice = await signedIn(ALICE)
    const csrf = csrfTokenFor(alice.session)
    const results = await Promise.all([
      decideAs(g, g.interactionSession, alice.session, csrf, 'approve'),
      decideAs(g, g.interactionSession, alice.session, csrf, 'deny'),
    ])
    expect(results).toEqual([
      { kind: 'redirect', location: ourFinishUrl(g) },
      { kind: 'redirect', location: ourFinishUrl(g) },
    ])
    expect(['approved', 'denied']).toContain((await interactionRow(g)).state)
  })

  it('works for a grant without a finish URI, which finish then answers as accepted', async () => {
    const g = await started(grantRequest({ interact: 'poll' }))
    const alice = await signedIn(ALICE)
    expect(await decideAs(g, g.interactionSession, alice.session, csrfTokenFor(alice.session), 'approve')).toEqual({
      kind: 'redirect',
      location: ourFinishUrl(g),
    })
    expect(await finish(t, g, g.interactionSession)).toMatchObject({ kind: 'accepted' })
    expect((await interactionRow(g)).grant.state).toBe('approved')
  })
})
