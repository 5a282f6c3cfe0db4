// An owner's one-time link to set a password (docs/protocol.md §7), over plain HTTP against `next start`: the page,
// the form post, and the pages for a used, expired or unknown link.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStore, type Store } from '@gnap/domain/kernel'
import { createOwner, issueOwnerLink, signInOwner } from '@gnap/domain/operator'
import { startServer, type RunningServer } from '@gnap/test-support'
import { serverDeps } from './support/server-deps'
import { atLeastLeftInWindow } from './support/world'

let server: RunningServer
let store: Store
let ownerId: string

const PASSWORD = 'violet kettle under stairs'

beforeAll(async () => {
  server = await startServer({ IDENTITY_SERVER_URL: undefined, TRUST_PROXY: 'true' })
  // The owner and their links live in the server's database, written beside it as the admin console would.
  store = await openStore(`file:${server.dbFile}`)
  ownerId = (
    await createOwner(store.sql, {
      email: 'dana@example.com',
      name: 'Dana',
      password: 'old password of dana',
      walletAddresses: ['https://wallet.example/dana'],
    })
  ).id
})

afterAll(async () => {
  await store?.close()
  await server?.stop()
})

const issue = (kind: 'invitation' | 'reset' = 'reset', now = new Date(), ttlSeconds = 3600) =>
  issueOwnerLink(store.sql, { ownerId, kind, now, ttlSeconds, baseUrl: server.url }).then((l) => l.url)

/** A browser's form post from the page itself. */
const post = (url: string, fields: Record<string, string>, headers: Record<string, string | null> = {}) => {
  const all: Record<string, string | null> = {
    'content-type': 'application/x-www-form-urlencoded',
    // What Chromium sends for a form on a page with Referrer-Policy: no-referrer.
    origin: 'null',
    'sec-fetch-site': 'same-origin',
    ...headers,
  }
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== null)),
    body: new URLSearchParams(fields).toString(),
  })
}

/** Whether the owner can sign in with this password, through the consent screen's own use case. */
async function signsIn(password: string): Promise<boolean> {
  const deps = serverDeps(store, server.url)
  return (await signInOwner(deps, { email: 'dana@example.com', password })) !== null
}

describe('the set-password page', () => {
  it('shows a form with the rules in words, never framed, never cached', async () => {
    const res = await fetch(await issue('invitation'))
    expect(res.status).toBe(200)
    const page = await res.text()
    expect(page).toContain('Choose your password')
    expect(page).toContain('For Dana.')
    expect(page).toContain('At least 12 characters')
    expect(page).toMatch(/<form class="sign-in" method="post">/)
    expect(page).toContain('autocomplete="new-password"')
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(res.headers.get('x-frame-options')).toBe('DENY')
    expect(res.headers.get('referrer-policy')).toBe('no-referrer')
  })

  it('sets the password once; the used link then says so', async () => {
    const url = await issue()
    const res = await post(url, { password: PASSWORD, confirm: PASSWORD })
    expect(res.status).toBe(200)
    const page = await res.text()
    expect(page).toContain('Password set — you can now sign in')
    expect(page).toContain(`href="${server.url}account"`)
    expect(await signsIn(PASSWORD)).toBe(true)

    const again = await post(url, { password: 'another long password', confirm: 'another long password' })
    expect(again.status).toBe(410)
    expect(await again.text()).toContain('This link was already used')
    const opened = await fetch(url)
    expect(opened.status).toBe(410)
    expect(await opened.text()).toContain('This link was already used')
    expect(await signsIn(PASSWORD)).toBe(true)
  })

  it('shows a refused password again with the reason, and the link still works', async () => {
    const url = await issue()
    const res = await post(url, { password: 'qwerty123456', confirm: 'qwerty123456' })
    expect(res.status).toBe(400)
    const page = await res.text()
    expect(page).toContain('commonly used passwords')
    expect(page).toContain('role="alert"')
    expect(page).toContain('aria-invalid="true"')
    expect((await fetch(url)).status).toBe(200)
  })

  it('says an expired link has expired', async () => {
    const url = await issue('reset', new Date(Date.now() - 2 * 3600_000), 3600)
    const res = await fetch(url)
    expect(res.status).toBe(410)
    expect(await res.text()).toContain('This link has expired')
    const posted = await post(url, { password: PASSWORD, confirm: PASSWORD })
    expect(posted.status).toBe(410)
  })

  it('says an unknown or replaced link is not valid', async () => {
    const replaced = await issue()
    await issue()
    for (const url of [replaced, `${server.url}account/set-password/${'A'.repeat(43)}`, `${server.url}account/set-password/not%20a%20secret`]) {
      const res = await fetch(url)
      expect(res.status).toBe(404)
      expect(await res.text()).toContain('This link is not valid')
    }
  })

  it.each([
    ['Sec-Fetch-Site cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site same-site (a sibling subdomain)', { 'sec-fetch-site': 'same-site' }],
    ['an Origin of another site (a browser without Sec-Fetch-Site)', { origin: 'https://evil.example', 'sec-fetch-site': null }],
    ['Sec-Fetch-Site cross-site and Origin null', { origin: 'null', 'sec-fetch-site': 'cross-site' }],
  ])('refuses a post with %s and changes nothing', async (_name, headers) => {
    const url = await issue()
    const res = await post(url, { password: 'cross site password', confirm: 'cross site password' }, headers)
    expect(res.status).toBe(403)
    expect(await res.text()).toContain('This form was sent from another site')
    expect(await signsIn('cross site password')).toBe(false)
    expect((await fetch(url)).status).toBe(200)
  })

  it('answers a very long secret or password with a page, not an error', async () => {
    const long = await post(`${server.url}account/set-password/${'C'.repeat(4000)}`, { password: PASSWORD, confirm: PASSWORD })
    expect(long.status).toBe(404)
    const url = await issue()
    const huge = 'x'.repeat(3000)
    const res = await post(url, { password: huge, confirm: huge })
    expect(res.status).toBe(400)
    expect(await res.text()).toContain('The password is too long')
  })

  it('limits posts per caller IP, so secrets cannot be guessed quickly; other callers go on', async () => {
    const guess = `${server.url}account/set-password/${'B'.repeat(43)}`
    const from = (ip: string) => post(guess, { password: PASSWORD, confirm: PASSWORD }, { 'x-forwarded-for': ip })
    await atLeastLeftInWindow(30, 600) // the route's window: 20 posts per IP in 10 minutes
    for (let i = 0; i < 20; i++) expect((await from('203.0.113.9')).status).toBe(404)
    const refused = await from('203.0.113.9')
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await refused.text()).toContain('Too many attempts')
    expect((await from('198.51.100.7')).status).toBe(404)
  }, 60_000)

  it('never writes the link in the server log', async () => {
    const url = await issue()
    await fetch(url)
    await post(url, { password: 'a logged password?', confirm: 'a logged password?' })
    const secret = url.split('/').pop() ?? ''
    expect(server.logs()).toContain('/account/set-password/[redacted]')
    expect(server.logs()).not.toContain(secret)
    expect(server.logs()).not.toContain('a logged password?')
  })
})
