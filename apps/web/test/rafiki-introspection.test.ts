// Introspection as Rafiki's backend calls it (docs/protocol.md §2.6), over HTTP against the production build: the
// listener with INTROSPECTION_PORT_AUTH=none gets the backend's requests replayed as its token-introspection client
// sends them (axios: POST of JSON to the URL as configured, no credentials, one item of one action, the wallet address
// as `identifier` where the backend has one), for tokens the real Open Payments client obtained. Every answer is
// checked against token-introspection.yaml. The public POST /introspect keeps its secret; GET /healthz answers on the
// listener; Rafiki's settings that do nothing here are named in one line at start.
import { isFinalizedGrant, type AccessItem } from '@interledger/open-payments'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, INTROSPECTION_SECRET } from '@gnap/test-support'
import { approvedOutgoingGrant, outgoingAccess, startWorld, type World } from './support/world'
import { signedFetch } from './support/raw-http'
import { checkedAsTheBackend, introspectAsTheBackend as asTheBackend } from './support/rafiki-backend'

const OWNER = 'https://wallet.example/alice'
const COOKIE_KEY = 'rafiki-cookie-key-never-to-be-logged'

let w: World
let listener: string
const tokens = { incoming: '', quote: '', outgoing: '' }

/** The token of a grant the SDK client obtained without interaction. */
async function issued(access: AccessItem[]): Promise<string> {
  const grant = await w.client.grant.request({ url: w.server.url }, { access_token: { access } })
  if (!isFinalizedGrant(grant) || !grant.access_token) throw new Error('expected an issued grant')
  return grant.access_token.value
}

beforeAll(async () => {
  const port = await freePort()
  listener = `http://127.0.0.1:${port}`
  // As Rafiki's Helm chart writes its auth service's environment, plus the one setting the backend needs here.
  w = await startWorld({
    INTROSPECTION_PORT: String(port),
    INTROSPECTION_PORT_AUTH: 'none',
    REDIS_URL: 'redis://:redis-password@127.0.0.1:6379',
    COOKIE_KEY,
    INTERACTION_PORT: '3009',
  })
  tokens.incoming = await issued([{ type: 'incoming-payment', actions: ['create', 'read', 'list', 'complete'], identifier: OWNER }])
  tokens.quote = await issued([{ type: 'quote', actions: ['create', 'read'] }])
  tokens.outgoing = (await approvedOutgoingGrant(w, OWNER)).token.value
}, 90_000)

afterAll(async () => {
  await w?.stop()
})

describe('the listener without credentials (INTROSPECTION_PORT_AUTH=none)', () => {
  it('answers a quote asked about with identifier: the granted quote item, no identifier, the client as an object', async () => {
    const answer = checkedAsTheBackend(await asTheBackend(listener, tokens.quote, 'quote', 'create', OWNER))
    expect(answer).toMatchObject({
      active: true,
      access: [{ type: 'quote', actions: ['create', 'read'] }],
      client: { walletAddress: w.walletAddress },
    })
    expect(answer.access).toHaveLength(1)
  })

  it("answers the outgoing-payment grant check (no identifier) with exactly one item and the grant's limits", async () => {
    const grants = new Set<string>()
    for (const identifier of [undefined, OWNER]) {
      const answer = checkedAsTheBackend(await asTheBackend(listener, tokens.outgoing, 'outgoing-payment', 'create', identifier))
      expect(answer.active).toBe(true)
      expect(answer.access).toEqual([outgoingAccess(OWNER)])
      grants.add(answer.grant)
    }
    expect(grants.size).toBe(1)
  })

  it('answers incoming-payment actions one at a time, and an item the grant lacks with an empty list', async () => {
    for (const action of ['create', 'read', 'list', 'complete']) {
      const answer = checkedAsTheBackend(await asTheBackend(listener, tokens.incoming, 'incoming-payment', action, OWNER))
      expect(answer.access).toHaveLength(1)
    }
    // What the backend answers 403 "Insufficient Grant".
    const none = checkedAsTheBackend(await asTheBackend(listener, tokens.incoming, 'outgoing-payment', 'create', OWNER))
    expect(none).toMatchObject({ active: true, access: [] })
  })

  it('answers an unknown token inactive, and ignores a wrong secret rather than counting it', async () => {
    expect(checkedAsTheBackend(await asTheBackend(listener, 'NO-SUCH-TOKEN-0123456789', 'quote', 'create', OWNER))).toEqual({ active: false })
    for (let i = 0; i < 12; i++) {
      const res = await fetch(listener, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer wrong' },
        body: JSON.stringify({ access_token: tokens.quote }),
      })
      expect(res.status).toBe(200)
    }
  })

  it('still refuses a body outside the contract with 400 invalid_request', async () => {
    for (const body of [
      { access_token: tokens.quote, access: [{ type: 'quote', actions: ['create'], identifier: 'not a url' }] },
      { access_token: tokens.quote, access: [{ type: 'quote', actions: ['list'] }] },
      { access_token: tokens.quote, extra: 1 },
    ]) {
      const res = await fetch(listener, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      expect(res.status).toBe(400)
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_request')
    }
  })

  it('keeps the public POST /introspect behind its secret: 401 as the backend asks, the same answer with the secret', async () => {
    const url = `${w.server.url}introspect`
    const refused = await asTheBackend(url, tokens.quote, 'quote', 'create', OWNER)
    expect(refused.status).toBe(401)
    expect(refused.body).toMatchObject({ error: { code: 'invalid_client' } })
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${INTROSPECTION_SECRET}` },
      body: JSON.stringify({ access_token: tokens.quote, access: [{ type: 'quote', actions: ['create'], identifier: OWNER }] }),
    })
    expect(await res.json()).toEqual(checkedAsTheBackend(await asTheBackend(listener, tokens.quote, 'quote', 'create', OWNER)))
  })

  it('leaves the grant request strict: a quote with an identifier is refused at POST /', async () => {
    const res = await signedFetch(w.key, {
      method: 'POST',
      url: w.server.url,
      body: { access_token: { access: [{ type: 'quote', actions: ['create'], identifier: OWNER }] }, client: w.walletAddress },
    })
    expect(res.status).toBe(400)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_request')
  })
})

describe('GET /healthz on the listener (what Rafiki’s Helm chart probes)', () => {
  it('answers 200 {"status":"ok"} to GET and HEAD, no-store, and 405 with Allow to other methods', async () => {
    const get = await fetch(`${listener}/healthz`)
    expect(get.status).toBe(200)
    expect(get.headers.get('cache-control')).toBe('no-store')
    expect(await get.json()).toEqual({ status: 'ok' })
    expect((await fetch(`${listener}/healthz`, { method: 'HEAD' })).status).toBe(200)
    const post = await fetch(`${listener}/healthz`, { method: 'POST' })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET, OPTIONS')
  })
})

describe('what the operator is told at start', () => {
  it('one line says the listener asks for no credentials', () => {
    const lines = w.server
      .logs()
      .split('\n')
      .filter((l) => l.includes('introspection listener ready'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('WITHOUT credentials (INTROSPECTION_PORT_AUTH=none)')
    expect(lines[0]).toContain('"level":40')
  })

  it("one line names Rafiki's settings that do nothing here, without their values", () => {
    const lines = w.server
      .logs()
      .split('\n')
      .filter((l) => l.includes("settings of Rafiki's auth service that do nothing here"))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('REDIS_URL')
    expect(lines[0]).toContain('COOKIE_KEY')
    expect(lines[0]).toContain('INTERACTION_PORT')
    expect(w.server.logs()).not.toContain(COOKIE_KEY)
    expect(w.server.logs()).not.toContain('redis-password')
  })
})
