// Introspection as resource servers call it (docs/protocol.md §2.6), over raw HTTP against the production build:
// POST /introspect through Next, and POST / of the introspection listener (INTROSPECTION_PORT). One suite runs against
// both, and every request of a table is sent to both and must get the same answer: status, the headers a client acts
// on, and the body byte for byte.
import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, INTROSPECTION_SECRET, migrateDatabase, startInstance, startServer, testServerEnv, type RunningServer } from '@gnap/test-support'
import { atLeastLeftInWindow, startWorld, type World } from './support/world'
import { incomingAccess, issuedGrant, signedFetch } from './support/raw-http'
import { assertMatchesSpec } from '@gnap/domain/testing'

const BEARER = `Bearer ${INTROSPECTION_SECRET}`
const LIMIT_PER_IP = 10
const MAX_BODY_BYTES = 64 * 1024

let w: World
let listenerPort: number
let token: string

beforeAll(async () => {
  listenerPort = await freePort()
  // TRUST_PROXY and INTROSPECTION_TRUST_PROXY: each test's wrong secrets go to an address of its own (X-Forwarded-For),
  // so no test fills another's counter.
  w = await startWorld({ INTROSPECTION_PORT: String(listenerPort), TRUST_PROXY: 'true', INTROSPECTION_TRUST_PROXY: 'true' })
  token = (await issuedGrant(w)).token.value
}, 90_000)

afterAll(async () => {
  await w?.stop()
})

interface Sent {
  method?: string
  path?: string
  headers?: Record<string, string>
  body?: string | Buffer
  /** Send the body in chunks without Content-Length. */
  chunked?: boolean
  /** The address the connection comes from (any of 127.0.0.0/8 reaches the server on 127.0.0.1). */
  localAddress?: string
}

interface Got {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

/** One request over its own connection, exactly as given (node:http, so HEAD, chunked bodies and any method go out). */
function send(port: number, { method = 'POST', path = '/', headers = {}, body, chunked = false, localAddress }: Sent): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false, localAddress }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    if (body !== undefined && chunked) {
      const bytes = Buffer.from(body)
      for (let i = 0; i < bytes.length; i += 16 * 1024) req.write(bytes.subarray(i, i + 16 * 1024))
      req.end()
    } else req.end(body)
  })
}

/** The two ways in: Next's route (its path under the app's port) and the listener (its own port, path `/`). */
const endpoints = [
  { name: 'the route handler (POST /introspect)', port: () => w.server.port, path: '/introspect' },
  { name: 'the listener (POST / on INTROSPECTION_PORT)', port: () => listenerPort, path: '/' },
]

const json = (body: unknown, extra: Record<string, string> = {}): Sent => ({
  headers: { 'content-type': 'application/json', authorization: BEARER, ...extra },
  body: JSON.stringify(body),
})

let nextIp = 1
/** An address of its own for one test's X-Forwarded-For (TRUST_PROXY is on). */
const freshIp = () => `198.51.100.${nextIp++}`

/** The headers a client acts on; the CSP's per-answer nonce written as `N`. */
function headersThatMatter(h: http.IncomingHttpHeaders): Record<string, string | undefined> {
  const pick = (name: string) => (Array.isArray(h[name]) ? (h[name] as string[]).join(', ') : (h[name] as string | undefined))
  return {
    'content-type': pick('content-type'),
    'cache-control': pick('cache-control'),
    'www-authenticate': pick('www-authenticate'),
    allow: pick('allow'),
    'content-security-policy': pick('content-security-policy')?.replace(/'nonce-[^']*'/, "'nonce-N'"),
    'referrer-policy': pick('referrer-policy'),
    'x-content-type-options': pick('x-content-type-options'),
    'x-frame-options': pick('x-frame-options'),
    'strict-transport-security': pick('strict-transport-security'),
  }
}

describe.each(endpoints)('introspection through $name', ({ port, path }) => {
  const post = (sent: Sent) => send(port(), { path, ...sent })
  const errorCode = (got: Got) => (JSON.parse(got.body) as { error: { code: string } }).error.code

  it('answers a live token with the right secret', async () => {
    const got = await post(json({ access_token: token, access: incomingAccess }))
    expect(got.status).toBe(200)
    expect(got.headers['content-type']).toBe('application/json')
    expect(got.headers['cache-control']).toBe('no-store')
    expect(JSON.parse(got.body)).toMatchObject({ active: true, access: incomingAccess, client: { walletAddress: w.walletAddress } })
  })

  it('answers every item of the token without access, and only the matched ones with it (token-introspection.yaml)', async () => {
    const items = [
      { type: 'incoming-payment', actions: ['create', 'read', 'list'], identifier: 'https://wallet.example/alice' },
      { type: 'quote', actions: ['create', 'read'] },
    ]
    const res = await signedFetch(w.key, { method: 'POST', url: w.server.url, body: { access_token: { access: items }, client: w.walletAddress } })
    const value = ((await res.json()) as { access_token: { value: string } }).access_token.value
    const all = await post(json({ access_token: value }))
    expect(all.status).toBe(200)
    expect(JSON.parse(all.body)).toMatchObject({ active: true, access: items, client: { walletAddress: w.walletAddress } })
    assertMatchesSpec('token-introspection', '/', 'POST', 200, JSON.parse(all.body))
    const some = await post(json({ access_token: value, access: [{ type: 'quote', actions: ['read'] }] }))
    expect(JSON.parse(some.body)).toMatchObject({ active: true, access: [items[1]] })
    assertMatchesSpec('token-introspection', '/', 'POST', 200, JSON.parse(some.body))
    // The first answer did not change what the cache holds for the grant.
    expect(JSON.parse((await post(json({ access_token: value }))).body)).toEqual(JSON.parse(all.body))
  })

  it('refuses a missing or wrong secret with 401 invalid_client', async () => {
    const ip = freshIp()
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${INTROSPECTION_SECRET}x`, `Basic ${INTROSPECTION_SECRET}`, 'Bearer']) {
      const got = await post({
        headers: { 'content-type': 'application/json', 'x-forwarded-for': ip, ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ access_token: token }),
      })
      expect(got.status).toBe(401)
      expect(errorCode(got)).toBe('invalid_client')
      expect(got.body).not.toContain(INTROSPECTION_SECRET)
    }
  })

  it(`refuses an address's wrong secrets with 429 and Retry-After past ${LIMIT_PER_IP}, and still answers its right one`, async () => {
    await atLeastLeftInWindow(30)
    const ip = freshIp()
    for (let i = 0; i < LIMIT_PER_IP; i++)
      expect((await post(json({ access_token: token }, { authorization: 'Bearer wrong', 'x-forwarded-for': ip }))).status).toBe(401)
    for (let i = 0; i < 100; i++)
      expect((await post(json({ access_token: token }, { authorization: 'Bearer wrong', 'x-forwarded-for': ip }))).status).toBe(429)
    const got = await post(json({ nothing: 1 }, { authorization: 'Bearer wrong', 'x-forwarded-for': ip }))
    expect(got.status).toBe(429)
    expect(errorCode(got)).toBe('request_denied')
    expect(Number(got.headers['retry-after'])).toBeGreaterThan(0)
    // The right secret from that address and from another is answered as ever.
    for (const from of [ip, freshIp()]) {
      const answered = await post(json({ access_token: token }, { 'x-forwarded-for': from }))
      expect(answered.status).toBe(200)
      expect(JSON.parse(answered.body)).toMatchObject({ active: true })
    }
  })

  it('refuses a body over the limit with 413, declared or sent in chunks', async () => {
    const big = JSON.stringify({ access_token: 'x'.repeat(MAX_BODY_BYTES) })
    for (const chunked of [false, true]) {
      const got = await post({ headers: { 'content-type': 'application/json', authorization: BEARER }, body: big, chunked })
      expect(got.status).toBe(413)
      expect(errorCode(got)).toBe('invalid_request')
    }
  })

  it('refuses what is not a JSON body of the contract with 400 invalid_request', async () => {
    const bearer = { authorization: BEARER }
    for (const sent of [
      { headers: { ...bearer, 'content-type': 'application/json' }, body: '{"access_token":' },
      { headers: { ...bearer, 'content-type': 'text/plain' }, body: JSON.stringify({ access_token: token }) },
      { headers: { ...bearer, 'content-type': 'application/json' }, body: Buffer.from([0x7b, 0xff, 0x7d]) },
      { headers: { ...bearer, 'content-type': 'application/json' }, body: '['.repeat(40) + ']'.repeat(40) },
      { headers: bearer },
      json({ access_token: 42 }),
      json({ access_token: token, extra: 1 }),
    ]) {
      const got = await post(sent)
      expect(got.status, got.body).toBe(400)
      expect(errorCode(got)).toBe('invalid_request')
    }
  })

  it('answers other methods 405 with Allow, and OPTIONS 204', async () => {
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      const got = await send(port(), { method, path })
      expect(got.status).toBe(405)
      expect(got.headers.allow).toBe('POST, OPTIONS')
      expect(errorCode(got)).toBe('invalid_request')
    }
    const options = await send(port(), { method: 'OPTIONS', path })
    expect(options.status).toBe(204)
    expect(options.headers.allow).toBe('POST, OPTIONS')
  })
})

describe('the route handler and the listener answer alike', () => {
  // Each row is sent to both; the rows with wrong secrets use an address of their own per row.
  const rows: [string, () => Sent][] = [
    ['a live token', () => json({ access_token: token })],
    ['a live token, asked about its access', () => json({ access_token: token, access: [...incomingAccess, { type: 'quote', actions: ['read'] }] })],
    ['an unknown token', () => json({ access_token: 'NO-SUCH-TOKEN-0123456789' })],
    ['no secret', () => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify({ access_token: token }) })],
    ['a wrong secret', () => json({ access_token: token }, { authorization: 'Bearer not-the-secret' })],
    [
      'two Authorization lines',
      () => ({
        headers: { 'content-type': 'application/json', authorization: [BEARER, 'Bearer other'] as unknown as string },
        body: '{"access_token":"x"}',
      }),
    ],
    ['not JSON', () => ({ headers: { 'content-type': 'application/json', authorization: BEARER }, body: 'access_token=x' })],
    [
      'another content type',
      () => ({ headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: BEARER }, body: 'access_token=x' }),
    ],
    ['no body', () => ({ headers: { authorization: BEARER } })],
    ['a body of the wrong shape', () => json({ token })],
    ['a body over the limit', () => json({ access_token: 'x'.repeat(MAX_BODY_BYTES) })],
    ['GET', () => ({ method: 'GET' })],
    ['HEAD', () => ({ method: 'HEAD' })],
    ['DELETE', () => ({ method: 'DELETE', headers: { authorization: BEARER } })],
    ['OPTIONS', () => ({ method: 'OPTIONS' })],
  ]

  it.each(rows)('%s', async (_name, request) => {
    const ip = freshIp()
    const sent = request()
    const withIp = { ...sent, headers: { ...sent.headers, 'x-forwarded-for': ip } }
    const [viaNext, viaListener] = [await send(w.server.port, { ...withIp, path: '/introspect' }), await send(listenerPort, { ...withIp, path: '/' })]
    expect({ status: viaListener.status, headers: headersThatMatter(viaListener.headers), body: viaListener.body }).toEqual({
      status: viaNext.status,
      headers: headersThatMatter(viaNext.headers),
      body: viaNext.body,
    })
  })

  it('a caller past its limit of wrong secrets', async () => {
    await atLeastLeftInWindow(15)
    const answers: Got[] = []
    for (const [port, path] of [
      [w.server.port, '/introspect'],
      [listenerPort, '/'],
    ] as const) {
      const ip = freshIp()
      for (let i = 0; i < LIMIT_PER_IP; i++)
        await send(port, { ...json({ access_token: token }, { authorization: 'Bearer wrong', 'x-forwarded-for': ip }), path })
      answers.push(await send(port, { ...json({ access_token: token }, { authorization: 'Bearer wrong', 'x-forwarded-for': ip }), path }))
    }
    const [viaNext, viaListener] = answers as [Got, Got]
    expect(viaNext.status).toBe(429)
    expect({ status: viaListener.status, headers: headersThatMatter(viaListener.headers), body: viaListener.body }).toEqual({
      status: viaNext.status,
      headers: headersThatMatter(viaNext.headers),
      body: viaNext.body,
    })
    // The window's remaining seconds, read a moment apart.
    expect(Math.abs(Number(viaListener.headers['retry-after']) - Number(viaNext.headers['retry-after']))).toBeLessThanOrEqual(1)
  })
})

describe('the wrong-secret limit across instances', () => {
  it('counts a guesser on one database whichever instance and way in it uses, and answers the right secret on all', async () => {
    const otherListener = await freePort()
    // This instance's listener does not trust X-Forwarded-For: its callers are counted by their socket address.
    const other = await startServer({ INTROSPECTION_PORT: String(otherListener), TRUST_PROXY: 'true' }, { dbFile: w.server.dbFile })
    try {
      await atLeastLeftInWindow(15)
      const ip = freshIp()
      const ways = [
        [w.server.port, '/introspect'],
        [listenerPort, '/'],
        [other.port, '/introspect'],
      ] as const
      const wrong = (port: number, path: string) =>
        send(port, { ...json({ access_token: token }, { authorization: 'Bearer wrong', 'x-forwarded-for': ip }), path })
      for (let i = 0; i < LIMIT_PER_IP; i++) {
        const [port, path] = ways[i % ways.length]!
        expect((await wrong(port, path)).status).toBe(401)
      }
      for (const [port, path] of ways) {
        expect((await wrong(port, path)).status).toBe(429)
        expect((await send(port, { ...json({ access_token: token }, { 'x-forwarded-for': ip }), path })).status).toBe(200)
      }
      // TRUST_PROXY alone does not make the introspection port take X-Forwarded-For: the forged address is not the
      // caller there, so its full counter does not apply.
      expect((await wrong(otherListener, '/')).status).toBe(401)
      expect((await send(otherListener, { ...json({ access_token: token }, { 'x-forwarded-for': ip }), path: '/' })).status).toBe(200)
    } finally {
      await other.stop()
    }
  }, 90_000)
})

describe('the wrong-secret limit without a trusted proxy', () => {
  // Without TRUST_PROXY (the default) and INTROSPECTION_TRUST_PROXY the socket address counts, on both ports: a guesser
  // cannot spread its guesses over forged X-Forwarded-For addresses, and nobody else is refused because of it.
  let server: RunningServer
  let privatePort: number
  beforeAll(async () => {
    privatePort = await freePort()
    server = await startServer({ INTROSPECTION_PORT: String(privatePort) })
  }, 90_000)
  afterAll(() => server?.stop())

  const ways = [
    { name: 'the route handler', port: () => server.port, path: '/introspect', guesser: '127.0.0.3', other: '127.0.0.4' },
    { name: 'the listener', port: () => privatePort, path: '/', guesser: '127.0.0.5', other: '127.0.0.6' },
  ]

  it.each(ways)('through $name: 110 wrong secrets from one address, then the right one from it and another answers 200', async (way) => {
    await atLeastLeftInWindow(30)
    const from = (localAddress: string, authorization: string, body: unknown = { access_token: 'no-such-token' }) =>
      send(way.port(), {
        path: way.path,
        localAddress,
        headers: { 'content-type': 'application/json', authorization, 'x-forwarded-for': freshIp() },
        body: JSON.stringify(body),
      })
    const statuses: number[] = []
    for (let i = 0; i < 110; i++) statuses.push((await from(way.guesser, 'Bearer wrong')).status)
    expect(statuses.slice(0, LIMIT_PER_IP)).toEqual(Array(LIMIT_PER_IP).fill(401))
    expect(statuses.slice(LIMIT_PER_IP)).toEqual(Array(110 - LIMIT_PER_IP).fill(429))
    for (const address of [way.guesser, way.other]) {
      const answered = await from(address, BEARER, { access_token: token })
      expect(answered.status).toBe(200)
      // Another server's token: unknown on this one's database.
      expect(JSON.parse(answered.body)).toEqual({ active: false })
    }
    expect((await from(way.guesser, 'Bearer wrong')).status).toBe(429)
    expect((await from(way.other, 'Bearer wrong')).status).toBe(401)
  })
})

describe('the listener alone', () => {
  it('answers any other path 404 with a GNAP error', async () => {
    for (const path of ['/introspect', '/token', '/%2F']) {
      const got = await send(listenerPort, { ...json({ access_token: token }), path })
      expect(got.status).toBe(404)
      expect(JSON.parse(got.body)).toEqual({ error: { code: 'invalid_request', description: 'not found' } })
      expect(got.headers['cache-control']).toBe('no-store')
    }
  })

  it('logs each request as the route handler does, without the secret or the token', () => {
    const lines = w.server
      .logs()
      .split('\n')
      .filter((l) => l.includes('"msg":"request"') && l.includes('"path":"/"'))
    expect(lines.length).toBeGreaterThan(0)
    expect(w.server.logs()).not.toContain(INTROSPECTION_SECRET)
    expect(w.server.logs()).not.toContain(token)
  })
})

/** The TCP ports process `pid` listens on (Linux: its socket inodes in /proc/net/tcp{,6} in state LISTEN). */
function listeningPorts(pid: number): number[] {
  const inodes = new Set(
    fs
      .readdirSync(`/proc/${pid}/fd`)
      .map((fd) => {
        try {
          return /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1]
        } catch {
          return undefined
        }
      })
      .filter((i): i is string => i !== undefined),
  )
  const ports: number[] = []
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/)
      if (f[3] === '0A' && inodes.has(f[9] ?? '')) ports.push(parseInt(f[1]!.split(':')[1]!, 16))
    }
  }
  return ports
}

const refusesConnections = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host, port })
    socket.once('connect', () => (socket.destroy(), resolve(false)))
    socket.once('error', () => resolve(true))
  })

describe('where the listener listens', () => {
  let servers: RunningServer[] = []
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()))
    servers = []
  })

  it('is off unless INTROSPECTION_PORT is set: the server listens on its own port only', async () => {
    const server = await startServer({ INTROSPECTION_HOST: '127.0.0.1' })
    servers.push(server)
    expect(listeningPorts(server.pid)).toEqual([server.port])
    // The route handler serves introspection all the same.
    expect((await send(server.port, { ...json({ access_token: 'x' }), path: '/introspect' })).status).toBe(200)
  }, 90_000)

  it('binds to INTROSPECTION_HOST', async () => {
    const port = await freePort()
    const server = await startServer({ INTROSPECTION_PORT: String(port), INTROSPECTION_HOST: '127.0.0.2' })
    servers.push(server)
    expect(listeningPorts(server.pid).sort()).toEqual([server.port, port].sort())
    expect(await refusesConnections('127.0.0.1', port)).toBe(true)
    const got = await new Promise<number>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.2', port, method: 'POST', path: '/', headers: json({ access_token: 'x' }).headers }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on('error', reject)
      req.end(JSON.stringify({ access_token: 'x' }))
    })
    expect(got).toBe(200)
  }, 90_000)
})

describe('under the launcher', () => {
  it('serves the listener from every worker on one port', async () => {
    const dir = fs.mkdtempSync('/tmp/gnap-listener-')
    const databaseUrl = `file:${dir}/db.sqlite`
    migrateDatabase(databaseUrl)
    const port = await freePort()
    const instance = await startInstance({
      env: testServerEnv({ DATABASE_URL: databaseUrl, INTROSPECTION_PORT: String(port) }),
      workers: 2,
    })
    try {
      const answers = await Promise.all(Array.from({ length: 8 }, () => send(port, json({ access_token: 'NO-SUCH-TOKEN' }))))
      expect(answers.map((a) => [a.status, a.body])).toEqual(Array.from({ length: 8 }, () => [200, '{"active":false}']))
      // Both workers said they were ready: each took its share of the one address.
      expect(instance.logs().match(/introspection listener ready/g)?.length).toBe(2)
    } finally {
      await instance.stop()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
