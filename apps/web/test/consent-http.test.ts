// The built-in consent screen (IDENTITY_SERVER_URL unset) over plain HTTP against `next start`: a browser played
// with fetch, manual redirects and cookies; the client is the Open Payments SDK.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isFinalizedGrant, isPendingGrant } from '@interledger/open-payments'
import { openStore, type Store } from '@gnap/domain/kernel'
import { DEMO_OWNER, createOwner } from '@gnap/domain/operator'
import { expectedHash, finishParams, outgoingAccess, sleep, startWorld, type World } from './support/world'

let w: World
let store: Store
let db: Store['prisma']

const ALICE_WALLET = DEMO_OWNER.walletAddresses[0]
const BOB = { email: 'bob@example.com', name: 'Bob Other', password: 'bob-other-password', walletAddresses: ['https://wallet.example/bob'] }
const CAROL = { email: 'carol@example.com', name: 'Carol', password: 'carol-own-password', walletAddresses: ['https://wallet.example/carol'] }

beforeAll(async () => {
  w = await startWorld({ IDENTITY_SERVER_URL: undefined })
  // The owners live in the server's database, written beside the running server as the seed script would.
  store = await openStore(`file:${w.server.dbFile}`)
  db = store.prisma
  await createOwner(store.sql, { ...DEMO_OWNER, walletAddresses: [...DEMO_OWNER.walletAddresses] })
  await createOwner(store.sql, BOB)
  await createOwner(store.sql, CAROL)
})

afterAll(async () => {
  await store?.close()
  await w?.stop()
})

interface Interaction {
  /** `{server}interact/{id}/{nonce}`: the consent screen's URLs hang below it. */
  base: string
  redirect: string
  interactionId: string
  asNonce: string
  clientNonce: string
  continueUri: string
  continueToken: string
  wait: number
}

/** An interactive outgoing-payment grant on the demo owner's wallet address, requested by the SDK. */
async function pending(identifier: string = ALICE_WALLET): Promise<Interaction> {
  const finish = finishParams()
  const grant = await w.client.grant.request(
    { url: w.server.url },
    { access_token: { access: [outgoingAccess(identifier)] }, interact: { start: ['redirect'], finish } },
  )
  if (!isPendingGrant(grant)) throw new Error('expected a pending grant')
  const [, , interactionId, asNonce] = new URL(grant.interact.redirect).pathname.split('/')
  return {
    base: `${w.server.url}interact/${interactionId}/${asNonce}`,
    redirect: grant.interact.redirect,
    interactionId: interactionId ?? '',
    asNonce: asNonce ?? '',
    clientNonce: finish.nonce,
    continueUri: grant.continue.uri,
    continueToken: grant.continue.access_token.value,
    wait: grant.continue.wait ?? 0,
  }
}

interface Cookie {
  /** `name=value`, as a browser sends it back. */
  pair: string
  value: string
  attributes: string[]
}

function cookieFrom(res: Response, name: string): Cookie | null {
  const line = res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))
  if (!line) return null
  const [pair = '', ...attributes] = line.split(';').map((p) => p.trim())
  return { pair, value: pair.slice(name.length + 1), attributes }
}

const cookieHeader = (...cookies: (Cookie | null)[]) =>
  cookies
    .filter((c): c is Cookie => c !== null)
    .map((c) => c.pair)
    .join('; ')

/** The owner's browser opens interact.redirect; returns the answer and the interaction cookie. */
async function openLink(g: Interaction): Promise<{ res: Response; cookie: Cookie }> {
  const res = await fetch(g.redirect, { redirect: 'manual' })
  const cookie = cookieFrom(res, 'gnap_interaction')
  if (!cookie) throw new Error(`no interaction cookie (status ${res.status})`)
  return { res, cookie }
}

const origin = () => new URL(w.server.url).origin

function post(url: string, cookies: (Cookie | null)[], form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: origin(), cookie: cookieHeader(...cookies), ...headers },
    body: new URLSearchParams(form).toString(),
  })
}

/** A browser's GET: its Accept ranks pages first (docs/protocol.md §2.8 "Pages or JSON"). */
function get(url: string, cookies: (Cookie | null)[], headers: Record<string, string> = {}): Promise<Response> {
  const accept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'
  return fetch(url, { redirect: 'manual', headers: { accept, cookie: cookieHeader(...cookies), ...headers } })
}

const signIn = (g: Interaction, interaction: Cookie | null, email: string, password: string) =>
  post(`${g.base}/sign-in`, [interaction], { email, password })

/** Signs the demo owner in through the form; returns the owner cookie. */
async function signInAlice(g: Interaction, interaction: Cookie): Promise<Cookie> {
  const res = await signIn(g, interaction, DEMO_OWNER.email, DEMO_OWNER.password)
  expect(res.status).toBe(303)
  const cookie = cookieFrom(res, 'gnap_owner')
  if (!cookie) throw new Error('no owner cookie')
  return cookie
}

/** The consent screen with both cookies; returns the form's CSRF token. */
async function csrfOf(g: Interaction, interaction: Cookie, owner: Cookie): Promise<string> {
  const res = await get(`${g.base}/consent`, [interaction, owner])
  const html = await expectHtml(res, 200)
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1]
  if (!csrf) throw new Error('no CSRF token on the consent screen')
  return csrf
}

/** A person-facing page: HTML of this status, no redirect, no stack trace or source path. Returns the text. */
async function expectHtml(res: Response, status: number): Promise<string> {
  const text = await res.text()
  expect(res.status, `${res.url} answered ${res.status}: ${text.slice(0, 300)}`).toBe(status)
  expect(res.headers.get('content-type') ?? '').toMatch(/^text\/html/)
  expect(res.headers.get('location')).toBeNull()
  expect(text.toLowerCase()).toContain('<!doctype html>')
  expect(text).not.toMatch(/\bat \S+ \(|\.[cm]?[jt]sx?:\d+|node_modules|webpack|Error:|prisma/i)
  return text
}

/** The GNAP JSON error body a JSON caller gets from a failure page. */
async function expectJsonError(res: Response, status: number, code: string): Promise<void> {
  expect(res.status).toBe(status)
  expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/)
  const body = (await res.json()) as { error: { code: string; description: string } }
  expect(Object.keys(body)).toEqual(['error'])
  expect(body.error.code).toBe(code)
  expect(body.error.description).toMatch(/\S/)
}

const interactionRow = (g: Interaction) => db.interaction.findUniqueOrThrow({ where: { id: g.interactionId }, include: { grant: true } })

async function expectUndecided(g: Interaction): Promise<void> {
  const row = await interactionRow(g)
  expect(row).toMatchObject({ state: 'pending', ownerId: null, decidedAt: null, finishedAt: null })
  expect(row.grant.state).toBe('pending')
}

/** A grant up to the consent screen: link opened, demo owner signed in, CSRF token read. */
async function atConsent(identifier?: string) {
  const g = await pending(identifier)
  const { cookie: interaction } = await openLink(g)
  const owner = await signInAlice(g, interaction)
  return { g, interaction, owner, csrf: await csrfOf(g, interaction, owner) }
}

describe('GET /interact/{id}/{nonce} without an identity provider', () => {
  it('sets an httpOnly, SameSite=Lax interaction cookie on this interaction’s path and redirects to its consent screen', async () => {
    const g = await pending()
    const { res, cookie } = await openLink(g)
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`${g.base}/consent`)
    expect(cookie.attributes).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Lax', `Path=/interact/${g.interactionId}/${g.asNonce}`]))
    // Lifetime = what the interaction has left (INTERACTION_EXPIRY_SECONDS 600, minus the time since the request).
    const maxAge = Number(cookie.attributes.find((a) => a.startsWith('Max-Age='))?.slice('Max-Age='.length))
    expect(maxAge).toBeGreaterThan(570)
    expect(maxAge).toBeLessThanOrEqual(600)
    // Plain http here: the cookie is marked Secure only when AUTH_SERVER_URL is https.
    expect(cookie.attributes).not.toContain('Secure')
    expect(cookie.value.length).toBeGreaterThanOrEqual(32)
    expect(cookieFrom(res, 'gnap_owner')).toBeNull()
  })
})

describe('GET /interact/{id}/{nonce}/consent', () => {
  it('answers a browser without the interaction cookie with a 401 page, or the GNAP JSON error to a JSON caller', async () => {
    const g = await pending()
    await openLink(g)
    await expectHtml(await get(`${g.base}/consent`, []), 401)
    await expectJsonError(await get(`${g.base}/consent`, [], { accept: 'application/json' }), 401, 'invalid_request')
  })

  it('answers an unknown interaction with a 400 page, or 400 unknown_interaction JSON', async () => {
    const url = `${w.server.url}interact/${crypto.randomUUID()}/ABCDEF0123456789/consent`
    await expectHtml(await get(url, []), 400)
    await expectJsonError(await get(url, [], { accept: 'application/json' }), 400, 'unknown_interaction')
  })

  it('shows the sign-in form, naming the client, to the browser that opened the link', async () => {
    const g = await pending()
    const { cookie } = await openLink(g)
    const html = await expectHtml(await get(`${g.base}/consent`, [cookie]), 200)
    expect(html).toContain('Test App')
    expect(html).toContain('action="sign-in"')
    expect(html).not.toContain('role="alert"')
  })
})

describe('POST /interact/{id}/{nonce}/sign-in', () => {
  it.each([
    ['a wrong password', DEMO_OWNER.email, 'not-the-password'],
    ['an unknown email', 'nobody@example.com', DEMO_OWNER.password],
  ])('answers %s with a 303 back to the form, which shows the alert; no owner cookie', async (_name, email, password) => {
    const g = await pending()
    const { cookie } = await openLink(g)
    const before = await db.session.count()
    const res = await signIn(g, cookie, email, password)
    expect(res.status).toBe(303)
    expect(new URL(res.headers.get('location') ?? '', `${g.base}/sign-in`).href).toBe(`${g.base}/consent?failed`)
    expect(cookieFrom(res, 'gnap_owner')).toBeNull()
    expect(await db.session.count()).toBe(before)
    const html = await expectHtml(await get(`${g.base}/consent?failed`, [cookie]), 200)
    expect(html).toContain('role="alert"')
  })

  it('answers a sign-in without the interaction cookie with a 401 page and opens no session', async () => {
    const g = await pending()
    await openLink(g)
    const before = await db.session.count()
    const res = await signIn(g, null, DEMO_OWNER.email, DEMO_OWNER.password)
    expect(cookieFrom(res, 'gnap_owner')).toBeNull()
    await expectHtml(res, 401)
    expect(await db.session.count()).toBe(before)
  })

  it('sets an httpOnly, SameSite=Lax owner cookie for the right password, and the consent screen then shows the request', async () => {
    const g = await pending()
    const { cookie: interaction } = await openLink(g)
    const res = await signIn(g, interaction, DEMO_OWNER.email.toUpperCase(), DEMO_OWNER.password)
    expect(res.status).toBe(303)
    expect(new URL(res.headers.get('location') ?? '', `${g.base}/sign-in`).href).toBe(`${g.base}/consent`)
    const owner = cookieFrom(res, 'gnap_owner')
    if (!owner) throw new Error('no owner cookie')
    expect(owner.attributes).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Lax', 'Path=/', 'Max-Age=1800']))

    const html = await expectHtml(await get(`${g.base}/consent`, [interaction, owner]), 200)
    expect(html).toContain(DEMO_OWNER.name)
    expect(html).toContain('Test App')
    expect(html).toContain('25.00 USD')
    expect(html).toMatch(/value="approve"/)
    expect(html).toMatch(/value="deny"/)
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? ''
    expect(csrf).not.toBe(owner.value)

    // Only hashes of the cookie value and of the CSRF token are stored.
    const sessions = JSON.stringify(await db.session.findMany())
    expect(sessions).not.toContain(owner.value)
    expect(sessions).not.toContain(csrf)
    expect(JSON.stringify(await interactionRow(g))).not.toContain(interaction.value)
  })
})

describe('a disabled owner (docs/protocol.md §2.13)', () => {
  it('is told only after the right password, gets no session, and an older session shows the disabled page', async () => {
    const g = await pending(CAROL.walletAddresses[0])
    const { cookie: interaction } = await openLink(g)
    const owner = cookieFrom(await signIn(g, interaction, CAROL.email, CAROL.password), 'gnap_owner')
    if (!owner) throw new Error('no owner cookie')
    await db.owner.update({ where: { email: CAROL.email }, data: { status: 'disabled' } })
    try {
      // A session that outlived the disable (disabling ends sessions; this one raced it): no request, a clear page.
      const page = await expectHtml(await get(`${g.base}/consent`, [interaction, owner]), 403)
      expect(page).toContain('Account disabled')
      expect(page).not.toMatch(/value="approve"/)

      // A wrong password gets the answer anyone gets; the right one, and only it, hears that the account is disabled.
      const wrong = await signIn(g, interaction, CAROL.email, 'not-carols-password')
      expect(wrong.status).toBe(303)
      expect(wrong.headers.get('location')).toMatch(/consent\?failed$/)
      const right = await signIn(g, interaction, CAROL.email, CAROL.password)
      expect(cookieFrom(right, 'gnap_owner')).toBeNull()
      expect(await expectHtml(right, 403)).toContain('This account is disabled')
      await expectUndecided(g)
    } finally {
      await db.owner.update({ where: { email: CAROL.email }, data: { status: 'active' } })
    }
  })
})

describe('POST /interact/{id}/{nonce}/decision', () => {
  it('refuses a decision without the CSRF token with a 403 page (or JSON), and the grant stays pending', async () => {
    const { g, interaction, owner } = await atConsent()
    await expectHtml(await post(`${g.base}/decision`, [interaction, owner], { choice: 'approve' }), 403)
    await expectJsonError(
      await post(`${g.base}/decision`, [interaction, owner], { choice: 'approve' }, { accept: 'application/json' }),
      403,
      'invalid_request',
    )
    await expectUndecided(g)
  })

  it('refuses the CSRF token of another session of the same owner with a 403 page', async () => {
    const { g, interaction, owner } = await atConsent()
    const otherOwnerCookie = await signInAlice(g, interaction)
    const otherCsrf = await csrfOf(g, interaction, otherOwnerCookie)
    await expectHtml(await post(`${g.base}/decision`, [interaction, owner], { csrf: otherCsrf, choice: 'approve' }), 403)
    await expectUndecided(g)
  })

  it('refuses a decision without the interaction cookie with a 401 page: the owner cookie alone approves nothing', async () => {
    const { g, owner, csrf } = await atConsent()
    await expectHtml(await post(`${g.base}/decision`, [owner], { csrf, choice: 'approve' }), 401)
    await expectJsonError(
      await post(`${g.base}/decision`, [owner], { csrf, choice: 'approve' }, { accept: 'application/json' }),
      401,
      'invalid_request',
    )
    await expectUndecided(g)
  })

  it('refuses a decision without the owner cookie with a 401 page', async () => {
    const { g, interaction, csrf } = await atConsent()
    await expectHtml(await post(`${g.base}/decision`, [interaction], { csrf, choice: 'approve' }), 401)
    await expectUndecided(g)
  })

  it('refuses an unknown choice with a 400 page', async () => {
    const { g, interaction, owner, csrf } = await atConsent()
    await expectHtml(await post(`${g.base}/decision`, [interaction, owner], { csrf, choice: 'accept' }), 400)
    await expectUndecided(g)
  })

  it('tells another owner the request is not theirs (403 page) and refuses their decision with a 403 page', async () => {
    const g = await pending()
    const { cookie: interaction } = await openLink(g)
    const res = await signIn(g, interaction, BOB.email, BOB.password)
    const bob = cookieFrom(res, 'gnap_owner')
    if (!bob) throw new Error('no owner cookie')
    const html = await expectHtml(await get(`${g.base}/consent`, [interaction, bob]), 403)
    expect(html).toContain(BOB.name)
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? ''
    expect(csrf).not.toBe('')
    await expectHtml(await post(`${g.base}/decision`, [interaction, bob], { csrf, choice: 'approve' }), 403)
    await expectUndecided(g)
  })

  it('approves: 303 to finish, which redirects to the client with a verifiable hash; the SDK continues to a token; a replayed finish is a 404 page', async () => {
    const { g, interaction, owner, csrf } = await atConsent()
    const decided = await post(`${g.base}/decision`, [interaction, owner], { csrf, choice: 'approve' })
    expect(decided.status).toBe(303)
    expect(decided.headers.get('location')).toBe(`${g.base}/finish`)
    const ownerRow = await db.owner.findUniqueOrThrow({ where: { email: DEMO_OWNER.email } })
    expect(await interactionRow(g)).toMatchObject({ state: 'approved', ownerId: ownerRow.id })

    const finished = await get(`${g.base}/finish`, [interaction])
    expect(finished.status).toBe(302)
    const back = new URL(finished.headers.get('location') ?? '')
    expect(`${back.origin}${back.pathname}`).toBe('https://client.example/finish')
    const interactRef = back.searchParams.get('interact_ref') ?? ''
    expect(interactRef).not.toBe('')
    expect(back.searchParams.get('hash')).toBe(expectedHash(g.clientNonce, g.asNonce, interactRef, w.server.url))

    await sleep(g.wait * 1000)
    const grant = await w.client.grant.continue({ url: g.continueUri, accessToken: g.continueToken }, { interact_ref: interactRef })
    if (!isFinalizedGrant(grant) || !grant.access_token) throw new Error('expected an issued grant')
    expect(grant.access_token.access).toEqual([outgoingAccess(ALICE_WALLET)])

    await expectHtml(await get(`${g.base}/finish`, [interaction]), 404)
    await expectJsonError(await get(`${g.base}/finish`, [interaction], { accept: 'application/json' }), 404, 'unknown_interaction')
  })

  it('denies: 303 to finish, which redirects to the client with result=grant_rejected', async () => {
    const { g, interaction, owner, csrf } = await atConsent()
    const decided = await post(`${g.base}/decision`, [interaction, owner], { csrf, choice: 'deny' })
    expect(decided.status).toBe(303)
    expect(decided.headers.get('location')).toBe(`${g.base}/finish`)
    const finished = await get(`${g.base}/finish`, [interaction])
    expect(finished.status).toBe(302)
    const back = new URL(finished.headers.get('location') ?? '')
    expect(back.searchParams.get('result')).toBe('grant_rejected')
    expect(back.searchParams.get('interact_ref')).toBeNull()
    expect((await interactionRow(g)).grant).toMatchObject({ state: 'finalized', finalizedReason: 'rejected' })
  })

  it('sends a second decision to finish without changing the first', async () => {
    const { g, interaction, owner, csrf } = await atConsent()
    expect((await post(`${g.base}/decision`, [interaction, owner], { csrf, choice: 'approve' })).status).toBe(303)
    const again = await post(`${g.base}/decision`, [interaction, owner], { csrf, choice: 'deny' })
    expect(again.status).toBe(303)
    expect(again.headers.get('location')).toBe(`${g.base}/finish`)
    expect((await interactionRow(g)).state).toBe('approved')
  })
})

describe('POST /interact/{id}/{nonce}/sign-out', () => {
  it('ends the owner session (with its CSRF token), clears the cookie and shows the sign-in form again', async () => {
    const { g, interaction, owner, csrf } = await atConsent()
    const res = await post(`${g.base}/sign-out`, [interaction, owner], { csrf })
    expect(res.status).toBe(303)
    expect(cookieFrom(res, 'gnap_owner')?.attributes).toEqual(expect.arrayContaining(['Max-Age=0', 'Path=/']))
    const html = await expectHtml(await get(`${g.base}/consent`, [interaction, owner]), 200)
    expect(html).toContain('action="sign-in"')
    await expectHtml(await post(`${g.base}/decision`, [interaction, owner], { csrf, choice: 'approve' }), 401)
    await expectUndecided(g)
  })
})

describe('POST /interact/{id}/{nonce}/sign-out without the CSRF token', () => {
  it.each([
    ['no token', (): Record<string, string> => ({})],
    ['a wrong token', (): Record<string, string> => ({ csrf: 'not-the-token' })],
  ])('answers %s with a 403 page, clears no cookie and keeps the session', async (_name, form) => {
    const { g, interaction, owner } = await atConsent()
    const res = await post(`${g.base}/sign-out`, [interaction, owner], form())
    await expectHtml(res, 403)
    expect(cookieFrom(res, 'gnap_owner')).toBeNull()
    const html = await expectHtml(await get(`${g.base}/consent`, [interaction, owner]), 200)
    expect(html).toContain('Approve')
  })

  it('answers another site’s form (no owner cookie, no token) with a 403 page that clears no cookie', async () => {
    const { g, interaction } = await atConsent()
    const res = await post(`${g.base}/sign-out`, [interaction], {})
    await expectHtml(res, 403)
    expect(cookieFrom(res, 'gnap_owner')).toBeNull()
  })
})

describe('what the server said', () => {
  it('every answer with a contract met it, and the log holds no cookie value or password', () => {
    const consentScreen = /^no contract for \w+ \S+\/(consent|sign-in|decision|sign-out)(\?\S*)?$/
    expect(w.spec.failures.filter((f) => !consentScreen.test(f))).toEqual([])
    const logs = w.server.logs()
    expect(logs).not.toContain(DEMO_OWNER.password)
    expect(logs).not.toContain(BOB.password)
    expect(logs).not.toMatch(/gnap_(owner|interaction)=/)
  })
})
