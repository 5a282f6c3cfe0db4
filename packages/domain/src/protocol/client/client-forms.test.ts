import { beforeEach, describe, expect, it } from 'vitest'
import { createRequestAuth, type RequestAuth } from './request-auth'
import { JWK_THUMBPRINT_URI_PREFIX, jwkThumbprint, parseClientForm } from './client-instance'
import { blockClient } from '../../operator/client-block/block-client'
import { generateClientKey, signedHeaders, type ClientKey } from '../../testing/client-keys'
import { TEST_CLIENT, authAs, gnapError, grantRequest, incomingAccess, outgoingAccess, rowCounts, type StubWalletAddresses } from '../../testing/deps'
import { issueNonInteractiveGrant, lastSegment } from '../../testing/grant-flows'
import { useTestDeps } from '../../testing/use-test-deps'
import { requestSpecErrors } from '../../testing/spec-validator'
import { parseGrantRequest } from '../grant/grant.wire'
import { requestGrant } from '../grant/request-grant'
import { cancelGrant } from '../grant/cancel-grant'
import { rotateAccessToken } from '../access-token/rotate-access-token'
import { revokeAccessToken } from '../access-token/revoke-access-token'
import { introspectToken } from '../access-token/introspect-token'
import { findGrantById } from '../grant/grant.repo'
import { getGrantDetail } from '../../operator/admin/get-grant-detail'
import { listClients } from '../../operator/admin/list-clients'
import { getClientDetail } from '../../operator/admin/get-client-detail'

// The three `client` forms of auth-server.yaml 1.3.0 (docs/protocol.md §4.5), signed for real: the signature is
// verified by the code the server runs, against the wallet address's keys or the key the request presents.

const t = useTestDeps()
beforeEach(() => {
  // Signatures are made now, and checked against the deps' clock.
  t.clock.now = new Date()
})

const nothing = { grants: 0, accessItems: 0, tokens: 0, interactions: 0 }
const admin = { kind: 'admin' as const, id: 'admin-1', label: 'admin@example.com', role: 'admin' as const, tenantId: null }

/** A request signed with `key` as the Open Payments SDK signs it, made into the server's RequestAuth. */
async function signed(key: ClientKey, input: { method: string; url: string; body?: string; token?: string }): Promise<RequestAuth> {
  const headers = await signedHeaders(key, {
    method: input.method,
    url: input.url,
    ...(input.body !== undefined ? { body: input.body } : {}),
    ...(input.token ? { headers: { authorization: `GNAP ${input.token}` } } : {}),
  })
  return createRequestAuth(t.deps, {
    method: input.method,
    targetUri: input.url,
    headers: new Headers(headers),
    body: input.body !== undefined ? new TextEncoder().encode(input.body) : null,
  })
}

/** POST / with `body`, signed with `key`, through the wire parser and the use case. */
async function postGrant(key: ClientKey, body: unknown) {
  const text = JSON.stringify(body)
  const auth = await signed(key, { method: 'POST', url: t.deps.config.authServerUrl, body: text })
  return requestGrant(t.deps, parseGrantRequest(JSON.parse(text)), auth, null)
}

const incoming = { access_token: { access: [incomingAccess()] } }

const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
/** The same 32 bytes with an unused low bit of the last character set: decoders take it, RFC 7638 does not. */
const otherSpelling = (x: string) => x.slice(0, -1) + BASE64URL_ALPHABET[BASE64URL_ALPHABET.indexOf(x.at(-1)!) ^ 1]!

describe('parseClientForm (docs/protocol.md §4.5)', () => {
  const key = generateClientKey('k1')

  it('takes the deprecated string, {walletAddress} and {jwk}', () => {
    expect(parseClientForm(TEST_CLIENT)).toEqual({ walletAddress: TEST_CLIENT })
    expect(parseClientForm({ walletAddress: TEST_CLIENT })).toEqual({ walletAddress: TEST_CLIENT })
    expect(parseClientForm({ jwk: key.jwk })).toEqual({ jwk: key.jwk })
  })

  it('keeps only the public members of the key', () => {
    expect(parseClientForm({ jwk: { ...key.jwk, key_ops: ['verify'], ext: true } })).toEqual({ jwk: key.jwk })
  })

  it.each<[string, unknown, string]>([
    ['both members', { walletAddress: TEST_CLIENT, jwk: key.jwk }, 'client must have walletAddress or jwk, not both'],
    ['no member', {}, 'client must have exactly one member'],
    ['another member', { walletAddress: TEST_CLIENT, name: 'x' }, 'client must have exactly one member'],
    ['an array', [TEST_CLIENT], 'client must be a wallet address URL'],
    ['a walletAddress that is no string', { walletAddress: 42 }, 'client.walletAddress must be'],
    ['an empty walletAddress', { walletAddress: '' }, 'client.walletAddress must be'],
    ['a jwk that is no object', { jwk: 'abc' }, 'client.jwk must be a JSON Web Key object'],
    ['a private key (d)', { jwk: { ...key.jwk, d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A' } }, 'client.jwk carries a private key (d)'],
    ['an RSA key', { jwk: { kty: 'RSA', kid: 'r', n: 'AQAB', e: 'AQAB', alg: 'RS256' } }, 'client.jwk must be an Ed25519 public key'],
    ['an X25519 key', { jwk: { ...key.jwk, crv: 'X25519' } }, 'client.jwk must be an Ed25519 public key'],
    ['an EC P-256 key', { jwk: { kty: 'EC', crv: 'P-256', kid: 'e', x: key.jwk.x, y: key.jwk.x } }, 'client.jwk must be an Ed25519 public key'],
    ['a short x', { jwk: { ...key.jwk, x: 'AAAA' } }, 'client.jwk.x must be the 32-byte Ed25519 public key'],
    ['an x that is not base64url', { jwk: { ...key.jwk, x: `${key.jwk.x.slice(0, 42)}+=` } }, 'client.jwk.x must be'],
    [
      'a non-canonical x (unused bits set: the same key under another thumbprint)',
      { jwk: { ...key.jwk, x: otherSpelling(key.jwk.x) } },
      'canonical base64url',
    ],
    ['no kid', { jwk: { ...key.jwk, kid: undefined } }, 'client.jwk.kid must be a string of 1 to 256 characters'],
    ['another alg', { jwk: { ...key.jwk, alg: 'ES256' } }, 'client.jwk.alg must be EdDSA'],
    ['a use other than sig', { jwk: { ...key.jwk, use: 'enc' } }, 'client.jwk.use must be sig'],
  ])('refuses %s with invalid_client 400 and a reason', (_name, client, reason) => {
    expect(() => parseClientForm(client)).toThrow(
      expect.objectContaining({ ...gnapError('invalid_client', 400), message: expect.stringContaining(reason) }),
    )
    expect(() => parseGrantRequest({ ...incoming, client })).toThrow(expect.objectContaining(gnapError('invalid_client', 400)))
  })
})

describe('the contract (auth-server.yaml 1.3.0, and 1.1.0 before it)', () => {
  const key = generateClientKey('k1')
  const body = (client: unknown) => ({ ...incoming, client })

  it('allows the three forms this server takes; 1.1.0 only the string', () => {
    for (const client of [TEST_CLIENT, { walletAddress: TEST_CLIENT }, { jwk: key.jwk }]) {
      expect(requestSpecErrors('auth-server', '/', 'post', body(client))).toBeNull()
      expect(parseGrantRequest(body(client)).client).toEqual(typeof client === 'string' ? { walletAddress: client } : client)
    }
    expect(requestSpecErrors('auth-server-1.1.0', '/', 'post', body(TEST_CLIENT))).toBeNull()
    expect(requestSpecErrors('auth-server-1.1.0', '/', 'post', body({ walletAddress: TEST_CLIENT }))).not.toBeNull()
  })

  it('does not allow both members or a key of another type either', () => {
    expect(requestSpecErrors('auth-server', '/', 'post', body({ walletAddress: TEST_CLIENT, jwk: key.jwk }))).not.toBeNull()
    expect(requestSpecErrors('auth-server', '/', 'post', body({ jwk: { ...key.jwk, kty: 'EC' } }))).not.toBeNull()
  })
})

describe('{walletAddress}: exactly the string form (docs/protocol.md §4.5)', () => {
  it('verifies against the wallet address and stores the same client as the string', async () => {
    const auth = authAs(null)
    await requestGrant(t.deps, grantRequest({ client: { walletAddress: TEST_CLIENT }, access: [incomingAccess()], interact: null }), auth, null)
    expect(auth.verified).toEqual([TEST_CLIENT])
    expect(await t.db.grant.findFirstOrThrow()).toMatchObject({ client: TEST_CLIENT, clientJwk: null })
  })

  it('is refused like the string when the wallet address is blocked', async () => {
    await blockClient(t.deps, { walletAddress: TEST_CLIENT, reason: 'abuse', actor: admin })
    const auth = authAs(null)
    await expect(requestGrant(t.deps, grantRequest({ client: { walletAddress: TEST_CLIENT } }), auth, null)).rejects.toMatchObject(
      gnapError('invalid_client', 401),
    )
    expect(auth.verified).toEqual([])
  })

  it('is refused like the string for a plain http wallet address', async () => {
    const auth = authAs(null)
    await expect(requestGrant(t.deps, grantRequest({ client: { walletAddress: 'http://wallet.example/app' } }), auth, null)).rejects.toMatchObject(
      gnapError('invalid_client', 400),
    )
    expect(auth.verified).toEqual([])
  })

  it('starts an interaction named after the wallet address document, as the string does', async () => {
    const response = await requestGrant(t.deps, grantRequest({ client: { walletAddress: TEST_CLIENT } }), authAs(null), null)
    expect(new URL(response.interact!.redirect).searchParams.get('clientUri')).toBe(TEST_CLIENT)
  })
})

describe('{jwk}: directed identity (docs/protocol.md §4.5)', () => {
  it('issues a non-interactive grant verified against the presented key, stores the key and fetches nothing', async () => {
    const key = generateClientKey('di-1')
    const response = await postGrant(key, { ...incoming, client: { jwk: key.jwk } })
    expect(response.access_token).toBeDefined()
    expect((t.walletAddresses as StubWalletAddresses).fetched).toEqual([])
    const grantId = (await t.db.grant.findFirstOrThrow()).id
    const grant = await findGrantById(t.sql, grantId)
    expect(grant?.client).toBe(`${JWK_THUMBPRINT_URI_PREFIX}${await jwkThumbprint(key.jwk)}`)
    expect(JSON.parse(grant!.clientJwk!)).toEqual(key.jwk)
  })

  it('answers introspection with client {jwk}, and other clients with {walletAddress} as before', async () => {
    const key = generateClientKey('di-1')
    const response = await postGrant(key, { ...incoming, client: { jwk: key.jwk } })
    expect(await introspectToken(t.deps, { accessToken: response.access_token!.value, access: null })).toMatchObject({
      active: true,
      client: { jwk: key.jwk },
    })
    const other = await issueNonInteractiveGrant(t)
    expect(await introspectToken(t.deps, { accessToken: other.tokenValue, access: null })).toMatchObject({ client: { walletAddress: TEST_CLIENT } })
  })

  it('introspects a directed identity inactive with INTROSPECTION_CLIENT_FORMAT=string: no wallet address to give a v2.3 backend', async () => {
    const key = generateClientKey('di-1')
    const response = await postGrant(key, { ...incoming, client: { jwk: key.jwk } })
    const v23 = { ...t.deps, config: { ...t.deps.config, introspectionClientFormat: 'string' as const } }
    expect(await introspectToken(v23, { accessToken: response.access_token!.value, access: null })).toEqual({ active: false })
    const other = await issueNonInteractiveGrant(t)
    expect(await introspectToken(v23, { accessToken: other.tokenValue, access: null })).toMatchObject({ active: true, client: TEST_CLIENT })
  })

  it('refuses a request signed with another key (401) and one whose keyid names no presented key (400), storing nothing', async () => {
    const key = generateClientKey('di-1')
    await expect(postGrant(generateClientKey('di-1'), { ...incoming, client: { jwk: key.jwk } })).rejects.toMatchObject(
      gnapError('invalid_client', 401),
    )
    await expect(postGrant(generateClientKey('other-kid'), { ...incoming, client: { jwk: key.jwk } })).rejects.toMatchObject(
      gnapError('invalid_client', 400),
    )
    expect(await rowCounts(t.db)).toEqual(nothing)
  })

  it('refuses a grant that needs interaction with invalid_request 400 and a reason, storing nothing', async () => {
    const key = generateClientKey('di-1')
    const body = {
      access_token: { access: [outgoingAccess()] },
      client: { jwk: key.jwk },
      interact: { start: ['redirect'] },
    }
    await expect(postGrant(key, body)).rejects.toMatchObject({
      ...gnapError('invalid_request', 400),
      message: expect.stringContaining('needs interaction'),
    })
    expect(await rowCounts(t.db)).toEqual(nothing)
  })

  it('rotates and revokes its token only with a signature by the stored key', async () => {
    const key = generateClientKey('di-1')
    const response = await postGrant(key, { ...incoming, client: { jwk: key.jwk } })
    const token = response.access_token!
    const manage = token.manage

    // The same kid, another key: refused, the token still live.
    const forged = await signed(generateClientKey('di-1'), { method: 'POST', url: manage, token: token.value })
    await expect(rotateAccessToken(t.deps, { managementId: lastSegment(manage), auth: forged })).rejects.toMatchObject(
      gnapError('invalid_client', 401),
    )

    const rotated = await rotateAccessToken(t.deps, {
      managementId: lastSegment(manage),
      auth: await signed(key, { method: 'POST', url: manage, token: token.value }),
    })
    expect(await introspectToken(t.deps, { accessToken: token.value, access: null })).toEqual({ active: false })
    const next = rotated.access_token
    expect(await introspectToken(t.deps, { accessToken: next.value, access: null })).toMatchObject({ active: true, client: { jwk: key.jwk } })

    await revokeAccessToken(t.deps, {
      managementId: lastSegment(next.manage),
      auth: await signed(key, { method: 'DELETE', url: next.manage, token: next.value }),
    })
    expect(await introspectToken(t.deps, { accessToken: next.value, access: null })).toEqual({ active: false })
    expect((t.walletAddresses as StubWalletAddresses).fetched).toEqual([])
  })

  it('cancels its grant with a signature by the stored key, and not with another', async () => {
    const key = generateClientKey('di-1')
    const response = await postGrant(key, { ...incoming, client: { jwk: key.jwk } })
    const { uri, access_token } = response.continue
    const continueId = lastSegment(uri)
    await expect(
      cancelGrant(t.deps, { continueId, auth: await signed(generateClientKey('di-1'), { method: 'DELETE', url: uri, token: access_token.value }) }),
    ).rejects.toMatchObject(gnapError('invalid_client', 401))
    await cancelGrant(t.deps, { continueId, auth: await signed(key, { method: 'DELETE', url: uri, token: access_token.value }) })
    expect(await introspectToken(t.deps, { accessToken: response.access_token!.value, access: null })).toEqual({ active: false })
  })

  it('can be blocked by its thumbprint URI: its grants are revoked and its requests refused', async () => {
    const key = generateClientKey('di-1')
    const response = await postGrant(key, { ...incoming, client: { jwk: key.jwk } })
    const client = `${JWK_THUMBPRINT_URI_PREFIX}${await jwkThumbprint(key.jwk)}`
    expect(await blockClient(t.deps, { walletAddress: client, reason: 'abuse', actor: admin })).toMatchObject({ revokedGrants: 1, revokedTokens: 1 })
    await expect(postGrant(key, { ...incoming, client: { jwk: key.jwk } })).rejects.toMatchObject(gnapError('invalid_client', 401))
    const manage = response.access_token!.manage
    await expect(
      rotateAccessToken(t.deps, {
        managementId: lastSegment(manage),
        auth: await signed(key, { method: 'POST', url: manage, token: response.access_token!.value }),
      }),
    ).rejects.toMatchObject(gnapError('invalid_client', 401))
  })

  it('shows on the console as a directed identity with its key thumbprint (RFC 7638)', async () => {
    const key = generateClientKey('di-1')
    await postGrant(key, { ...incoming, client: { jwk: key.jwk } })
    await issueNonInteractiveGrant(t)
    const thumbprint = await jwkThumbprint(key.jwk)
    const client = `${JWK_THUMBPRINT_URI_PREFIX}${thumbprint}`
    const grant = await t.db.grant.findFirstOrThrow({ where: { client } })
    expect((await getGrantDetail(t.deps, grant.id)).client).toEqual({ walletAddress: client, name: null, thumbprint })
    expect(await listClients(t.deps, { limit: 50 })).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ walletAddress: client, thumbprint }),
        expect.objectContaining({ walletAddress: TEST_CLIENT, thumbprint: null }),
      ]),
    )
    expect(await getClientDetail(t.deps, { walletAddress: client })).toMatchObject({ thumbprint, grantCounts: { issued: 1 } })
  })

  it('keeps the rate limit of each key apart from the wallet address clients', async () => {
    await t.reset({ config: { grantRequestsPerMinutePerClient: 1 }, now: new Date() })
    const key = generateClientKey('di-1')
    await postGrant(key, { ...incoming, client: { jwk: key.jwk } })
    await expect(postGrant(key, { ...incoming, client: { jwk: key.jwk } })).rejects.toMatchObject(gnapError('request_denied', 429))
    // A wallet address client is counted on its own.
    await issueNonInteractiveGrant(t)
  })

  it('counts every directed identity against one shared allowance too: a new key is no new allowance', async () => {
    await t.reset({ config: { grantRequestsPerMinutePerClient: 100, grantRequestsPerMinutePerIp: 1 }, now: new Date() })
    const first = generateClientKey('di-1')
    const second = generateClientKey('di-2')
    await postGrant(first, { ...incoming, client: { jwk: first.jwk } })
    await expect(postGrant(second, { ...incoming, client: { jwk: second.jwk } })).rejects.toMatchObject(gnapError('request_denied', 429))
    // Wallet address clients do not share it.
    await issueNonInteractiveGrant(t)
  })
})
