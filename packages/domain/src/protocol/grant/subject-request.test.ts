import { describe, expect, it } from 'vitest'
import {
  TEST_CLIENT,
  TEST_FINISH_URI,
  TEST_IDP_SECRET,
  TEST_OWNER,
  authAs,
  failWrites,
  gnapError,
  grantRequest,
  incomingAccess,
  outgoingAccess,
  rowCounts,
} from '../../testing/deps'
import { interact, requestPendingGrant, startSession, type PendingGrant } from '../../testing/grant-flows'
import { assertMatchesSpec } from '../../testing/spec-validator'
import { useTestDeps } from '../../testing/use-test-deps'
import { createOwner } from '../../operator/owner/create-owner'
import { signInOwner } from '../../operator/owner/sign-in-owner'
import { csrfTokenFor } from '../../kernel/session/csrf'
import { getConsentScreen } from '../consent/get-consent-screen'
import { decideConsent } from '../consent/decide-consent'
import { getGrantForConsent } from '../interaction/get-grant-for-consent'
import { finishInteraction } from '../interaction/finish-interaction'
import { MAX_SUBJECT_IDS, parseGrantRequest, type GrantRequest } from './grant.wire'
import { requestGrant } from './request-grant'
import { continueGrant } from './continue-grant'
import { getGrantDetail } from '../../operator/admin/get-grant-detail'

// Subject requests (docs/protocol.md §2.1, §2.2, §2.9, §2.11; RFC 9635 §2.2, §3.4): the client asks the owner to
// confirm that they control a wallet address, with or without access.

const t = useTestDeps()

const BOB_WALLET = 'https://wallet.example/bob'
const interactBody = { start: ['redirect'], finish: { method: 'redirect', uri: TEST_FINISH_URI, nonce: 'n-1' } }
const subjectBody = (subIds: unknown[], extra: Record<string, unknown> = {}) => ({
  client: TEST_CLIENT,
  interact: interactBody,
  subject: { sub_ids: subIds },
  ...extra,
})
const uri = (id: string) => ({ id, format: 'uri' })

describe('parseGrantRequest with subject (docs/protocol.md §2.1)', () => {
  it('takes a subject-only request: no access, the wallet address as sent', () => {
    expect(parseGrantRequest(subjectBody([uri(TEST_OWNER)]))).toEqual({
      client: { walletAddress: TEST_CLIENT },
      access: [],
      interact: interactBody,
      subject: [TEST_OWNER],
    })
  })

  it('takes a subject with access_token', () => {
    const parsed = parseGrantRequest(subjectBody([uri(TEST_OWNER)], { access_token: { access: [outgoingAccess()] } }))
    expect(parsed.access).toEqual([outgoingAccess()])
    expect(parsed.subject).toEqual([TEST_OWNER])
  })

  it('allows as many subject identifiers as the contract does', () => {
    expect(MAX_SUBJECT_IDS).toBe(1)
  })

  it.each<[string, unknown, string]>([
    ['a format other than uri', subjectBody([{ id: TEST_OWNER, format: 'email' }]), 'subject.sub_ids.0.format: only "uri" is supported, got "email"'],
    ['an id that is no URL', subjectBody([uri('alice')]), 'subject.sub_ids.0.id must be a wallet address URL'],
    ['an id that is not http(s)', subjectBody([uri('mailto:alice@example.com')]), 'subject.sub_ids.0.id must be a wallet address URL'],
    ['an id with a query', subjectBody([uri(`${TEST_OWNER}?x=1`)]), 'subject.sub_ids.0.id must be a wallet address URL'],
    ['an id with credentials', subjectBody([uri('https://user:pw@wallet.example/alice')]), 'subject.sub_ids.0.id must be a wallet address URL'],
    ['a numeric id', subjectBody([{ id: 7, format: 'uri' }]), 'subject.sub_ids.0.id: must be a string'],
    ['an identifier without format', subjectBody([{ id: TEST_OWNER }]), 'subject.sub_ids.0.format: must be a string'],
    ['an unknown field in an identifier', subjectBody([{ ...uri(TEST_OWNER), uri: TEST_OWNER }]), 'subject.sub_ids.0: unknown field "uri"'],
    ['an empty sub_ids', subjectBody([]), 'subject.sub_ids must name at least one wallet address'],
    ['the same wallet address twice', subjectBody([uri(TEST_OWNER), uri(TEST_OWNER)]), `subject.sub_ids names ${TEST_OWNER} more than once`],
    [
      'a wallet address not in its normal form (case, trailing slash)',
      subjectBody([uri('https://WALLET.example/alice/')]),
      `subject.sub_ids.0.id must be written in its normal form: ${TEST_OWNER}`,
    ],
    [
      'a wallet address spelt through another one (dot segments)',
      subjectBody([uri('https://wallet.example/bob/../alice')]),
      `subject.sub_ids.0.id must be written in its normal form: ${TEST_OWNER}`,
    ],
    [
      `more than ${MAX_SUBJECT_IDS} wallet address`,
      subjectBody([uri(TEST_OWNER), uri(BOB_WALLET)]),
      `subject.sub_ids may name at most ${MAX_SUBJECT_IDS} wallet address`,
    ],
    ['no sub_ids', { client: TEST_CLIENT, interact: interactBody, subject: {} }, 'subject.sub_ids: must be an array of subject identifiers'],
    ['a subject that is no object', { client: TEST_CLIENT, interact: interactBody, subject: TEST_OWNER }, 'subject must be an object with sub_ids'],
    [
      'an unknown subject field',
      subjectBody([uri(TEST_OWNER)], { subject: { sub_ids: [uri(TEST_OWNER)], assertion_formats: ['id_token'] } }),
      'subject: unknown field "assertion_formats"',
    ],
    [
      'a subject request without interact',
      { client: TEST_CLIENT, subject: { sub_ids: [uri(TEST_OWNER)] } },
      'a subject request needs interaction: interact.start must include "redirect"',
    ],
    [
      'a subject request with access and without interact',
      { client: TEST_CLIENT, subject: { sub_ids: [uri(TEST_OWNER)] }, access_token: { access: [incomingAccess()] } },
      'a subject request needs interaction',
    ],
    [
      'a subject request whose interaction cannot redirect',
      subjectBody([uri(TEST_OWNER)], { interact: { start: ['user_code'] } }),
      'a subject request needs interaction: interact.start must include "redirect"',
    ],
    ['neither access_token nor subject', { client: TEST_CLIENT, interact: interactBody }, 'access_token is required'],
  ])('refuses %s with invalid_request 400 and says why', (_name, body, description) => {
    expect(() => parseGrantRequest(body)).toThrow(
      expect.objectContaining({ ...gnapError('invalid_request', 400), message: expect.stringContaining(description) }),
    )
  })
})

const subjectRequest = (subject: string[], access: GrantRequest['access'] = []): GrantRequest => ({ ...grantRequest({ access }), subject })

/** The answer of POST /continue/{id} with the interact_ref, once the wait has passed. */
async function continueWithRef(g: PendingGrant, interactRef: string | null) {
  t.clock.advance(t.deps.config.waitSeconds)
  return continueGrant(t.deps, { continueId: g.continueId, interactRef, auth: authAs(g.continueToken) })
}

describe('requestGrant with subject', () => {
  it('always asks the owner: a subject with access that alone skips interaction stays pending', async () => {
    const response = await requestGrant(t.deps, subjectRequest([TEST_OWNER], [incomingAccess()]), authAs(null), null)
    assertMatchesSpec('auth-server', '/', 'POST', 200, response)
    expect(response.interact).toBeDefined()
    expect(response.access_token).toBeUndefined()
    expect(await t.db.grant.findFirstOrThrow()).toMatchObject({ state: 'pending' })
    expect(await t.db.accessToken.count()).toBe(0)
  })

  it('stores the subject with the grant, in request order', async () => {
    await requestPendingGrant(t, subjectRequest([TEST_OWNER]))
    const grant = await t.db.grant.findFirstOrThrow({ include: { subjects: true, accessItems: true } })
    expect(grant.subjects.map((s) => ({ format: s.format, subId: s.subId, position: s.position }))).toEqual([
      { format: 'uri', subId: TEST_OWNER, position: 0 },
    ])
    expect(grant.accessItems).toEqual([])
  })

  it('refuses a plain http subject when http wallet addresses are not allowed, and stores nothing', async () => {
    const request = subjectRequest(['http://wallet.example/alice'])
    await expect(requestGrant(t.deps, request, authAs(null), null)).rejects.toMatchObject({
      ...gnapError('invalid_request', 400),
      message: 'subject.sub_ids.0.id must be an https wallet address URL',
    })
    expect(await rowCounts(t.db)).toEqual({ grants: 0, accessItems: 0, tokens: 0, interactions: 0 })
  })

  it('leaves nothing behind when storing the subject fails', async () => {
    await failWrites(t, 'GrantSubject')
    await expect(requestGrant(t.deps, subjectRequest([TEST_OWNER]), authAs(null), null)).rejects.toThrow('injected failure')
    expect(await rowCounts(t.db)).toEqual({ grants: 0, accessItems: 0, tokens: 0, interactions: 0 })
    expect(await t.db.grantSubject.count()).toBe(0)
  })
})

describe('a subject request through the identity provider (docs/protocol.md §2.9, §2.2)', () => {
  it('shows the subject to the identity provider and answers it on continue, with no token', async () => {
    const g = await requestPendingGrant(t, subjectRequest([TEST_OWNER]))
    const lookup = await getGrantForConsent(t.deps, { interactionId: g.interactionId, nonce: g.nonce, idpSecret: TEST_IDP_SECRET })
    assertMatchesSpec('id-provider', '/grant/{id}/{nonce}', 'GET', 200, lookup)
    expect(lookup).toMatchObject({ access: [], subject: { sub_ids: [{ id: TEST_OWNER, format: 'uri' }] }, state: 'PENDING' })

    const approved = await interact(t, g, 'accept')
    const answer = await continueWithRef(g, approved.interactRef)
    assertMatchesSpec('auth-server', '/continue/{id}', 'POST', 200, answer)
    expect(answer).toEqual({
      subject: { sub_ids: [{ id: TEST_OWNER, format: 'uri' }] },
      continue: { access_token: { value: g.continueToken }, uri: g.response.continue.uri },
    })
    expect(await t.db.accessToken.count()).toBe(0)
    expect(await t.db.grant.findFirstOrThrow()).toMatchObject({ state: 'finalized', finalizedReason: 'issued' })
  })

  it('answers subject and access_token when both were requested', async () => {
    const g = await requestPendingGrant(t, subjectRequest([TEST_OWNER], [outgoingAccess()]))
    const lookup = await getGrantForConsent(t.deps, { interactionId: g.interactionId, nonce: g.nonce, idpSecret: TEST_IDP_SECRET })
    assertMatchesSpec('id-provider', '/grant/{id}/{nonce}', 'GET', 200, lookup)
    expect(lookup).toMatchObject({ access: [outgoingAccess()], subject: { sub_ids: [{ id: TEST_OWNER, format: 'uri' }] } })

    const approved = await interact(t, g, 'accept')
    const answer = await continueWithRef(g, approved.interactRef)
    assertMatchesSpec('auth-server', '/continue/{id}', 'POST', 200, answer)
    expect(answer.subject).toEqual({ sub_ids: [{ id: TEST_OWNER, format: 'uri' }] })
    expect(answer.access_token).toMatchObject({ access: [outgoingAccess()], value: expect.any(String) })
    expect(await t.db.accessToken.count()).toBe(1)
  })

  it('leaves subject out of the identity provider view of a grant without one', async () => {
    const g = await requestPendingGrant(t)
    const lookup = await getGrantForConsent(t.deps, { interactionId: g.interactionId, nonce: g.nonce, idpSecret: TEST_IDP_SECRET })
    expect(lookup).not.toHaveProperty('subject')
  })

  it('answers nothing of the subject to a client whose owner denied it', async () => {
    const g = await requestPendingGrant(t, subjectRequest([TEST_OWNER]))
    await interact(t, g, 'reject')
    await expect(continueWithRef(g, null)).rejects.toMatchObject(gnapError('user_denied', 401))
  })
})

describe('a subject request on the built-in consent screen (docs/protocol.md §2.11)', () => {
  const ALICE = { email: 'alice@example.com', name: 'Alice', password: 'alice-password-1', walletAddresses: [TEST_OWNER] }

  /** The grant requested, its interaction started in this browser, Alice signed in. */
  async function arranged(request: GrantRequest) {
    await t.reset({ config: { identityServerUrl: null } })
    await createOwner(t.sql, ALICE)
    const owner = await signInOwner(t.deps, { email: ALICE.email, password: ALICE.password })
    if (!owner) throw new Error('sign-in failed')
    const g = await requestPendingGrant(t, request)
    const interactionSession = await startSession(t, g)
    const ids = { interactionId: g.interactionId, nonce: g.nonce, interactionSession, ownerSession: owner.value }
    return { g, ids, csrf: csrfTokenFor(owner.value) }
  }

  it('asks the owner of the wallet address to confirm it, and approving finishes the grant', async () => {
    const { g, ids, csrf } = await arranged(subjectRequest([TEST_OWNER]))
    expect(await getConsentScreen(t.deps, ids)).toMatchObject({ kind: 'consent', subIds: [TEST_OWNER], items: [] })
    const decided = await decideConsent(t.deps, { ...ids, csrf, choice: 'approve' })
    expect(decided).toMatchObject({ kind: 'redirect' })
    const finished = await finishInteraction(t.deps, { interactionId: g.interactionId, nonce: g.nonce, session: ids.interactionSession })
    if (finished.kind !== 'redirect') throw new Error('expected the finish redirect')
    const answer = await continueWithRef(g, new URL(finished.location).searchParams.get('interact_ref'))
    expect(answer.subject).toEqual({ sub_ids: [{ id: TEST_OWNER, format: 'uri' }] })
  })

  it.each<[string, GrantRequest]>([
    ['a wallet address of another owner', subjectRequest([BOB_WALLET])],
    ['a resource below their own wallet address (a subject must be the wallet address itself)', subjectRequest([`${TEST_OWNER}/incoming-payments`])],
    ["another owner's wallet address, with access to their own", subjectRequest([BOB_WALLET], [outgoingAccess()])],
    ['their own wallet address, with access to another', subjectRequest([TEST_OWNER], [outgoingAccess({ identifier: BOB_WALLET })])],
  ])('refuses an owner asked to confirm %s: a refusal page, and Approve is refused too', async (_name, request) => {
    const { g, ids, csrf } = await arranged(request)
    expect(await getConsentScreen(t.deps, ids)).toMatchObject({ kind: 'not-yours', subIds: request.subject })
    // A hand-made form post is refused on the server, not only left off the page.
    expect(await decideConsent(t.deps, { ...ids, csrf, choice: 'approve' })).toMatchObject({
      kind: 'page',
      status: 403,
      code: 'invalid_interaction',
      title: 'Not your account',
    })
    expect(await t.db.interaction.findUniqueOrThrow({ where: { id: g.interactionId } })).toMatchObject({ state: 'pending', decidedAt: null })
  })
})

describe('the console grant page (getGrantDetail)', () => {
  it('lists the wallet addresses the owner was asked to confirm', async () => {
    await requestPendingGrant(t, subjectRequest([TEST_OWNER]))
    const { id } = await t.db.grant.findFirstOrThrow()
    expect(await getGrantDetail(t.deps, id)).toMatchObject({ subjects: [TEST_OWNER], accessItems: [] })
  })

  it('lists none for a grant without subject', async () => {
    await requestPendingGrant(t)
    const { id } = await t.db.grant.findFirstOrThrow()
    expect(await getGrantDetail(t.deps, id)).toMatchObject({ subjects: [] })
  })
})
