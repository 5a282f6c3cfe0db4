// A Rafiki backend's tenant on our server (docs/protocol.md §2.21), over HTTP against `next start` and its service API
// listener: the tenant created as the backend's auth-service client sends it, a grant at `{AUTH_SERVER_URL}/{tenantId}`
// by the real Open Payments client, the interaction at the tenant's identity provider with the finish hash over that
// URL, introspection on the listener without credentials as the backend's token-introspection client sends it (a
// quote with `identifier`, the outgoing-payment grant check without), then the tenant deleted, after which its tokens
// introspect inactive and can no longer be rotated. On SQLite, and on PostgreSQL when TEST_DATABASE_URL names a
// server. The server runs with an operator tenant (OPERATOR_TENANT_ID), as the backend's OPERATOR_TENANT_ID.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isFinalizedGrant, isPendingGrant, type AccessItem } from '@interledger/open-payments'
import { freePort, IDP_SECRET } from '@gnap/test-support'
import { freshDatabase, providers, type TestDatabase } from './support/databases'
import { consent, expectedHash, finishParams, outgoingAccess, rejection, sleep, startWorld, type World } from './support/world'
import { checkedAsTheBackend, introspectAsTheBackend } from './support/rafiki-backend'

const TENANT = '6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
const TENANT_IDP = 'https://idp-tenant.example/consent'
const TENANT_IDP_SECRET = 'tenant-idp-secret-0123456789abcdef0123'
const OPERATOR = '438fa74a-fa7d-4317-9ced-dde32ece1787'
const ALICE = 'https://wallet.example/alice'

describe.each(providers)('a tenant of a Rafiki backend on %s', (provider) => {
  let w: World
  let db: TestDatabase
  let serviceApi: string
  let introspection: string

  beforeAll(async () => {
    db = await freshDatabase(provider, 'tenants')
    const [port, introspectionPort] = [await freePort(), await freePort()]
    // As the backend's three URLs need it: grants at AUTH_SERVER_URL/{tenantId}, introspection without credentials on
    // its own listener, the service API on another.
    w = await startWorld({
      DATABASE_URL: db.url,
      SERVICE_API_PORT: String(port),
      INTROSPECTION_PORT: String(introspectionPort),
      INTROSPECTION_PORT_AUTH: 'none',
      OPERATOR_TENANT_ID: OPERATOR,
      ADMIN_API_SECRET: 'operator-admin-api-secret-0123456789abcdef',
    })
    serviceApi = `http://127.0.0.1:${port}`
    introspection = `http://127.0.0.1:${introspectionPort}`
  }, 90_000)

  afterAll(async () => {
    await w?.stop()
    await db?.drop()
  })

  /** A call as the backend's auth-service client makes it. */
  const backend = (method: string, path: string, data: unknown) =>
    fetch(`${serviceApi}${path}`, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(data) })

  /** The token of a grant the real client obtained at `authServer` without interaction. */
  async function issued(authServer: string, access: AccessItem[]) {
    const grant = await w.client.grant.request({ url: authServer }, { access_token: { access } })
    if (!isFinalizedGrant(grant) || !grant.access_token) throw new Error('expected an issued grant')
    return grant.access_token
  }

  it('the operator tenant, created at start, takes grants at POST /{its id} through the operator identity provider', async () => {
    const authServer = `${w.server.url}${OPERATOR}`
    const finish = finishParams()
    const pending = await w.client.grant.request(
      { url: authServer },
      { access_token: { access: [outgoingAccess('https://wallet.example/alice')] }, interact: { start: ['redirect'], finish } },
    )
    if (!isPendingGrant(pending)) throw new Error('expected a pending grant')
    const { finish: back } = await consent(w.server, pending.interact.redirect)
    const query = new URL(back.headers.get('location') ?? '').searchParams
    expect(query.get('hash')).toBe(expectedHash(finish.nonce, pending.interact.finish, query.get('interact_ref') ?? '', authServer))
  })

  it('a grant at an unknown tenant is 404 invalid_request', async () => {
    const e = await rejection(
      w.client.grant.request(
        { url: `${w.server.url}11111111-2222-4333-8444-555555555555` },
        { access_token: { access: [{ type: 'quote', actions: ['create'] }] } },
      ),
    )
    expect({ status: e.status, code: e.code }).toEqual({ status: 404, code: 'invalid_request' })
  })

  it('is created, serves an interactive grant through its identity provider, introspects as the backend asks, and once deleted its tokens are inactive', async () => {
    const created = await backend('POST', '/tenant', {
      id: TENANT,
      apiSecret: 'tenant-api-secret-0123456789abcdef',
      idpConsentUrl: TENANT_IDP,
      idpSecret: TENANT_IDP_SECRET,
    })
    expect(created.status).toBe(204)
    const authServer = `${w.server.url}${TENANT}`
    const finish = finishParams()
    const pending = await w.client.grant.request(
      { url: authServer },
      { access_token: { access: [outgoingAccess(ALICE)] }, interact: { start: ['redirect'], finish } },
    )
    if (!isPendingGrant(pending)) throw new Error('expected a pending grant')
    const quoteToken = await issued(authServer, [{ type: 'quote', actions: ['create', 'read'] }])

    const start = await fetch(pending.interact.redirect, { redirect: 'manual' })
    expect(start.status).toBe(302)
    const idp = new URL(start.headers.get('location') ?? '')
    expect(idp.origin + idp.pathname).toBe(TENANT_IDP)
    expect([...idp.searchParams.keys()].sort()).toEqual(['clientName', 'clientUri', 'interactId', 'nonce'])
    const [interactId, nonce] = [idp.searchParams.get('interactId') ?? '', idp.searchParams.get('nonce') ?? '']
    const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
    // The operator's identity provider may not see another tenant's grant.
    expect((await fetch(`${w.server.url}grant/${interactId}/${nonce}`, { headers: { 'x-idp-secret': IDP_SECRET } })).status).toBe(401)
    expect((await fetch(`${w.server.url}grant/${interactId}/${nonce}`, { headers: { 'x-idp-secret': TENANT_IDP_SECRET } })).status).toBe(200)
    const chosen = await fetch(`${w.server.url}grant/${interactId}/${nonce}/accept`, {
      method: 'POST',
      headers: { 'x-idp-secret': TENANT_IDP_SECRET },
    })
    expect(chosen.status).toBe(202)
    const back = await fetch(`${w.server.url}interact/${interactId}/${nonce}/finish`, { redirect: 'manual', headers: { cookie } })
    expect(back.status).toBe(302)
    const query = new URL(back.headers.get('location') ?? '').searchParams
    const interactRef = query.get('interact_ref') ?? ''
    expect(query.get('hash')).toBe(expectedHash(finish.nonce, pending.interact.finish, interactRef, authServer))

    await sleep((pending.continue.wait ?? 0) * 1000)
    const grant = await w.client.grant.continue(
      { url: pending.continue.uri, accessToken: pending.continue.access_token.value },
      { interact_ref: interactRef },
    )
    if (!isFinalizedGrant(grant) || !grant.access_token) throw new Error('expected an issued grant')
    const token = grant.access_token
    // As the backend introspects: a quote on the wallet address (identifier sent, ignored), then the outgoing-payment
    // grant check (no identifier), each answered with exactly one item, the limits included.
    const quote = checkedAsTheBackend(await introspectAsTheBackend(introspection, quoteToken.value, 'quote', 'create', ALICE))
    expect(quote).toMatchObject({
      active: true,
      access: [{ type: 'quote', actions: ['create', 'read'] }],
      client: { walletAddress: w.walletAddress },
    })
    const outgoing = checkedAsTheBackend(await introspectAsTheBackend(introspection, token.value, 'outgoing-payment', 'create'))
    expect(outgoing).toMatchObject({ active: true, access: [outgoingAccess(ALICE)] })
    expect(outgoing.access).toHaveLength(1)

    expect((await backend('DELETE', `/tenant/${TENANT}`, { deletedAt: new Date() })).status).toBe(204)
    for (const [t, type, identifier] of [
      [quoteToken.value, 'quote', ALICE],
      [token.value, 'outgoing-payment', undefined],
    ] as const) {
      expect(checkedAsTheBackend(await introspectAsTheBackend(introspection, t, type, 'create', identifier))).toEqual({ active: false })
    }
    const rotation = await rejection(w.client.token.rotate({ url: token.manage, accessToken: token.value }))
    expect(rotation.status).toBe(404)
    const again = await rejection(w.client.grant.request({ url: authServer }, { access_token: { access: [{ type: 'quote', actions: ['create'] }] } }))
    expect({ status: again.status, code: again.code }).toEqual({ status: 404, code: 'invalid_request' })
  })
})
