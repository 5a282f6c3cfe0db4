// Password guessing over HTTP against `next start` with TRUST_PROXY (the caller's address is known): the console's
// tRPC sign-in and the consent screen's sign-in form (docs/protocol.md §2.11).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isPendingGrant } from '@interledger/open-payments'
import { openStore, type Store } from '@gnap/domain/kernel'
import { DEMO_OWNER, SIGN_IN_LIMITS, createAdmin, createOwner } from '@gnap/domain/operator'
import { atLeastLeftInWindow, outgoingAccess, finishParams, startWorld, type World } from './support/world'

const ADMIN = { email: 'ops@example.com', password: 'a long admin password' }

let w: World
let store: Store

beforeAll(async () => {
  w = await startWorld({ IDENTITY_SERVER_URL: undefined, TRUST_PROXY: 'true' })
  store = await openStore(`file:${w.server.dbFile}`)
  await createAdmin(store.sql, ADMIN)
  await createOwner(store.sql, { ...DEMO_OWNER, walletAddresses: [...DEMO_OWNER.walletAddresses] })
})

afterAll(async () => {
  await store?.close()
  await w?.stop()
})

/** tRPC's JSON for one call (superjson, for plain strings, is `{ json: … }`). */
const signInCall = (ip: string, input: { email: string; password: string }) =>
  fetch(`${w.server.url}api/trpc/auth.signIn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: JSON.stringify({ json: input }),
  })

describe('the console’s sign-in (tRPC)', () => {
  it('refuses one batched request of forty wrong passwords and the right one: 400, no session cookie, no password checked', async () => {
    const inputs = [...Array.from({ length: 40 }, (_, i) => ({ ...ADMIN, password: `wrong guess ${i}` })), ADMIN]
    const res = await fetch(`${w.server.url}api/trpc/${inputs.map(() => 'auth.signIn').join(',')}?batch=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.1' },
      body: JSON.stringify(Object.fromEntries(inputs.map((input, i) => [i, { json: input }]))),
    })
    expect(res.status).toBe(400)
    expect(res.headers.getSetCookie()).toEqual([])
    expect(JSON.stringify(await res.json())).toMatch(/"httpStatus":400/)
    expect(await store.prisma.session.count()).toBe(0)
    expect(await store.prisma.rateLimit.count({ where: { key: { startsWith: 'admin-sign-in' } } })).toBe(0)
  })

  it('refuses an address after 10 wrong passwords (429, Retry-After) while the right password from another address signs in', async () => {
    await atLeastLeftInWindow(60, SIGN_IN_LIMITS.windowSeconds)
    for (let i = 0; i < 10; i++) expect((await signInCall('203.0.113.2', { ...ADMIN, password: `wrong ${i}` })).status).toBe(401)
    const refused = await signInCall('203.0.113.2', ADMIN)
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(refused.headers.getSetCookie()).toEqual([])
    const other = await signInCall('198.51.100.2', ADMIN)
    expect(other.status).toBe(200)
    expect(other.headers.getSetCookie().join()).toMatch(/^gnap_admin=/)
  }, 120_000)
})

describe('the consent screen’s sign-in form', () => {
  async function signInForm(ip: string, password: string): Promise<Response> {
    const finish = finishParams()
    const grant = await w.client.grant.request(
      { url: w.server.url },
      { access_token: { access: [outgoingAccess(DEMO_OWNER.walletAddresses[0])] }, interact: { start: ['redirect'], finish } },
    )
    if (!isPendingGrant(grant)) throw new Error('expected a pending grant')
    const link = await fetch(grant.interact.redirect, { redirect: 'manual' })
    const cookie = link.headers
      .getSetCookie()
      .find((c) => c.startsWith('gnap_interaction='))
      ?.split(';')[0]
    const base = new URL(new URL(grant.interact.redirect).pathname, w.server.url).href
    return fetch(`${base}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: new URL(w.server.url).origin,
        cookie: cookie ?? '',
        'x-forwarded-for': ip,
      },
      body: new URLSearchParams({ email: DEMO_OWNER.email, password }).toString(),
    })
  }

  it('refuses an address after 10 wrong passwords with a 429 page and Retry-After; the right password from another address signs in', async () => {
    await atLeastLeftInWindow(60, SIGN_IN_LIMITS.windowSeconds)
    for (let i = 0; i < 10; i++) expect((await signInForm('203.0.113.3', `wrong ${i}`)).status).toBe(303)
    const refused = await signInForm('203.0.113.3', DEMO_OWNER.password)
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(await refused.text()).toContain('Too many')
    const other = await signInForm('198.51.100.3', DEMO_OWNER.password)
    expect(other.status).toBe(303)
    expect(other.headers.getSetCookie().join()).toMatch(/gnap_owner=/)
  }, 120_000)
})
