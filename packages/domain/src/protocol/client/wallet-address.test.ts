import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { GnapError } from '../../kernel/errors'
import { generateClientKey } from '../../testing/client-keys'
import { startWalletAddressServer } from '../../testing/wallet-address-server'
import type { WalletAddressServer } from '../../testing/wallet-address-server'
import { createWalletAddressResolver, isAllowedWalletAddressUrl } from './wallet-address'
import { LOOPBACK_NETWORKS } from '../../kernel/net/outbound-address'

const key1 = generateClientKey('key-1')
const key2 = generateClientKey('key-2')
const KEYS_FAILURE = { code: 'invalid_client', status: 400, message: 'could not fetch client keys' }
const DOCUMENT_FAILURE = { code: 'invalid_client', status: 400, message: 'could not fetch client wallet address' }

async function failure(promise: Promise<unknown>): Promise<GnapError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a failure')
    },
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(GnapError)
  return error as GnapError
}

/** A fetch stub answering every request with `respond()`, recording the calls. */
function stubFetch(respond: (url: string, init: RequestInit | undefined) => Response | Promise<Response>) {
  return vi.fn(async (input: string | URL | Request, init?: RequestInit) => respond(String(input), init))
}

const jwksResponse = (keys: unknown[]) => new Response(JSON.stringify({ keys }), { headers: { 'content-type': 'application/json' } })

describe('isAllowedWalletAddressUrl', () => {
  it.each([
    ['https://wallet.example/alice', false, true],
    ['https://wallet.example/alice', true, true],
    ['http://wallet.example/alice', false, false],
    ['http://wallet.example/alice', true, true],
    ['http://127.0.0.1:3000/alice', false, true],
    ['http://127.9.8.7/alice', false, true],
    ['http://localhost:3000/alice', false, true],
    ['http://[::1]:3000/alice', false, true],
    ['http://10.0.0.1/alice', false, false],
    ['http://localhost.evil.example/alice', false, false],
    ['http://127.0.0.1.evil.example/alice', false, false],
    ['https://user:pass@wallet.example/alice', false, false],
    ['https://wallet.example/alice#frag', false, false],
    ['https://wallet.example/alice#', false, false],
    ['https://wallet.example/alice?x=1', false, false],
    ['ftp://wallet.example/alice', true, false],
    ['file:///etc/passwd', true, false],
    ['/alice', true, false],
    ['not a url', true, false],
  ])('%s (allowHttp %s) → %s', (url, allowHttp, expected) => {
    expect(isAllowedWalletAddressUrl(url, allowHttp)).toBe(expected)
  })
})

describe('createWalletAddressResolver against a loopback wallet address server', () => {
  let server: WalletAddressServer
  beforeAll(async () => {
    server = await startWalletAddressServer()
  })
  afterAll(async () => {
    await server.close()
  })

  it('fetches the JWKS once for many lookups, then again after the TTL', async () => {
    const alice = server.addClient('alice-cache', { keys: [key1.jwk], authServer: 'https://as.example/' })
    let clock = 1_000_000
    const resolver = createWalletAddressResolver({ allowHttp: false, allowedNetworks: LOOPBACK_NETWORKS, now: () => clock })

    for (let i = 0; i < 5; i++) await expect(resolver.getKey(alice, 'key-1')).resolves.toEqual(key1.jwk)
    expect(server.requests.filter((p) => p === '/alice-cache/jwks.json')).toHaveLength(1)

    clock += 60_000
    await expect(resolver.getKey(alice, 'key-1')).resolves.toEqual(key1.jwk)
    expect(server.requests.filter((p) => p === '/alice-cache/jwks.json')).toHaveLength(2)
  })

  it('shares one in-flight fetch between concurrent callers', async () => {
    const alice = server.addClient('alice-concurrent', { keys: [key1.jwk], authServer: 'https://as.example/' })
    const resolver = createWalletAddressResolver({ allowHttp: false, allowedNetworks: LOOPBACK_NETWORKS })
    const results = await Promise.all(Array.from({ length: 10 }, () => resolver.getKey(alice, 'key-1')))
    expect(results.every((k) => k?.x === key1.jwk.x)).toBe(true)
    expect(server.requests.filter((p) => p === '/alice-concurrent/jwks.json')).toHaveLength(1)
  })

  it('refetches on an unknown kid, at most once per 5 seconds', async () => {
    const name = 'alice-rotate'
    const alice = server.addClient(name, { keys: [key1.jwk], authServer: 'https://as.example/' })
    const fetches = () => server.requests.filter((p) => p === `/${name}/jwks.json`).length
    let clock = 1_000_000
    const resolver = createWalletAddressResolver({ allowHttp: false, allowedNetworks: LOOPBACK_NETWORKS, now: () => clock })

    await expect(resolver.getKey(alice, 'key-1')).resolves.toEqual(key1.jwk)
    server.setKeys(name, [key1.jwk, key2.jwk])

    clock += 1_000
    await expect(resolver.getKey(alice, 'key-2')).resolves.toBeNull()
    expect(fetches()).toBe(1)

    clock += 5_000
    await expect(resolver.getKey(alice, 'key-2')).resolves.toEqual(key2.jwk)
    expect(fetches()).toBe(2)

    clock += 1_000
    await expect(resolver.getKey(alice, 'key-3')).resolves.toBeNull()
    await expect(resolver.getKey(alice, 'key-1')).resolves.toEqual(key1.jwk)
    expect(fetches()).toBe(2)
  })

  it('serves and caches the wallet address document', async () => {
    const alice = server.addClient('alice-doc', {
      publicName: 'Alice',
      keys: [key1.jwk],
      authServer: 'https://as.example/',
    })
    const resolver = createWalletAddressResolver({ allowHttp: false, allowedNetworks: LOOPBACK_NETWORKS })
    const doc = await resolver.getWalletAddress(alice)
    expect(doc).toEqual({
      id: alice,
      publicName: 'Alice',
      assetCode: 'USD',
      assetScale: 2,
      authServer: 'https://as.example/',
      resourceServer: server.url,
    })
    await resolver.getWalletAddress(alice)
    expect(server.requests.filter((p) => p === '/alice-doc')).toHaveLength(1)
  })

  it('fails with 400 for an unknown wallet address', async () => {
    const resolver = createWalletAddressResolver({ allowHttp: false, allowedNetworks: LOOPBACK_NETWORKS })
    expect(await failure(resolver.getKey(`${server.url}/nobody`, 'key-1'))).toMatchObject(KEYS_FAILURE)
    expect(await failure(resolver.getWalletAddress(`${server.url}/nobody`))).toMatchObject(DOCUMENT_FAILURE)
  })
})

describe('createWalletAddressResolver guards', () => {
  it('sends Accept: application/json, refuses redirects and asks fetch not to follow them', async () => {
    const fetch = stubFetch(() => new Response(null, { status: 302, headers: { location: 'https://internal/' } }))
    const resolver = createWalletAddressResolver({ fetch, allowHttp: false })
    expect(await failure(resolver.getKey('https://wallet.example/alice', 'key-1'))).toMatchObject(KEYS_FAILURE)
    expect(await failure(resolver.getWalletAddress('https://wallet.example/alice'))).toMatchObject(DOCUMENT_FAILURE)
    expect(fetch.mock.calls.map(([url]) => url)).toEqual(['https://wallet.example/alice/jwks.json', 'https://wallet.example/alice'])
    for (const [, init] of fetch.mock.calls) {
      expect(init).toMatchObject({ method: 'GET', redirect: 'manual', headers: { Accept: 'application/json' } })
      expect(init?.signal).toBeInstanceOf(AbortSignal)
    }
  })

  it('refuses a response that followed a redirect anyway', async () => {
    const response = jwksResponse([key1.jwk])
    Object.defineProperty(response, 'redirected', { value: true })
    const resolver = createWalletAddressResolver({ fetch: stubFetch(() => response), allowHttp: false })
    expect(await failure(resolver.getKey('https://wallet.example/alice', 'key-1'))).toMatchObject(KEYS_FAILURE)
  })

  it('refuses an oversize body, streamed without Content-Length', async () => {
    const chunk = new TextEncoder().encode(' '.repeat(1024))
    let sent = 0
    const fetch = stubFetch(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              sent += 1
              if (sent > 1000) controller.close()
              else controller.enqueue(chunk)
            },
          }),
        ),
    )
    const resolver = createWalletAddressResolver({ fetch, allowHttp: false, maxBytes: 4096 })
    expect(await failure(resolver.getKey('https://wallet.example/alice', 'key-1'))).toMatchObject(KEYS_FAILURE)
    expect(sent).toBeLessThan(10)
  })

  it('refuses an oversize body announced by Content-Length', async () => {
    const body = JSON.stringify({ keys: [key1.jwk], padding: 'x'.repeat(200) })
    const fetch = stubFetch(() => new Response(body, { headers: { 'content-length': String(body.length) } }))
    const resolver = createWalletAddressResolver({ fetch, allowHttp: false, maxBytes: 100 })
    expect(await failure(resolver.getKey('https://wallet.example/alice', 'key-1'))).toMatchObject(KEYS_FAILURE)
  })

  it('accepts a body of exactly maxBytes', async () => {
    const body = JSON.stringify({ keys: [key1.jwk] })
    const fetch = stubFetch(() => new Response(body))
    const resolver = createWalletAddressResolver({ fetch, allowHttp: false, maxBytes: Buffer.byteLength(body) })
    await expect(resolver.getKey('https://wallet.example/alice', 'key-1')).resolves.toEqual(key1.jwk)
  })

  it('times out a slow server', async () => {
    const fetch = stubFetch(
      (_, init) =>
        new Promise<Response>((_resolve, reject) => {
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason))
        }),
    )
    const resolver = createWalletAddressResolver({ fetch, allowHttp: false, timeoutMs: 50 })
    expect(await failure(resolver.getKey('https://wallet.example/alice', 'key-1'))).toMatchObject(KEYS_FAILURE)
  })

  it('refuses plain http to a non-loopback host without fetching, unless allowed', async () => {
    const fetch = stubFetch(() => jwksResponse([key1.jwk]))
    const strict = createWalletAddressResolver({ fetch, allowHttp: false })
    expect(await failure(strict.getKey('http://wallet.example/alice', 'key-1'))).toMatchObject(KEYS_FAILURE)
    expect(await failure(strict.getWalletAddress('http://wallet.example/alice'))).toMatchObject(DOCUMENT_FAILURE)
    expect(fetch).not.toHaveBeenCalled()

    const lax = createWalletAddressResolver({ fetch, allowHttp: true })
    await expect(lax.getKey('http://wallet.example/alice', 'key-1')).resolves.toEqual(key1.jwk)
    expect(fetch).toHaveBeenCalledTimes(1)
  })

  it('only ever fetches https, loopback http or allowed http', async () => {
    const fetch = stubFetch(() => jwksResponse([key1.jwk]))
    const resolver = createWalletAddressResolver({ fetch, allowHttp: false })
    for (const url of ['ftp://wallet.example/alice', 'https://u:p@wallet.example/alice', 'wallet.example/alice']) {
      expect(await failure(resolver.getKey(url, 'key-1'))).toMatchObject(KEYS_FAILURE)
    }
    expect(fetch).not.toHaveBeenCalled()
    await expect(resolver.getKey('https://wallet.example/alice', 'key-1')).resolves.toEqual(key1.jwk)
    await expect(resolver.getKey('http://127.0.0.1:4000/bob', 'key-1')).resolves.toEqual(key1.jwk)
    expect(fetch.mock.calls.map(([url]) => url)).toEqual(['https://wallet.example/alice/jwks.json', 'http://127.0.0.1:4000/bob/jwks.json'])
  })

  it('keeps only Ed25519 keys with a kid, and only their public members', async () => {
    const fetch = stubFetch(() =>
      jwksResponse([
        { kid: 'ec', kty: 'EC', crv: 'P-256', x: 'abc', y: 'def' },
        { kty: 'OKP', crv: 'Ed25519', x: key1.jwk.x },
        { kid: 'x25519', kty: 'OKP', crv: 'X25519', x: key1.jwk.x },
        { kid: 'rs', alg: 'RS256', kty: 'OKP', crv: 'Ed25519', x: key1.jwk.x },
        { ...key2.jwk, d: 'private-part' },
      ]),
    )
    const resolver = createWalletAddressResolver({ fetch, allowHttp: false })
    for (const kid of ['ec', 'x25519', 'rs']) {
      await expect(resolver.getKey('https://wallet.example/alice', kid)).resolves.toBeNull()
    }
    await expect(resolver.getKey('https://wallet.example/alice', 'key-2')).resolves.toEqual(key2.jwk)
  })

  it.each([
    ['not JSON', 'nope'],
    ['no keys array', JSON.stringify({ key: [] })],
  ])('fails on a JWKS that is %s', async (_, body) => {
    const resolver = createWalletAddressResolver({ fetch: stubFetch(() => new Response(body)), allowHttp: false })
    expect(await failure(resolver.getKey('https://wallet.example/alice', 'key-1'))).toMatchObject(KEYS_FAILURE)
  })

  it('fails on a wallet address document that does not match the schema', async () => {
    const fetch = stubFetch(() => new Response(JSON.stringify({ id: 'https://wallet.example/alice', assetCode: 'USD' })))
    const resolver = createWalletAddressResolver({ fetch, allowHttp: false })
    expect(await failure(resolver.getWalletAddress('https://wallet.example/alice'))).toMatchObject(DOCUMENT_FAILURE)
  })

  it('keeps extra wallet address fields', async () => {
    const doc = {
      id: 'https://wallet.example/alice',
      assetCode: 'EUR',
      assetScale: 2,
      authServer: 'https://auth.wallet.example',
      resourceServer: 'https://wallet.example',
      cardService: 'https://cards.wallet.example',
    }
    const resolver = createWalletAddressResolver({ fetch: stubFetch(() => new Response(JSON.stringify(doc))), allowHttp: false })
    await expect(resolver.getWalletAddress('https://wallet.example/alice')).resolves.toEqual(doc)
  })

  it('turns a network error into invalid_client 400', async () => {
    const fetch = stubFetch(() => {
      throw new TypeError('fetch failed: ECONNREFUSED 10.0.0.1')
    })
    const resolver = createWalletAddressResolver({ fetch, allowHttp: false })
    const error = await failure(resolver.getKey('https://wallet.example/alice', 'key-1'))
    expect(error).toMatchObject(KEYS_FAILURE)
    expect(error.message).not.toMatch(/ECONNREFUSED/)
  })
})

/** A loopback HTTP listener that counts the TCP connections opened to it (and answers 404). */
async function startConnectionCounter(host: string): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let connections = 0
  const server = createServer((_req, res) => res.writeHead(404).end())
  server.on('connection', () => connections++)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, host, () => resolve())
  })
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

describe('outbound fetches in production: no connection to loopback or private addresses (docs/protocol.md §4.3)', () => {
  let v4: Awaited<ReturnType<typeof startConnectionCounter>>
  let v6: Awaited<ReturnType<typeof startConnectionCounter>> | null
  beforeAll(async () => {
    v4 = await startConnectionCounter('127.0.0.1')
    v6 = await startConnectionCounter('::1').catch(() => null)
  })
  afterAll(async () => {
    await Promise.all([v4.close(), v6?.close()])
  })
  const connections = () => v4.connections() + (v6?.connections() ?? 0)

  // Every spelling of a loopback address, and a name that resolves to one.
  const loopbackUrls = () => [
    `https://127.0.0.1:${v4.port}/alice`,
    `http://127.0.0.1:${v4.port}/alice`,
    `http://2130706433:${v4.port}/alice`,
    `http://127.1:${v4.port}/alice`,
    `http://0x7f.1:${v4.port}/alice`,
    `http://0177.0.0.1:${v4.port}/alice`,
    `http://[::ffff:127.0.0.1]:${v4.port}/alice`,
    `http://[::ffff:7f00:1]:${v4.port}/alice`,
    `http://localhost:${v4.port}/alice`,
    `https://localhost.:${v4.port}/alice`,
    ...(v6 ? [`http://[::1]:${v6.port}/alice`, `https://localhost:${v6.port}/alice`] : []),
  ]

  it('refuses every spelling of loopback with 400 invalid_client, and no connection is ever opened', async () => {
    // Production: WALLET_ADDRESS_ALLOWED_NETWORKS unset, so no network besides public addresses.
    const resolver = createWalletAddressResolver({ allowHttp: false, allowedNetworks: [] })
    for (const url of loopbackUrls()) {
      expect(await failure(resolver.getKey(url, 'key-1')), url).toMatchObject(KEYS_FAILURE)
      expect(await failure(resolver.getWalletAddress(url)), url).toMatchObject(DOCUMENT_FAILURE)
    }
    expect(connections()).toBe(0)
  })

  it('tells the operator why, naming the URL', async () => {
    const warn = vi.fn()
    const resolver = createWalletAddressResolver({ allowHttp: false, allowedNetworks: [], log: { warn } })
    const url = `http://localhost:${v4.port}/alice`
    expect(await failure(resolver.getWalletAddress(url))).toMatchObject(DOCUMENT_FAILURE)
    expect(await failure(resolver.getKey(`http://127.1:${v4.port}/alice`, 'key-1'))).toMatchObject(KEYS_FAILURE)
    expect(warn.mock.calls.map(([fields]) => fields)).toEqual([{ url }, { url: `http://127.0.0.1:${v4.port}/alice/jwks.json` }])
    expect(connections()).toBe(0)
  })

  it('refuses loopback even with ALLOW_HTTP_WALLET_ADDRESSES and another network allowed', async () => {
    const resolver = createWalletAddressResolver({ allowHttp: true, allowedNetworks: ['10.0.0.0/8', 'fd00::/8'] })
    for (const url of loopbackUrls()) expect(await failure(resolver.getKey(url, 'key-1')), url).toMatchObject(KEYS_FAILURE)
    expect(connections()).toBe(0)
  })

  it('connects when the network is allowed (loopback outside production): the counter sees every connection', async () => {
    const resolver = createWalletAddressResolver({ allowHttp: false, allowedNetworks: LOOPBACK_NETWORKS })
    expect(await failure(resolver.getKey(`http://127.1:${v4.port}/alice`, 'key-1'))).toMatchObject(KEYS_FAILURE)
    expect(await failure(resolver.getWalletAddress(`http://localhost:${v4.port}/bob`))).toMatchObject(DOCUMENT_FAILURE)
    expect(v4.connections()).toBeGreaterThanOrEqual(1)
  })
})

describe('WALLET_ADDRESS_ALLOWED_NETWORKS', () => {
  let server: WalletAddressServer
  beforeAll(async () => {
    server = await startWalletAddressServer()
  })
  afterAll(async () => {
    await server.close()
  })

  it('lets a listed network through, and only that network', async () => {
    const alice = server.addClient('alice-allowed', { publicName: 'Alice', keys: [key1.jwk], authServer: 'https://as.example/' })
    const listed = createWalletAddressResolver({ allowHttp: false, allowedNetworks: ['127.0.0.0/24'] })
    await expect(listed.getKey(alice, 'key-1')).resolves.toEqual(key1.jwk)
    await expect(listed.getWalletAddress(alice)).resolves.toMatchObject({ publicName: 'Alice' })

    const before = server.requests.length
    const other = createWalletAddressResolver({ allowHttp: false, allowedNetworks: ['127.0.1.0/24', '10.0.0.0/8'] })
    expect(await failure(other.getKey(alice, 'key-1'))).toMatchObject(KEYS_FAILURE)
    expect(server.requests.length).toBe(before)
  })
})

describe('a failed wallet address is not fetched again for a while', () => {
  let server: WalletAddressServer
  beforeAll(async () => {
    server = await startWalletAddressServer()
  })
  afterAll(async () => {
    await server.close()
  })

  it('answers a second lookup within 30 s from memory, then fetches again', async () => {
    let clock = 1_000_000
    const resolver = createWalletAddressResolver({ allowHttp: false, allowedNetworks: LOOPBACK_NETWORKS, now: () => clock })
    const missing = `${server.url}/not-yet`
    const fetches = (path: string) => server.requests.filter((p) => p === path).length

    expect(await failure(resolver.getKey(missing, 'key-1'))).toMatchObject(KEYS_FAILURE)
    expect(await failure(resolver.getWalletAddress(missing))).toMatchObject(DOCUMENT_FAILURE)
    expect(fetches('/not-yet/jwks.json')).toBe(1)
    expect(fetches('/not-yet')).toBe(1)

    clock += 29_000
    expect(await failure(resolver.getKey(missing, 'key-1'))).toMatchObject(KEYS_FAILURE)
    expect(await failure(resolver.getWalletAddress(missing))).toMatchObject(DOCUMENT_FAILURE)
    expect(fetches('/not-yet/jwks.json')).toBe(1)
    expect(fetches('/not-yet')).toBe(1)

    // The client published its wallet address meanwhile: after the 30 s it is found.
    server.addClient('not-yet', { publicName: 'Late', keys: [key1.jwk], authServer: 'https://as.example/' })
    clock += 1_000
    await expect(resolver.getKey(missing, 'key-1')).resolves.toEqual(key1.jwk)
    await expect(resolver.getWalletAddress(missing)).resolves.toMatchObject({ publicName: 'Late' })
    expect(fetches('/not-yet/jwks.json')).toBe(2)
    expect(fetches('/not-yet')).toBe(2)
  })
})

describe('at most N outbound fetches at once', () => {
  const flush = () => new Promise((resolve) => setImmediate(resolve))

  it('queues past the limit, refuses past the queue with 503 request_denied and Retry-After, and serves the queue in turn', async () => {
    const pending: (() => void)[] = []
    const fetch = stubFetch(() => new Promise<Response>((resolve) => pending.push(() => resolve(jwksResponse([key1.jwk])))))
    const resolver = createWalletAddressResolver({ fetch, allowHttp: false, maxConcurrentFetches: 2, maxQueuedFetches: 1 })

    const running = ['a', 'b', 'c'].map((name) => resolver.getKey(`https://wallet.example/${name}`, 'key-1'))
    await flush()
    expect(fetch).toHaveBeenCalledTimes(2)

    const refused = await failure(resolver.getKey('https://wallet.example/d', 'key-1'))
    expect(refused).toMatchObject({ code: 'request_denied', status: 503, retryAfterSeconds: 1 })
    expect(fetch).toHaveBeenCalledTimes(2)

    pending.shift()!()
    await flush()
    expect(fetch).toHaveBeenCalledTimes(3)
    while (pending.length > 0) pending.shift()!()
    await expect(Promise.all(running)).resolves.toEqual([key1.jwk, key1.jwk, key1.jwk])

    // A refusal for load is not remembered against the client: once there is room it is fetched.
    const later = resolver.getKey('https://wallet.example/d', 'key-1')
    await flush()
    pending.shift()!()
    await expect(later).resolves.toEqual(key1.jwk)
  })
})

describe('the wallet address document names itself', () => {
  const doc = (id: string) =>
    new Response(
      JSON.stringify({
        id,
        publicName: 'Bob',
        assetCode: 'USD',
        assetScale: 2,
        authServer: 'https://as.example',
        resourceServer: 'https://wallet.example',
      }),
    )

  it('refuses a document whose id is another wallet address', async () => {
    const resolver = createWalletAddressResolver({ fetch: stubFetch(() => doc('https://wallet.example/bob')), allowHttp: false })
    const error = await failure(resolver.getWalletAddress('https://wallet.example/alice'))
    expect(error).toMatchObject({ code: 'invalid_client', status: 400, message: 'the client wallet address document names another id' })
  })

  it('accepts an id that is the same URL in another spelling', async () => {
    const resolver = createWalletAddressResolver({ fetch: stubFetch(() => doc('https://WALLET.example:443/alice')), allowHttp: false })
    await expect(resolver.getWalletAddress('https://wallet.example/alice')).resolves.toMatchObject({ publicName: 'Bob' })
  })

  it.each(['https://wallet.example/alice/', 'https://wallet.example/%61lice'])(
    'accepts an id (%s) whose canonical form is the address the grant stores',
    async (id) => {
      const resolver = createWalletAddressResolver({ fetch: stubFetch(() => doc(id)), allowHttp: false })
      await expect(resolver.getWalletAddress('https://wallet.example/alice')).resolves.toMatchObject({ publicName: 'Bob' })
    },
  )
})

describe('the guarded fetch against a real listener', () => {
  let server: ReturnType<typeof createServer>
  let base = ''
  const paths: string[] = []
  beforeAll(async () => {
    server = createServer((req, res) => {
      paths.push(req.url ?? '')
      if (req.url?.startsWith('/moved')) res.writeHead(302, { location: `${base}/alice/jwks.json` }).end()
      else if (req.url?.startsWith('/silent'))
        return // never answers
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [key1.jwk] }))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  it('does not follow a redirect', async () => {
    const resolver = createWalletAddressResolver({ allowHttp: false, allowedNetworks: LOOPBACK_NETWORKS })
    expect(await failure(resolver.getKey(`${base}/moved`, 'key-1'))).toMatchObject(KEYS_FAILURE)
    expect(paths).toEqual(['/moved/jwks.json'])
    await expect(resolver.getKey(`${base}/alice`, 'key-1')).resolves.toEqual(key1.jwk)
  })

  it('gives up on a server that never answers', async () => {
    const resolver = createWalletAddressResolver({ allowHttp: false, allowedNetworks: LOOPBACK_NETWORKS, timeoutMs: 100 })
    expect(await failure(resolver.getKey(`${base}/silent`, 'key-1'))).toMatchObject(KEYS_FAILURE)
  })
})

describe('createWalletAddressResolver metrics', () => {
  /** Records every fetch the resolver reports: kind and outcome, with a time of zero or more. */
  const recorder = () => {
    const seen: string[] = []
    return {
      seen,
      metrics: {
        outboundFetch: (kind: string, outcome: string, seconds: number) => {
          expect(seconds).toBeGreaterThanOrEqual(0)
          seen.push(`${kind} ${outcome}`)
        },
      },
    }
  }

  it('reports each fetch of a key set or a document by how it ended', async () => {
    const ok = recorder()
    const good = createWalletAddressResolver({ fetch: stubFetch(() => jwksResponse([])), allowHttp: false, metrics: ok.metrics })
    expect(await good.getKey('https://wallet.example/alice', 'k')).toBeNull()
    expect(ok.seen).toEqual(['jwks ok'])

    const bad = recorder()
    const notFound = createWalletAddressResolver({
      fetch: stubFetch(() => new Response('no', { status: 404 })),
      allowHttp: false,
      metrics: bad.metrics,
    })
    await failure(notFound.getKey('https://wallet.example/alice', 'k'))
    await failure(notFound.getWalletAddress('https://wallet.example/bob'))
    expect(bad.seen).toEqual(['jwks bad_response', 'wallet_address bad_response'])

    const down = recorder()
    const unreachable = createWalletAddressResolver({
      fetch: stubFetch(() => Promise.reject(new TypeError('fetch failed'))),
      allowHttp: false,
      metrics: down.metrics,
    })
    await failure(unreachable.getWalletAddress('https://wallet.example/carol'))
    expect(down.seen).toEqual(['wallet_address failed'])

    // The guarded fetch refuses a private address before connecting (no allowed networks).
    const refused = recorder()
    const guarded = createWalletAddressResolver({ allowHttp: true, metrics: refused.metrics })
    await failure(guarded.getWalletAddress('http://10.0.0.1/dave'))
    expect(refused.seen).toEqual(['wallet_address refused_address'])
  })
})
