// Owners belong to a tenant (docs/protocol.md §2.21), over HTTP against `next start` with an operator tenant and the
// operator's identity provider set: a tenant without an identity provider of its own gets the built-in consent
// screen, which signs in its own owners only (another tenant's owner is answered as a wrong password, and another
// tenant's owner session reads as none), and /account shows an owner only their tenant's grants. A browser played
// with fetch, manual redirects and cookies; the client is the Open Payments SDK. On SQLite, and on PostgreSQL when
// TEST_DATABASE_URL names a server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isFinalizedGrant, isPendingGrant } from '@interledger/open-payments'
import { freePort } from '@gnap/test-support'
import type { Store } from '@gnap/domain/kernel'
import { freshDatabase, providers, type TestDatabase } from './support/databases'
import {
  addTenantOwners,
  createTenantThroughServiceApi,
  incomingGrantAt,
  TENANT_A as A,
  TENANT_B as B,
  tenantSettings,
} from './support/tenant-owners'
import { expectedHash, finishParams, introspect, outgoingAccess, sleep, startWorld, type World } from './support/world'

const B_IDP_SECRET = 'tenant-b-idp-secret-0123456789abcdef'
const ALICE_WALLET = 'https://wallet.example/alice-of-a'
const ALICE = { email: 'alice@a.example', name: 'Alice of A', password: 'alice-of-a-password', walletAddresses: [ALICE_WALLET] }
const BOB = { email: 'bob@b.example', name: 'Bob of B', password: 'bob-of-b-password', walletAddresses: ['https://wallet.example/bob-of-b'] }
const C = '9c8b7a6f-5e4d-4c3b-8a29-1f0e9d8c7b6a'
const CAROL = {
  email: 'carol@c.example',
  name: 'Carol of C',
  password: 'carol-of-c-password',
  walletAddresses: ['https://wallet.example/carol-of-c'],
}

/** The `name=value` of a Set-Cookie of the answer, as a browser sends it back; null when not set. */
const cookieOf = (res: Response, name: string): string | null =>
  res.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${name}=`))
    ?.split(';')[0] ?? null

const csrfIn = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? ''

describe.each(providers)("a tenant's owners on %s", (provider) => {
  let w: World
  let db: TestDatabase
  let store: Store
  let port: number

  beforeAll(async () => {
    db = await freshDatabase(provider, 'tenant_owners')
    port = await freePort()
    w = await startWorld({ DATABASE_URL: db.url, ...tenantSettings(port) })
    // A has no identity provider of its own; B has one.
    await createTenantThroughServiceApi(port, { id: A })
    await createTenantThroughServiceApi(port, { id: B, idpConsentUrl: 'https://idp-b.example/consent', idpSecret: B_IDP_SECRET })
    store = await db.open()
    await addTenantOwners(store.sql, [
      [ALICE, A],
      [BOB, B],
    ])
  }, 90_000)

  afterAll(async () => {
    await store?.close()
    await w?.stop()
    await db?.drop()
  })

  const origin = () => new URL(w.server.url).origin
  const post = (url: string, cookies: (string | null)[], form: Record<string, string>) =>
    fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: origin(), cookie: cookies.filter(Boolean).join('; ') },
      body: new URLSearchParams(form).toString(),
    })
  const get = (url: string, cookies: (string | null)[]) =>
    fetch(url, { redirect: 'manual', headers: { accept: 'text/html', cookie: cookies.filter(Boolean).join('; ') } })
  const page = async (res: Response, status: number) => {
    const text = await res.text()
    expect(res.status, text.slice(0, 300)).toBe(status)
    return text
  }

  /** An interactive grant at `{AUTH_SERVER_URL}/{tenantId}` on `identifier`, its link opened by the owner's browser. */
  async function opened(tenantId: string, identifier = ALICE_WALLET) {
    const finish = finishParams()
    const authServer = `${w.server.url}${tenantId}`
    const grant = await w.client.grant.request(
      { url: authServer },
      { access_token: { access: [outgoingAccess(identifier)] }, interact: { start: ['redirect'], finish } },
    )
    if (!isPendingGrant(grant)) throw new Error('expected a pending grant')
    const start = await fetch(grant.interact.redirect, { redirect: 'manual' })
    const link = new URL(grant.interact.redirect)
    const base = link.origin + link.pathname
    return { grant, finish, authServer, start, base, interaction: cookieOf(start, 'gnap_interaction') }
  }

  it("a tenant without an identity provider sends the owner to the built-in consent screen, not to the operator's", async () => {
    const g = await opened(A)
    expect(g.start.status).toBe(302)
    expect(g.start.headers.get('location')).toBe(`${g.base}/consent`)
    expect(await page(await get(`${g.base}/consent`, [g.interaction]), 200)).toContain('action="sign-in"')
  })

  it("refuses B's owner on A's consent screen as a wrong password; A's owner approves there and the client gets its token", async () => {
    const g = await opened(A)
    const sessions = await store.prisma.session.count()
    for (const password of [BOB.password, 'not-the-password']) {
      const refused = await post(`${g.base}/sign-in`, [g.interaction], { email: BOB.email, password })
      expect([refused.status, refused.headers.get('location'), cookieOf(refused, 'gnap_owner')]).toEqual([303, 'consent?failed', null])
    }
    expect(await store.prisma.session.count()).toBe(sessions)

    const signedIn = await post(`${g.base}/sign-in`, [g.interaction], { email: ALICE.email, password: ALICE.password })
    expect([signedIn.status, signedIn.headers.get('location')]).toEqual([303, 'consent'])
    const alice = cookieOf(signedIn, 'gnap_owner')
    const screen = await page(await get(`${g.base}/consent`, [g.interaction, alice]), 200)
    expect(screen).toContain(ALICE.name)
    const approved = await post(`${g.base}/decision`, [g.interaction, alice], { csrf: csrfIn(screen), choice: 'approve' })
    expect(approved.status).toBe(303)
    const back = await fetch(approved.headers.get('location') ?? '', { redirect: 'manual', headers: { cookie: g.interaction ?? '' } })
    const query = new URL(back.headers.get('location') ?? '').searchParams
    const interactRef = query.get('interact_ref') ?? ''
    expect(query.get('hash')).toBe(expectedHash(g.finish.nonce, g.grant.interact.finish, interactRef, g.authServer))
    await sleep((g.grant.continue.wait ?? 0) * 1000)
    const issued = await w.client.grant.continue(
      { url: g.grant.continue.uri, accessToken: g.grant.continue.access_token.value },
      { interact_ref: interactRef },
    )
    expect(isFinalizedGrant(issued) && issued.access_token !== undefined).toBe(true)
  })

  it("reads B's owner session on A's consent screen as none: the sign-in form, and a decision post is refused", async () => {
    const signedIn = await post(`${w.server.url}account/sign-in`, [], { email: BOB.email, password: BOB.password })
    const bob = cookieOf(signedIn, 'gnap_owner')
    expect(bob).not.toBeNull()
    // A's grant names Bob's own wallet address: still not his to decide on A's screen.
    const g = await opened(A, BOB.walletAddresses[0])
    const screen = await page(await get(`${g.base}/consent`, [g.interaction, bob]), 200)
    expect(screen).toContain('action="sign-in"')
    expect(screen).not.toContain(BOB.name)
    const csrf = csrfIn(await page(await get(`${w.server.url}account`, [bob]), 200))
    await page(await post(`${g.base}/decision`, [g.interaction, bob], { csrf, choice: 'approve' }), 401)
    const interactionId = new URL(g.grant.interact.redirect).pathname.split('/')[2]
    expect((await store.prisma.interaction.findUniqueOrThrow({ where: { id: interactionId } })).state).toBe('pending')
  })

  it("/account of A's owner shows A's grants only; B's grants on the same wallet address are neither shown nor revocable", async () => {
    // B's grants on Alice's wallet address: one approved by B's identity provider, one needing no approval.
    const theirs = await opened(B)
    const location = new URL(theirs.start.headers.get('location') ?? '')
    const [interactId, nonce] = [location.searchParams.get('interactId'), location.searchParams.get('nonce')]
    const idp = { method: 'POST', headers: { 'x-idp-secret': B_IDP_SECRET } }
    expect((await fetch(`${w.server.url}grant/${interactId}/${nonce}/accept`, idp)).status).toBe(202)
    await fetch(`${w.server.url}interact/${interactId}/${nonce}/finish`, { redirect: 'manual', headers: { cookie: theirs.interaction ?? '' } })
    const theirsId = (await store.prisma.grant.findFirstOrThrow({ where: { tenantId: B, state: 'approved' } })).id
    const unapproved = await incomingGrantAt(w.client, `${w.server.url}${B}`, `${ALICE_WALLET}/incoming-payments`)
    const mine = await store.prisma.grant.findFirstOrThrow({ where: { tenantId: A, interaction: { state: 'approved' } } })

    const signedIn = await post(`${w.server.url}account/sign-in`, [], { email: ALICE.email, password: ALICE.password })
    const alice = cookieOf(signedIn, 'gnap_owner')
    const html = await page(await get(`${w.server.url}account`, [alice]), 200)
    expect(html).toContain(`/account/apps/${mine.id}/revoke`)
    expect(html).not.toContain(theirsId)
    expect(html).not.toContain('/account/clients/revoke')
    // A forged id: 404, and B's grant lives on.
    await page(await get(`${w.server.url}account/apps/${theirsId}/revoke`, [alice]), 404)
    await page(await post(`${w.server.url}account/apps/${theirsId}/revoke`, [alice], { csrf: csrfIn(html) }), 404)
    await page(await post(`${w.server.url}account/clients/revoke`, [alice], { csrf: csrfIn(html), client: w.walletAddress }), 404)
    expect((await store.prisma.grant.findUniqueOrThrow({ where: { id: theirsId } })).state).toBe('approved')
    expect((await introspect(w.server, unapproved)).body.active).toBe(true)
  })

  it("a deleted tenant's owner is signed out of /account at once, and told why only after the right password", async () => {
    await createTenantThroughServiceApi(port, { id: C })
    await addTenantOwners(store.sql, [[CAROL, C]])
    const carol = cookieOf(await post(`${w.server.url}account/sign-in`, [], { email: CAROL.email, password: CAROL.password }), 'gnap_owner')
    expect(await page(await get(`${w.server.url}account`, [carol]), 200)).toContain(CAROL.name)

    const deleted = await fetch(`http://127.0.0.1:${port}/tenant/${C}`, {
      method: 'DELETE',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ deletedAt: new Date().toISOString() }),
    })
    expect(deleted.status).toBe(204)

    // The open session now reads as none: the sign-in form, nothing of Carol's.
    const signedOut = await page(await get(`${w.server.url}account`, [carol]), 200)
    expect(signedOut).toContain('Sign in to see the apps connected to your wallet')
    expect(signedOut).not.toContain(CAROL.name)
    // A wrong password is answered as any wrong password; the right one is told why, and gets no session.
    const wrong = await post(`${w.server.url}account/sign-in`, [], { email: CAROL.email, password: 'not-carols-password' })
    expect([wrong.status, wrong.headers.get('location')]).toEqual([303, '/account?failed'])
    const right = await post(`${w.server.url}account/sign-in`, [], { email: CAROL.email, password: CAROL.password })
    expect(await page(right, 403)).toContain('The provider of your wallet no longer uses this server for your account.')
    expect(cookieOf(right, 'gnap_owner')).toBeNull()
  })
})
