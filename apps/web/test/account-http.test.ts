// The owner's own pages under /account over plain HTTP against `next start`: a browser played with fetch, manual
// redirects and cookies. Grants are requested by the Open Payments SDK and approved through the identity-provider
// API, so each test starts from a live grant on a wallet address of a known owner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OpenPaymentsClientError, isFinalizedGrant, isPendingGrant } from '@interledger/open-payments'
import { openStore, type Store } from '@gnap/domain/kernel'
import { DEMO_OWNER, createOwner } from '@gnap/domain/operator'
import { approvedOutgoingGrant, introspect, startWorld, type World } from './support/world'

let w: World
let store: Store
let db: Store['prisma']

const ALICE = { ...DEMO_OWNER, walletAddresses: [...DEMO_OWNER.walletAddresses] }
const ALICE_WALLET = DEMO_OWNER.walletAddresses[0]
const BOB = { email: 'bob@example.com', name: 'Bob Other', password: 'bob-other-password', walletAddresses: ['https://wallet.example/bob'] }
const CAROL = { email: 'carol@example.com', name: 'Carol', password: 'carol-first-password', walletAddresses: ['https://wallet.example/carol'] }
const DAN = { email: 'dan@example.com', name: 'Dan', password: 'dan-own-password', walletAddresses: ['https://wallet.example/dan'] }

beforeAll(async () => {
  w = await startWorld()
  store = await openStore(`file:${w.server.dbFile}`)
  db = store.prisma
  for (const owner of [ALICE, BOB, CAROL, DAN]) await createOwner(store.sql, owner)
})

afterAll(async () => {
  await store?.close()
  await w?.stop()
})

/** A live grant on `identifier`: requested by the SDK, approved, continued to a token. */
async function liveGrant(identifier: string = ALICE_WALLET) {
  const { pending: grant, token } = await approvedOutgoingGrant(w, identifier)
  const continueId = new URL(grant.continue.uri).pathname.split('/').pop() ?? ''
  const { id } = await db.grant.findUniqueOrThrow({ where: { continueId } })
  return { id, token }
}

const origin = () => new URL(w.server.url).origin
const url = (path: string) => `${w.server.url}${path.replace(/^\//, '')}`

function post(path: string, cookie: string | null, form: Record<string, string>): Promise<Response> {
  return fetch(url(path), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: origin(), ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams(form).toString(),
  })
}

const get = (path: string, cookie: string | null) => fetch(url(path), { redirect: 'manual', headers: cookie ? { cookie } : {} })

/** Signs in through the account form; returns the owner cookie as a browser sends it back, and its attributes. */
async function signIn(owner: { email: string; password: string }): Promise<{ cookie: string; attributes: string[] }> {
  const res = await post('/account/sign-in', null, { email: owner.email, password: owner.password })
  expect(res.status).toBe(303)
  expect(res.headers.get('location')).toBe('/account')
  const line = res.headers.getSetCookie().find((c) => c.startsWith('gnap_owner='))
  if (!line) throw new Error('no owner cookie')
  const [pair = '', ...attributes] = line.split(';').map((p) => p.trim())
  return { cookie: pair, attributes }
}

async function page(res: Response, status: number): Promise<string> {
  const text = await res.text()
  expect(res.status, text.slice(0, 300)).toBe(status)
  expect(res.headers.get('content-type') ?? '').toMatch(/^text\/html/)
  return text
}

const csrfIn = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? ''
const csrfOf = async (cookie: string) => csrfIn(await page(await get('/account', cookie), 200))
const isActive = async (value: string) => (await introspect(w.server, value)).body.active

async function rotationError(token: { manage: string; value: string }): Promise<[number | undefined, string | undefined]> {
  const e = await w.client.token.rotate({ url: token.manage, accessToken: token.value }).then(
    () => null,
    (err: unknown) => err,
  )
  if (!(e instanceof OpenPaymentsClientError)) throw new Error('expected the rotation to fail')
  return [e.status, e.code]
}

describe('GET /account', () => {
  it('shows the sign-in form when signed out, framed by nobody', async () => {
    const res = await get('/account', null)
    const html = await page(res, 200)
    expect(html).toContain('action="/account/sign-in"')
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(res.headers.get('x-frame-options')).toBe('DENY')
  })

  it('signs in with an httpOnly, SameSite=Lax owner cookie; a wrong password gets the form again with one message', async () => {
    const { attributes } = await signIn(ALICE)
    expect(attributes).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Lax', 'Path=/']))
    const wrong = await post('/account/sign-in', null, { email: ALICE.email, password: 'not-the-password' })
    expect([wrong.status, wrong.headers.get('location'), wrong.headers.getSetCookie()]).toEqual([303, '/account?failed', []])
    expect(await page(await get('/account?failed', null), 200)).toContain('The email or password is not right')
  })

  it('lists my connected app in plain words, and never another owner’s', async () => {
    const mine = await liveGrant()
    const bobs = await liveGrant(BOB.walletAddresses[0])
    const alice = await signIn(ALICE)
    const html = await page(await get('/account', alice.cookie), 200)
    expect(html).toContain('Test App')
    expect(html).toContain('Send up to 25.00 USD every month from 1 December 2026, for 13 months')
    expect(html).toContain(`/account/apps/${mine.id}/revoke`)
    expect(html).not.toContain(bobs.id)
    expect(html).not.toContain(BOB.walletAddresses[0])
  })
})

describe('login CSRF on /account/sign-in', () => {
  // Another site's page posting its own account's email and password would sign the browser in to that account,
  // which then sees what the person does there: refused as the set-password form refuses one.
  const crossSite = (headers: Record<string, string>) =>
    fetch(url('/account/sign-in'), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams({ email: ALICE.email, password: ALICE.password }).toString(),
    })

  it.each([
    ['Sec-Fetch-Site cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site same-site (a sibling subdomain)', { 'sec-fetch-site': 'same-site' }],
    ['an Origin of another site (a browser without Sec-Fetch-Site)', { origin: 'https://evil.example' }],
    ['Sec-Fetch-Site cross-site and Origin null', { origin: 'null', 'sec-fetch-site': 'cross-site' }],
  ])('refuses a sign-in posted with %s: 403, the page set-password answers, no cookie', async (_name, headers) => {
    const res = await crossSite(headers)
    expect(res.headers.getSetCookie()).toEqual([])
    const html = await page(res, 403)
    expect(html).toContain('Form refused')
    expect(html).toContain('This form was sent from another site')
  })

  it('signs in a post from this site, by Sec-Fetch-Site or by Origin', async () => {
    for (const headers of [{ 'sec-fetch-site': 'same-origin', origin: origin() }, { origin: origin() }] as Record<string, string>[]) {
      const res = await crossSite(headers)
      expect(res.status).toBe(303)
      expect(res.headers.getSetCookie().some((c) => c.startsWith('gnap_owner='))).toBe(true)
    }
  })
})

describe('a disabled owner on /account (docs/protocol.md §2.13)', () => {
  it('gets the answer anyone gets for a wrong password, and hears that the account is disabled only after the right one', async () => {
    await db.owner.update({ where: { email: DAN.email }, data: { status: 'disabled' } })
    const wrong = await post('/account/sign-in', null, { email: DAN.email, password: 'not-dans-password' })
    expect(wrong.status).toBe(303)
    expect(wrong.headers.get('location')).toBe('/account?failed')
    const right = await post('/account/sign-in', null, { email: DAN.email, password: DAN.password })
    expect(right.headers.getSetCookie().some((c) => c.startsWith('gnap_owner='))).toBe(false)
    expect(await page(right, 403)).toContain('This account is disabled')
  })
})

describe('revoking from /account', () => {
  it('confirms first, then revokes: the token is dead at once, the next rotation fails, the audit log names me', async () => {
    const g = await liveGrant()
    const { cookie } = await signIn(ALICE)
    const confirm = await page(await get(`/account/apps/${g.id}/revoke`, cookie), 200)
    expect(confirm).toContain('Revoke access for Test App?')
    expect(await isActive(g.token.value)).toBe(true)
    const res = await post(`/account/apps/${g.id}/revoke`, cookie, { csrf: csrfIn(confirm) })
    expect([res.status, res.headers.get('location')]).toEqual([303, '/account?done=revoked'])
    expect(await isActive(g.token.value)).toBe(false)
    expect(await rotationError(g.token)).toEqual([404, 'invalid_rotation'])
    expect(await db.auditLog.findFirst({ where: { target: `grant:${g.id}` } })).toMatchObject({
      actor: `owner:${ALICE.email}`,
      action: 'grant.revoke',
    })
    const after = await page(await get('/account?done=revoked', cookie), 200)
    expect(after).toContain('Access revoked')
    expect(after).not.toContain(`/account/apps/${g.id}/revoke`)
  })

  it('refuses a revocation without the session’s CSRF token, or with another session’s: 403, nothing revoked', async () => {
    const g = await liveGrant()
    const alice = await signIn(ALICE)
    const bob = await signIn(BOB)
    await page(await post(`/account/apps/${g.id}/revoke`, alice.cookie, {}), 403)
    await page(await post(`/account/apps/${g.id}/revoke`, alice.cookie, { csrf: await csrfOf(bob.cookie) }), 403)
    expect(await isActive(g.token.value)).toBe(true)
    expect(await db.auditLog.count({ where: { target: `grant:${g.id}` } })).toBe(0)
  })

  it('refuses another owner’s grant id, by URL or by form: 404, nothing revoked', async () => {
    const g = await liveGrant()
    const bob = await signIn(BOB)
    await page(await get(`/account/apps/${g.id}/revoke`, bob.cookie), 404)
    await page(await post(`/account/apps/${g.id}/revoke`, bob.cookie, { csrf: await csrfOf(bob.cookie) }), 404)
    expect(await isActive(g.token.value)).toBe(true)
    expect(await db.auditLog.count({ where: { target: `grant:${g.id}` } })).toBe(0)
  })

  it('sends a signed-out browser to the sign-in page, revoking nothing', async () => {
    const g = await liveGrant()
    const res = await post(`/account/apps/${g.id}/revoke`, null, { csrf: 'x' })
    expect([res.status, res.headers.get('location')]).toEqual([303, '/account'])
    expect(await isActive(g.token.value)).toBe(true)
  })
})

describe('POST /account/sign-out', () => {
  it('needs the CSRF token: without it 403 and the session stays; with it the session ends and the cookie is cleared', async () => {
    const { cookie } = await signIn(ALICE)
    await page(await post('/account/sign-out', cookie, {}), 403)
    const csrf = await csrfOf(cookie)
    const res = await post('/account/sign-out', cookie, { csrf })
    expect([res.status, res.headers.get('location')]).toEqual([303, '/account'])
    expect(res.headers.getSetCookie().find((c) => c.startsWith('gnap_owner='))).toMatch(/^gnap_owner=; .*Max-Age=0/)
    expect(await page(await get('/account', cookie), 200)).toContain('action="/account/sign-in"')
  })
})

describe('POST /account/password', () => {
  it('changes the password and ends my other sessions, keeping this one; refuses without CSRF or with a wrong current password', async () => {
    const here = await signIn(CAROL)
    const elsewhere = await signIn(CAROL)
    const csrf = await csrfOf(here.cookie)
    const form = { csrf, current: CAROL.password, new: 'carol-second-password', confirm: 'carol-second-password' }
    await page(await post('/account/password', here.cookie, { ...form, csrf: '' }), 403)
    expect(await page(await post('/account/password', here.cookie, { ...form, current: 'wrong-password' }), 400)).toContain(
      'Your current password is not right.',
    )
    expect(await page(await post('/account/password', here.cookie, { ...form, new: 'short', confirm: 'short' }), 400)).toContain('at least 12')
    expect(await csrfOf(elsewhere.cookie)).not.toBe('')

    const res = await post('/account/password', here.cookie, form)
    expect([res.status, res.headers.get('location')]).toEqual([303, '/account?done=password-changed'])
    expect(await page(await get('/account', elsewhere.cookie), 200)).toContain('action="/account/sign-in"')
    expect(await page(await get('/account', here.cookie), 200)).toContain('Signed in as Carol')
    const old = await post('/account/sign-in', null, { email: CAROL.email, password: CAROL.password })
    expect(old.headers.get('location')).toBe('/account?failed')
    await signIn({ email: CAROL.email, password: 'carol-second-password' })
  })
})

describe('grants nobody approved on /account (docs/security.md, "/account cannot be flooded")', () => {
  /** `n` grants that need no approval (incoming payments on Alice's wallet address), by one client; their tokens. */
  async function flood(client: World['client'], n: number): Promise<string[]> {
    const tokens: string[] = []
    for (let i = 0; i < n; i++) {
      const grant = await client.grant.request(
        { url: w.server.url },
        { access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'read'], identifier: ALICE_WALLET }] } },
      )
      if (!isFinalizedGrant(grant) || !grant.access_token) throw new Error('expected an issued grant')
      tokens.push(grant.access_token.value)
    }
    return tokens
  }
  const revokeForm = (cookie: string, headers: Record<string, string>, form: Record<string, string>) =>
    fetch(url('/account/clients/revoke'), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
      body: new URLSearchParams(form).toString(),
    })

  it('keep the app I approved listed, are counted per app, and are revoked per app after a confirmation saying what', async () => {
    const approved = await liveGrant()
    // Two clients, each within its grant limit (120 a minute), together more than the page used to read (200).
    const a = await w.newClient('flood-a')
    const b = await w.newClient('flood-b')
    const aTokens = await flood(a.client, 105)
    const bTokens = await flood(b.client, 105)
    const alice = await signIn(ALICE)

    const html = await page(await get('/account', alice.cookie), 200)
    expect(html).toContain(`/account/apps/${approved.id}/revoke`)
    expect(html.split('Revoke all 105 from this app')).toHaveLength(3)
    const confirmUrl = `/account/clients/revoke?${new URLSearchParams({ client: a.walletAddress }).toString()}`
    expect(html).toContain(`href="${confirmUrl}"`)
    const confirm = await page(await get(confirmUrl, alice.cookie), 200)
    expect(confirm).toContain('Revoke all 105 from flood-a app?')
    expect(confirm).toContain('105 grants to receive payments into your wallet')
    const form = { csrf: csrfIn(confirm), client: a.walletAddress }

    // Refused: from another site, without the session's CSRF token, and another owner naming this client.
    expect(await page(await revokeForm(alice.cookie, { 'sec-fetch-site': 'cross-site' }, form), 403)).toContain(
      'This form was sent from another site',
    )
    await page(await revokeForm(alice.cookie, { origin: origin() }, { ...form, csrf: '' }), 403)
    const bob = await signIn(BOB)
    await page(await get(confirmUrl, bob.cookie), 404)
    await page(await revokeForm(bob.cookie, { origin: origin() }, { ...form, csrf: await csrfOf(bob.cookie) }), 404)
    expect(await isActive(aTokens[0] ?? '')).toBe(true)

    const audited = () => db.auditLog.count({ where: { actor: `owner:${ALICE.email}`, action: 'grant.revoke' } })
    const before = await audited()
    const res = await revokeForm(alice.cookie, { origin: origin() }, form)
    expect([res.status, res.headers.get('location')]).toEqual([303, '/account?done=client-revoked'])
    expect(await audited()).toBe(before + 105)
    for (const token of aTokens) expect(await isActive(token)).toBe(false)
    for (const token of [...bTokens, approved.token.value]) expect(await isActive(token)).toBe(true)
    const after = await page(await get('/account?done=client-revoked', alice.cookie), 200)
    expect(after).toContain('Access revoked for every grant of that app you had not approved.')
    expect(after).toContain(`/account/apps/${approved.id}/revoke`)
    expect(after.split('Revoke all 105 from this app')).toHaveLength(2)
    expect(after).not.toContain(confirmUrl)
  })
})

describe('a grant naming another spelling of my wallet address (docs/protocol.md §6)', () => {
  it.each(['https://WALLET.EXAMPLE/alice', 'https://wallet.example:443/x/../%61lice/'])(
    'a grant on %s is listed on /account and revoked from there',
    async (spelling) => {
      const g = await liveGrant(spelling)
      const { cookie } = await signIn(ALICE)
      expect(await page(await get('/account', cookie), 200)).toContain(`/account/apps/${g.id}/revoke`)
      const confirm = await page(await get(`/account/apps/${g.id}/revoke`, cookie), 200)
      const res = await post(`/account/apps/${g.id}/revoke`, cookie, { csrf: csrfIn(confirm) })
      expect([res.status, res.headers.get('location')]).toEqual([303, '/account?done=revoked'])
      expect(await isActive(g.token.value)).toBe(false)
    },
  )
})
