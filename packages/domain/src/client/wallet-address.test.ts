import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { GnapError } from '../errors'
import { generateClientKey } from '../testing/client-keys'
import { startWalletAddressServer } from '../testing/wallet-address-server'
import type { WalletAddressServer } from '../testing/wallet-address-server'
import { createWalletAddressResolver, isAllowedWalletAddressUrl } from './wallet-address'

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
    const resolver = createWalletAddressResolver({ allowHttp: false, now: () => clock })

    for (let i = 0; i < 5; i++) await expect(resolver.getKey(alice, 'key-1')).resolves.toEqual(key1.jwk)
    expect(server.requests.filter((p) => p === '/alice-cache/jwks.json')).toHaveLength(1)

    clock += 60_000
    await expect(resolver.getKey(alice, 'key-1')).resolves.toEqual(key1.jwk)
    expect(server.requests.filter((p) => p === '/alice-cache/jwks.json')).toHaveLength(2)
  })

  it('shares one in-flight fetch between concurrent callers', async () => {
    const alice = server.addClient('alice-concurrent', { keys: [key1.jwk], authServer: 'https://as.example/' })
    const resolver = createWalletAddressResolver({ allowHttp: false })
    const results = await Promise.all(Array.from({ length: 10 }, () => resolver.getKey(alice, 'key-1')))
    expect(results.every((k) => k?.x === key1.jwk.x)).toBe(true)
    expect(server.requests.filter((p) => p === '/alice-concurrent/jwks.json')).toHaveLength(1)
  })

  it('refetches on an unknown kid, at most once per 5 seconds', async () => {
    const name = 'alice-rotate'
    const alice = server.addClient(name, { keys: [key1.jwk], authServer: 'https://as.example/' })
    const fetches = () => server.requests.filter((p) => p === `/${name}/jwks.json`).length
    let clock = 1_000_000
    const resolver = createWalletAddressResolver({ allowHttp: false, now: () => clock })

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
    const resolver = createWalletAddressResolver({ allowHttp: false })
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
    const resolver = createWalletAddressResolver({ allowHttp: false })
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
