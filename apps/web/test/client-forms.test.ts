// The three `client` forms of auth-server.yaml 1.3.0 against `next start` (docs/protocol.md §4.5): the deprecated
// string, {walletAddress} and {jwk} (directed identity), driven by the Open Payments SDK where it can send them, and
// the refusals signed the way the SDK signs. Every answer is checked against the vendored contract.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAuthenticatedClient, isFinalizedGrant, type Grant } from '@interledger/open-payments'
import { assertMatchesSpec, generateClientKey, requestSpecErrors, signedHeaders, type ClientKey } from '@gnap/domain/testing'
import { introspect, outgoingAccess, rejection, startWorld, type World } from './support/world'

let w: World

beforeAll(async () => {
  w = await startWorld()
})

afterAll(async () => {
  await w?.stop()
})

const incoming = { access: [{ type: 'incoming-payment' as const, actions: ['create' as const, 'read' as const] }] }

/** An SDK client that signs with `key` and names no wallet address the server could fetch (its requests override it). */
const sdkClientFor = (key: ClientKey) =>
  createAuthenticatedClient({ walletAddressUrl: 'https://directed.invalid/none', privateKey: key.privateKey, keyId: key.kid })

/** POST / with exactly this body, signed with `key` as the SDK signs. */
async function postGrant(key: ClientKey, body: unknown): Promise<{ status: number; body: { error?: { code: string; description: string } } }> {
  const text = JSON.stringify(body)
  const res = await fetch(w.server.url, {
    method: 'POST',
    headers: await signedHeaders(key, { method: 'POST', url: w.server.url, body: text }),
    body: text,
  })
  return { status: res.status, body: (await res.json()) as { error?: { code: string; description: string } } }
}

describe('the deprecated string form', () => {
  it('is answered as before, and as the 1.1.0 contract says', async () => {
    const body = { access_token: incoming, client: w.walletAddress }
    expect(requestSpecErrors('auth-server-1.1.0', '/', 'post', body)).toBeNull()
    const res = await postGrant(w.key, body)
    expect(res.status).toBe(200)
    assertMatchesSpec('auth-server-1.1.0', '/', 'post', res.status, res.body)
    const token = (res.body as unknown as Grant).access_token!
    expect((await introspect(w.server, token.value)).body).toMatchObject({ active: true, client: { walletAddress: w.walletAddress } })
  })
})

describe('{walletAddress}', () => {
  it('is served exactly as the string: verified against the wallet address keys, introspected with it', async () => {
    const client = { walletAddress: w.walletAddress }
    expect(requestSpecErrors('auth-server', '/', 'post', { access_token: incoming, client })).toBeNull()
    // The SDK types only `{jwk}` as an override; it sends whatever it is given.
    const grant = await w.client.grant.request({ url: w.server.url }, { access_token: incoming }, client as never)
    if (!isFinalizedGrant(grant) || !grant.access_token) throw new Error('expected an issued grant')
    expect((await introspect(w.server, grant.access_token.value)).body).toMatchObject({ active: true, client: { walletAddress: w.walletAddress } })
  })

  it('starts an interaction for an outgoing payment, as the string does', async () => {
    const res = await postGrant(w.key, {
      access_token: { access: [outgoingAccess('https://wallet.example/alice')] },
      client: { walletAddress: w.walletAddress },
      interact: { start: ['redirect'] },
    })
    expect(res.status).toBe(200)
    expect(new URL((res.body as unknown as { interact: { redirect: string } }).interact.redirect).searchParams.get('clientUri')).toBe(w.walletAddress)
  })

  it('is refused when the wallet address does not publish the signing key, as the string is', async () => {
    const res = await postGrant(generateClientKey('unpublished'), { access_token: incoming, client: { walletAddress: w.walletAddress } })
    expect(res.status).toBe(400)
    expect(res.body.error?.code).toBe('invalid_client')
  })
})

describe('{jwk}: directed identity', () => {
  it('issues a token verified against the presented key, which rotates, introspects with {jwk} and revokes', async () => {
    // A key no wallet address publishes: the server can only have taken it from the request.
    const key = generateClientKey('directed-1')
    expect(requestSpecErrors('auth-server', '/', 'post', { access_token: incoming, client: { jwk: key.jwk } })).toBeNull()
    const client = await sdkClientFor(key)
    const grant = await client.grant.request({ url: w.server.url }, { access_token: incoming }, { jwk: key.jwk })
    if (!isFinalizedGrant(grant) || !grant.access_token) throw new Error('expected an issued grant')
    const first = grant.access_token
    expect((await introspect(w.server, first.value)).body).toMatchObject({ active: true, client: { jwk: key.jwk } })

    // Another key under the same kid cannot manage the token.
    const forger = await sdkClientFor(generateClientKey('directed-1'))
    expect((await rejection(forger.token.rotate({ url: first.manage, accessToken: first.value }))).status).toBe(401)

    const rotated = await client.token.rotate({ url: first.manage, accessToken: first.value })
    expect((await introspect(w.server, first.value)).body).toEqual({ active: false })
    const next = rotated.access_token
    expect((await introspect(w.server, next.value)).body).toMatchObject({ active: true, client: { jwk: key.jwk } })

    expect((await rejection(forger.token.revoke({ url: next.manage, accessToken: next.value }))).status).toBe(401)
    await client.token.revoke({ url: next.manage, accessToken: next.value })
    expect((await introspect(w.server, next.value)).body).toEqual({ active: false })
  })

  it('cancels its grant with the presented key', async () => {
    const key = generateClientKey('directed-2')
    const client = await sdkClientFor(key)
    const grant = await client.grant.request({ url: w.server.url }, { access_token: incoming }, { jwk: key.jwk })
    if (!isFinalizedGrant(grant) || !grant.access_token) throw new Error('expected an issued grant')
    await client.grant.cancel({ url: grant.continue.uri, accessToken: grant.continue.access_token.value })
    expect((await introspect(w.server, grant.access_token.value)).body).toEqual({ active: false })
  })

  it('refuses a request signed with another key than the presented one', async () => {
    const key = generateClientKey('directed-3')
    const res = await postGrant(generateClientKey('directed-3'), { access_token: incoming, client: { jwk: key.jwk } })
    expect(res.status).toBe(401)
    expect(res.body.error?.code).toBe('invalid_client')
  })
})

describe('refusals, 400 with a reason', () => {
  const key = generateClientKey('refused')

  it.each<[string, () => unknown, string, string]>([
    [
      'a {jwk} grant that needs interaction',
      () => ({
        access_token: { access: [outgoingAccess('https://wallet.example/alice')] },
        client: { jwk: key.jwk },
        interact: { start: ['redirect'] },
      }),
      'invalid_request',
      'needs interaction',
    ],
    [
      'both walletAddress and jwk',
      () => ({ access_token: incoming, client: { walletAddress: w.walletAddress, jwk: key.jwk } }),
      'invalid_client',
      'not both',
    ],
    [
      'a JWK with its private part',
      () => ({ access_token: incoming, client: { jwk: { ...key.jwk, d: key.jwk.x } } }),
      'invalid_client',
      'private key',
    ],
    [
      'a JWK that is not Ed25519',
      () => ({ access_token: incoming, client: { jwk: { kty: 'EC', crv: 'P-256', kid: 'refused', alg: 'ES256', x: key.jwk.x, y: key.jwk.x } } }),
      'invalid_client',
      'Ed25519 public key',
    ],
    [
      'a walletAddress that is no string',
      () => ({ access_token: incoming, client: { walletAddress: 42 } }),
      'invalid_client',
      'client.walletAddress',
    ],
    ['an empty object', () => ({ access_token: incoming, client: {} }), 'invalid_client', 'exactly one member'],
  ])('%s', async (_name, body, code, reason) => {
    const res = await postGrant(key, body())
    expect(res.status).toBe(400)
    expect(res.body.error).toEqual({ code, description: expect.stringContaining(reason) })
  })
})

describe('the contract', () => {
  it('every answer the server gave in these flows met auth-server.yaml 1.3.0 and token-introspection.yaml', () => {
    expect(w.spec.exchanges.length).toBeGreaterThan(10)
    expect(w.spec.failures).toEqual([])
  })
})
