// Rate limits on grant requests over HTTP against `next start`: per client wallet address (default 120
// a minute) and per caller IP (the right-most X-Forwarded-For entry behind TRUST_PROXY), answered 429 request_denied
// with Retry-After, a deviation the contract check allows.
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateClientKey } from '@gnap/domain/testing'
import { IDP_SECRET, INTROSPECTION_SECRET, startServer, type RunningServer } from '@gnap/test-support'
import { atLeastLeftInWindow, startWorld, type World } from './support/world'
import { expectGnapError, expectOk, incomingAccess, rowCounts, signedFetch, signedRequest } from './support/raw-http'

describe('per client (RATE_LIMIT_GRANTS_PER_MINUTE, default 120)', () => {
  let w: World
  beforeAll(async () => {
    w = await startWorld()
  })
  afterAll(async () => {
    await w?.stop()
  })

  const grantRequest = (client = w) =>
    signedFetch(client.key, { method: 'POST', url: w.server.url, body: { access_token: { access: incomingAccess }, client: client.walletAddress } })

  it('answers the 121st grant request of a client within a minute with 429 request_denied and Retry-After, writing nothing', async () => {
    await atLeastLeftInWindow(30)
    for (let i = 0; i < 120; i++) await expectOk('POST', w.server.url, await grantRequest())
    const before = rowCounts(w.server.dbFile)
    const res = await grantRequest()
    const description = await expectGnapError('POST', w.server.url, res, 429, 'request_denied')
    expect(description).toMatch(/too many grant requests/)
    const retryAfter = Number(res.headers.get('retry-after'))
    expect(Number.isInteger(retryAfter)).toBe(true)
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(rowCounts(w.server.dbFile)).toEqual(before)
  }, 60_000)

  it('keeps other clients apart', async () => {
    const other = await w.newClient('other')
    await expectOk(
      'POST',
      w.server.url,
      await signedFetch(other.key, {
        method: 'POST',
        url: w.server.url,
        body: { access_token: { access: incomingAccess }, client: other.walletAddress },
      }),
    )
  })

  it('does not count requests whose signature fails: nobody spends another client’s allowance', async () => {
    const victim = await w.newClient('victim')
    const impostor = await w.newClient('impostor')
    for (let i = 0; i < 130; i++) {
      const forged = await signedFetch(impostor.key, {
        method: 'POST',
        url: w.server.url,
        body: { access_token: { access: incomingAccess }, client: victim.walletAddress },
      })
      expect([400, 401]).toContain(forged.status)
    }
    await expectOk(
      'POST',
      w.server.url,
      await signedFetch(victim.key, {
        method: 'POST',
        url: w.server.url,
        body: { access_token: { access: incomingAccess }, client: victim.walletAddress },
      }),
    )
  }, 60_000)

  it('every answer met the contract, with the 429 as an allowed deviation', () => {
    expect(w.spec.failures).toEqual([])
  })
})

describe('per IP (RATE_LIMIT_GRANTS_PER_MINUTE_PER_IP)', () => {
  let trusted: RunningServer
  let untrusted: RunningServer
  beforeAll(async () => {
    ;[trusted, untrusted] = await Promise.all([
      startServer({ TRUST_PROXY: 'true', RATE_LIMIT_GRANTS_PER_MINUTE_PER_IP: '3' }),
      startServer({ RATE_LIMIT_GRANTS_PER_MINUTE_PER_IP: '3' }),
    ])
  })
  afterAll(async () => {
    await Promise.all([trusted?.stop(), untrusted?.stop()])
  })

  // Any attempt counts, before its body is even read: an unparsable one here.
  const attempt = (server: RunningServer, ip: string) =>
    fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': ip }, body: '{' })

  it('with TRUST_PROXY keys on the right-most X-Forwarded-For entry: a forged left-most entry cannot evade the limit', async () => {
    await atLeastLeftInWindow(15)
    // The proxy appends the address it saw (203.0.113.7); the caller wrote whatever stands to its left.
    for (let i = 0; i < 3; i++) expect((await attempt(trusted, `10.9.9.${i}, 203.0.113.7`)).status).toBe(400)
    const limited = await attempt(trusted, '1.2.3.4, 203.0.113.7')
    await expectGnapError('POST', trusted.url, limited, 429, 'request_denied')
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect((await attempt(trusted, '198.51.100.9')).status).toBe(400)
  })

  it('a forged left-most entry cannot spend another address’s allowance', async () => {
    await atLeastLeftInWindow(15)
    for (let i = 0; i < 5; i++) expect((await attempt(trusted, `198.51.100.20, 203.0.113.${50 + i}`)).status).toBe(400)
    // The victim's own requests, as the proxy forwards them, still pass.
    for (let i = 0; i < 3; i++) expect((await attempt(trusted, '198.51.100.20')).status).toBe(400)
  })

  it('refuses an address over its limit before any outbound fetch of the client it names', async () => {
    await atLeastLeftInWindow(15)
    let connections = 0
    const listener = createServer((_req, res) => res.writeHead(404).end())
    listener.on('connection', () => connections++)
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()))
    try {
      const { port } = listener.address() as AddressInfo
      const key = generateClientKey('key-1')
      // A grant request naming a wallet address on the counting listener (loopback is allowed in the tests' settings).
      const grant = async (ip: string) => {
        const init = await signedRequest(key, {
          method: 'POST',
          url: trusted.url,
          body: { access_token: { access: incomingAccess }, client: `http://127.0.0.1:${port}/app` },
        })
        return fetch(trusted.url, { ...init, headers: { ...(init.headers as Record<string, string>), 'x-forwarded-for': ip } })
      }
      for (let i = 0; i < 3; i++) expect((await attempt(trusted, '192.0.2.77')).status).toBe(400)
      await expectGnapError('POST', trusted.url, await grant('192.0.2.77'), 429, 'request_denied')
      expect(connections).toBe(0)
      // The same request from an address with allowance left does fetch: the counter would have seen it.
      await expectGnapError('POST', trusted.url, await grant('192.0.2.78'), 400, 'invalid_client')
      expect(connections).toBeGreaterThanOrEqual(1)
    } finally {
      listener.closeAllConnections()
      await new Promise<void>((resolve) => listener.close(() => resolve()))
    }
  })

  it('without TRUST_PROXY the address is unknown: X-Forwarded-For is ignored and no per-IP limit applies', async () => {
    await atLeastLeftInWindow(15)
    // One shared counter would let any caller exhaust everyone's allowance; the per-client limit still applies.
    for (let i = 0; i < 6; i++) expect((await attempt(untrusted, `192.0.2.${i % 2}`)).status).toBe(400)
  })
})

describe('directed identities: each address a quarter of their shared allowance (docs/protocol.md §4.5)', () => {
  let server: RunningServer
  beforeAll(async () => {
    // Shared allowance 8, so 2 a minute for one address; no TRUST_PROXY: the socket's address counts.
    server = await startServer({ RATE_LIMIT_GRANTS_PER_MINUTE_PER_IP: '8' })
  })
  afterAll(async () => {
    await server?.stop()
  })

  /** A {jwk} grant request under a new key, over its own connection from `localAddress` (any of 127.0.0.0/8 reaches the server). */
  const directedGrant = async (localAddress: string, n: number): Promise<Response> => {
    const key = generateClientKey(`di-${n}`)
    const init = await signedRequest(key, {
      method: 'POST',
      url: server.url,
      body: { access_token: { access: incomingAccess }, client: { jwk: key.jwk } },
    })
    const { port } = new URL(server.url)
    return new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, method: 'POST', path: '/', headers: init.headers as Record<string, string>, agent: false, localAddress },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => {
            const headers = Object.entries(res.headers).flatMap(([name, value]) =>
              typeof value === 'string' ? [[name, value] as [string, string]] : [],
            )
            resolve(new Response(Buffer.concat(chunks).toString('utf8'), { status: res.statusCode ?? 0, headers }))
          })
          res.on('error', reject)
        },
      )
      req.on('error', reject)
      req.end(init.body as string)
    })
  }

  it('refuses the third {jwk} grant request of one address within a minute with 429 and Retry-After, and grants another address', async () => {
    await atLeastLeftInWindow(15)
    for (let n = 0; n < 2; n++) await expectOk('POST', server.url, await directedGrant('127.0.0.7', n))
    const limited = await directedGrant('127.0.0.7', 2)
    expect(await expectGnapError('POST', server.url, limited, 429, 'request_denied')).toMatch(/too many grant requests/)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    await expectOk('POST', server.url, await directedGrant('127.0.0.8', 3))
  })
})

describe('failed shared secrets: the introspection bearer and x-idp-secret (docs/protocol.md §2.6, §2.9, §2.10)', () => {
  let trusted: RunningServer
  beforeAll(async () => {
    trusted = await startServer({ TRUST_PROXY: 'true' })
  })
  afterAll(async () => {
    await trusted?.stop()
  })

  const introspect = (secret: string, ip: string) =>
    fetch(`${trusted.url}introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}`, 'x-forwarded-for': ip },
      body: JSON.stringify({ access_token: 'no-such-token' }),
    })
  const idpUrl = () => `${trusted.url}grant/00000000-0000-4000-8000-000000000000/0123456789ABCDEF`
  const lookup = (secret: string, ip: string) => fetch(idpUrl(), { headers: { 'x-idp-secret': secret, 'x-forwarded-for': ip } })
  const choose = (secret: string, ip: string) =>
    fetch(`${idpUrl()}/accept`, { method: 'POST', headers: { 'x-idp-secret': secret, 'x-forwarded-for': ip } })

  it('answers 429 with Retry-After to an address past 10 wrong introspection secrets, and 200 to the right one from it and from another', async () => {
    await atLeastLeftInWindow(30)
    for (let i = 0; i < 10; i++)
      await expectGnapError('POST', `${trusted.url}introspect`, await introspect('wrong-secret', '203.0.113.20'), 401, 'invalid_client')
    for (let i = 0; i < 100; i++) expect((await introspect('wrong-secret', '203.0.113.20')).status).toBe(429)
    const limited = await introspect('wrong-secret', '203.0.113.20')
    await expectGnapError('POST', `${trusted.url}introspect`, limited, 429, 'request_denied')
    const retryAfter = Number(limited.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    for (const ip of ['203.0.113.20', '198.51.100.20']) {
      expect(await expectOk('POST', `${trusted.url}introspect`, await introspect(INTROSPECTION_SECRET, ip))).toEqual({ active: false })
    }
    await expectGnapError('POST', `${trusted.url}introspect`, await introspect('wrong-secret', '198.51.100.20'), 401, 'invalid_client')
  })

  it('answers 429 with Retry-After to an address past 10 wrong x-idp-secrets, lookups and choices alike; the right one passes from it and from another', async () => {
    await atLeastLeftInWindow(30)
    for (let i = 0; i < 5; i++) {
      await expectGnapError('GET', idpUrl(), await lookup('wrong-secret', '203.0.113.21'), 401, 'invalid_request')
      await expectGnapError('POST', `${idpUrl()}/accept`, await choose('wrong-secret', '203.0.113.21'), 401, 'invalid_interaction')
    }
    for (let i = 0; i < 100; i++) expect((await lookup('wrong-secret', '203.0.113.21')).status).toBe(429)
    const limited = await lookup('wrong-secret', '203.0.113.21')
    await expectGnapError('GET', idpUrl(), limited, 429, 'request_denied')
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    await expectGnapError('POST', `${idpUrl()}/accept`, await choose('wrong-secret', '203.0.113.21'), 429, 'request_denied')
    // The right secret, from the guessing address and from elsewhere, gets past the secret check to the interaction lookup.
    for (const ip of ['203.0.113.21', '198.51.100.21']) {
      await expectGnapError('GET', idpUrl(), await lookup(IDP_SECRET, ip), 404, 'unknown_interaction')
      await expectGnapError('POST', `${idpUrl()}/accept`, await choose(IDP_SECRET, ip), 404, 'unknown_interaction')
    }
  })
})
