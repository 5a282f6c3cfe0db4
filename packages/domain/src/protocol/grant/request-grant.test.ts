import { createServer, type AddressInfo, type Server } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EnvSchema, configFromEnv } from '../../kernel/config/config'
import { createRequestAuth } from '../client/request-auth'
import { walletAddressResolverFor } from '../client/wallet-address'
import { generateClientKey, signedHeaders } from '../../testing/client-keys'
import { GnapError, badClient } from '../../kernel/errors'
import { hashSecret } from '../../kernel/secrets'
import {
  TEST_CLIENT,
  TEST_CLIENT_NONCE,
  TEST_FINISH_URI,
  TEST_OWNER,
  authAs,
  databaseText,
  failWrites,
  gnapError,
  grantRequest,
  incomingAccess,
  outgoingAccess,
  quoteAccess,
  rowCounts,
  stubWalletAddresses,
} from '../../testing/deps'
import { lastSegment } from '../../testing/grant-flows'
import { parseGrantRequest } from './grant.wire'
import { requestGrant } from './request-grant'
import { useTestDeps } from '../../testing/use-test-deps'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const nothing = { grants: 0, accessItems: 0, tokens: 0, interactions: 0 }

const t = useTestDeps()

describe('parseGrantRequest (docs/protocol.md §2.1 step 2)', () => {
  const valid = { client: TEST_CLIENT, access_token: { access: [{ type: 'incoming-payment', actions: ['create'] }] } }

  it('returns the client, the access items and no interact for a minimal body', () => {
    expect(parseGrantRequest(valid)).toEqual({
      client: { walletAddress: TEST_CLIENT },
      access: [{ type: 'incoming-payment', actions: ['create'] }],
      interact: null,
    })
  })

  it.each<[string, unknown]>([
    ['an array body', []],
    ['a null body', null],
    ['a string body', 'grant please'],
    ['no access_token', { client: TEST_CLIENT }],
    ['an unknown top-level field', { ...valid, extra: true }],
    ['an unknown access_token field', { client: TEST_CLIENT, access_token: { access: valid.access_token.access, label: 'x' } }],
    ['an empty access list', { client: TEST_CLIENT, access_token: { access: [] } }],
    [
      'four access items',
      { client: TEST_CLIENT, access_token: { access: [incomingAccess(), quoteAccess(), outgoingAccess(), incomingAccess({ actions: ['read'] })] } },
    ],
    ['two equal access items', { client: TEST_CLIENT, access_token: { access: [quoteAccess(), quoteAccess()] } }],
    ['an action the type does not have', { client: TEST_CLIENT, access_token: { access: [{ type: 'quote', actions: ['complete'] }] } }],
    [
      'an outgoing-payment item without identifier',
      { client: TEST_CLIENT, access_token: { access: [{ type: 'outgoing-payment', actions: ['create'] }] } },
    ],
    [
      'a value above uint64',
      {
        client: TEST_CLIENT,
        access_token: { access: [outgoingAccess({ limits: { debitAmount: { value: '18446744073709551616', assetCode: 'USD', assetScale: 2 } } })] },
      },
    ],
    [
      'both amounts',
      {
        client: TEST_CLIENT,
        access_token: {
          access: [
            outgoingAccess({
              limits: {
                debitAmount: { value: '1', assetCode: 'USD', assetScale: 2 },
                receiveAmount: { value: '1', assetCode: 'USD', assetScale: 2 },
              },
            }),
          ],
        },
      },
    ],
    ['an interval that is not ISO 8601', { client: TEST_CLIENT, access_token: { access: [outgoingAccess({ limits: { interval: 'monthly' } })] } }],
    [
      'an interact finish method other than redirect',
      { ...valid, interact: { start: ['redirect'], finish: { method: 'push', uri: TEST_FINISH_URI, nonce: 'n' } } },
    ],
    ['a subject request without interact', { ...valid, subject: { sub_ids: [{ id: TEST_OWNER, format: 'uri' }] } }],
    ['bad access and no client (shape is checked first)', { access_token: { access: [] } }],
    [
      'a lower-case asset code',
      {
        client: TEST_CLIENT,
        access_token: { access: [outgoingAccess({ limits: { debitAmount: { value: '1', assetCode: 'usd', assetScale: 2 } } })] },
      },
    ],
    [
      'an asset code that reads as words',
      {
        client: TEST_CLIENT,
        access_token: {
          access: [outgoingAccess({ limits: { receiveAmount: { value: '1', assetCode: 'USD, and all your savings', assetScale: 2 } } })],
        },
      },
    ],
    ...['http://client.example/finish', 'http://10.0.0.7/finish', 'http://[::ffff:7f00:1]/finish', 'http://localhost.example/finish'].map(
      (uri): [string, unknown] => [
        `a plain http finish URI to a host that is not loopback (${uri})`,
        { ...valid, interact: { start: ['redirect'], finish: { method: 'redirect', uri, nonce: 'n' } } },
      ],
    ),
  ])('refuses %s with invalid_request 400', (_name, body) => {
    expect(() => parseGrantRequest(body)).toThrow(expect.objectContaining(gnapError('invalid_request', 400)))
  })

  it.each([
    'https://client.example/finish',
    'http://127.0.0.1:3344/finish',
    'http://127.1.2.3/finish',
    'http://[::1]:8080/finish',
    'http://localhost/cb',
  ])('takes the finish URI %s (https, or plain http to a loopback host)', (uri) => {
    const finish = { method: 'redirect', uri, nonce: 'n' }
    expect(parseGrantRequest({ ...valid, interact: { start: ['redirect'], finish } }).interact).toEqual({ start: ['redirect'], finish })
  })

  it('names the rule when it refuses a plain http finish URI', () => {
    const body = { ...valid, interact: { start: ['redirect'], finish: { method: 'redirect', uri: 'http://client.example/finish', nonce: 'n' } } }
    expect(() => parseGrantRequest(body)).toThrow('interact.finish.uri: interact.finish.uri must be https unless its host is loopback')
  })

  it.each<[string, unknown]>([
    ['no client', { access_token: valid.access_token }],
    ['a numeric client', { ...valid, client: 42 }],
    ['an empty client', { ...valid, client: '' }],
    ['a key object as client', { ...valid, client: { jwk: { kty: 'OKP' } } }],
  ])('refuses %s with invalid_client 400', (_name, body) => {
    expect(() => parseGrantRequest(body)).toThrow(expect.objectContaining(gnapError('invalid_client', 400)))
  })
})

describe('requestGrant: client and signature (docs/protocol.md §2.1 steps 2–3)', () => {
  it.each([
    ['not a URL', 'wallet.example/app'],
    ['not http(s)', 'ftp://wallet.example/app'],
    ['plain http to a public host', 'http://wallet.example/app'],
    ['a URL with credentials', 'https://user:pw@wallet.example/app'],
    ['a URL with a query', 'https://wallet.example/app?x=1'],
  ])('refuses a client that is %s with invalid_client 400 before checking the signature', async (_name, client) => {
    const auth = authAs(null)
    await expect(requestGrant(t.deps, grantRequest({ client }), auth, null)).rejects.toMatchObject(gnapError('invalid_client', 400))
    expect(auth.verified).toEqual([])
    expect(await rowCounts(t.db)).toEqual(nothing)
  })

  it('accepts an http client on loopback', async () => {
    const client = 'http://127.0.0.1:4000/app'
    const response = await requestGrant(t.deps, grantRequest({ client, access: [quoteAccess()], interact: null }), authAs(null), null)
    expect(response.access_token).toBeDefined()
  })

  it('accepts an http client on a public host when ALLOW_HTTP_WALLET_ADDRESSES is set', async () => {
    await t.reset({ config: { allowHttpWalletAddresses: true } })
    const client = 'http://wallet.example/app'
    const response = await requestGrant(t.deps, grantRequest({ client, access: [quoteAccess()], interact: null }), authAs(null), null)
    expect(response.access_token).toBeDefined()
  })

  it('verifies the signature with the keys of the client wallet address', async () => {
    const auth = authAs(null)
    await requestGrant(t.deps, grantRequest({ access: [quoteAccess()], interact: null }), auth, null)
    expect(auth.verified).toEqual([TEST_CLIENT])
  })

  it('returns invalid_client 401 when the signature does not verify, and writes nothing', async () => {
    const auth = authAs(null, { failSignature: new GnapError('invalid_client', 'signature does not verify') })
    await expect(requestGrant(t.deps, grantRequest(), auth, null)).rejects.toMatchObject(gnapError('invalid_client', 401))
    expect(await rowCounts(t.db)).toEqual(nothing)
  })

  it('returns invalid_client 400 when the client key cannot be resolved', async () => {
    const auth = authAs(null, { failSignature: 'unresolvable-key' as const })
    await expect(requestGrant(t.deps, grantRequest(), auth, null)).rejects.toMatchObject(gnapError('invalid_client', 400))
    expect(await rowCounts(t.db)).toEqual(nothing)
  })

  it('checks the signature before the interaction rules', async () => {
    await t.reset({ config: { incomingPaymentInteraction: true } })
    const auth = authAs(null, { failSignature: new GnapError('invalid_client', 'signature does not verify') })
    const request = grantRequest({ access: [incomingAccess()], interact: null })
    await expect(requestGrant(t.deps, request, auth, null)).rejects.toMatchObject(gnapError('invalid_client', 401))
  })
})

describe('requestGrant: non-interactive (docs/protocol.md §2.1 step 5)', () => {
  it('issues a token at once and finalizes the grant as issued', async () => {
    await t.reset({ config: { accessTokenExpirySeconds: 900 } })
    const access = [incomingAccess(), quoteAccess()]
    const response = await requestGrant(t.deps, grantRequest({ access, interact: null }), authAs(null), null)

    expect(response.interact).toBeUndefined()
    expect(response.access_token).toEqual({
      value: expect.stringMatching(/^[\x21-\x7e]{32,}$/),
      manage: expect.stringMatching(/^https:\/\/auth\.example\/token\//),
      expires_in: 900,
      access,
    })
    expect(response.continue).toEqual({
      access_token: { value: expect.stringMatching(/^[\x21-\x7e]{32,}$/) },
      uri: expect.stringMatching(/^https:\/\/auth\.example\/continue\//),
    })
    expect(response.continue).not.toHaveProperty('wait')
    const token = response.access_token!
    expect(lastSegment(token.manage)).toMatch(UUID)
    expect(lastSegment(response.continue.uri)).toMatch(UUID)
    expect(token.manage).not.toContain(token.value)
    expect(token.value).not.toBe(response.continue.access_token.value)

    const grant = await t.db.grant.findUniqueOrThrow({
      where: { continueId: lastSegment(response.continue.uri) },
      include: { accessTokens: true, accessItems: { orderBy: { position: 'asc' } }, interaction: true },
    })
    expect(grant).toMatchObject({
      state: 'finalized',
      finalizedReason: 'issued',
      finalizedAt: t.clock.now,
      client: TEST_CLIENT,
      continueTokenHash: hashSecret(response.continue.access_token.value),
    })
    expect(grant.interaction).toBeNull()
    expect(grant.accessItems.map((i) => i.type)).toEqual(['incoming-payment', 'quote'])
    expect(grant.accessTokens).toHaveLength(1)
    expect(grant.accessTokens[0]).toMatchObject({
      state: 'active',
      managementId: lastSegment(token.manage),
      valueHash: hashSecret(token.value),
      expiresIn: 900,
      expiresAt: new Date(t.clock.now.getTime() + 900_000),
      previousId: null,
    })
  })

  it('stores only hashes of the token and continuation values', async () => {
    const response = await requestGrant(t.deps, grantRequest({ access: [incomingAccess()], interact: null }), authAs(null), null)
    const text = await databaseText(t)
    expect(text).not.toContain(response.access_token!.value)
    expect(text).not.toContain(response.continue.access_token.value)
    expect(text).toContain(hashSecret(response.access_token!.value))
  })

  it('gives every grant its own token value, management id and continuation', async () => {
    const request = grantRequest({ access: [incomingAccess()], interact: null })
    const a = await requestGrant(t.deps, request, authAs(null), null)
    const b = await requestGrant(t.deps, request, authAs(null), null)
    expect(a.access_token!.value).not.toBe(b.access_token!.value)
    expect(a.access_token!.manage).not.toBe(b.access_token!.manage)
    expect(a.continue.uri).not.toBe(b.continue.uri)
    expect(a.continue.access_token.value).not.toBe(b.continue.access_token.value)
  })

  it('issues at once when the client offers interaction the items do not need', async () => {
    const response = await requestGrant(t.deps, grantRequest({ access: [incomingAccess()] }), authAs(null), null)
    expect(response.access_token).toBeDefined()
    expect(response.interact).toBeUndefined()
  })

  it("records the client's publicName, from its wallet address, for the console", async () => {
    const walletAddresses = stubWalletAddresses({ [TEST_CLIENT]: { publicName: 'Meter Reader' } })
    await t.reset({ walletAddresses })
    const response = await requestGrant(t.deps, grantRequest({ access: [incomingAccess()], interact: null }), authAs(null), null)
    expect(walletAddresses.fetched).toEqual([TEST_CLIENT])
    const grant = await t.db.grant.findUniqueOrThrow({ where: { continueId: lastSegment(response.continue.uri) } })
    expect(grant.clientName).toBe('Meter Reader')
  })

  it.each<[string, Partial<{ publicName: string | undefined }> | Error]>([
    ['cannot be fetched', badClient('could not fetch client wallet address')],
    ['has no publicName', { publicName: undefined }],
    ['has a publicName unfit to show', { publicName: 'Shop\u202eoc' }],
  ])('issues the grant, without a name, when the wallet address %s', async (_name, document) => {
    await t.reset({ walletAddresses: stubWalletAddresses({ [TEST_CLIENT]: document }) })
    const response = await requestGrant(t.deps, grantRequest({ access: [incomingAccess()], interact: null }), authAs(null), null)
    expect(response.access_token).toBeDefined()
    const grant = await t.db.grant.findUniqueOrThrow({ where: { continueId: lastSegment(response.continue.uri) } })
    expect(grant).toMatchObject({ finalizedReason: 'issued', clientName: null })
  })

  it('persists nothing when the transaction fails half-way (step 7)', async () => {
    await failWrites(t, 'AccessToken')
    const failure = requestGrant(t.deps, grantRequest({ access: [incomingAccess()], interact: null }), authAs(null), null)
    await expect(failure).rejects.toThrow()
    await expect(failure).rejects.not.toBeInstanceOf(GnapError)
    expect(await rowCounts(t.db)).toEqual(nothing)
  })
})

describe('requestGrant: interaction rule (docs/protocol.md §2.1 step 4, §6)', () => {
  it.each([
    ['outgoing-payment', [outgoingAccess()], {}],
    ['incoming-payment with INCOMING_PAYMENT_INTERACTION', [incomingAccess({ identifier: TEST_OWNER })], { incomingPaymentInteraction: true }],
    ['incoming-payment list-all with LIST_ALL_ACCESS_INTERACTION', [incomingAccess({ actions: ['list-all'], identifier: TEST_OWNER })], {}],
  ])('asks for interaction for %s', async (_name, access, config) => {
    await t.reset({ config })
    const response = await requestGrant(t.deps, grantRequest({ access }), authAs(null), null)
    expect(response.interact).toBeDefined()
    expect(response.access_token).toBeUndefined()
  })

  it.each([
    ['incoming-payment with INCOMING_PAYMENT_INTERACTION', [incomingAccess()], { incomingPaymentInteraction: true }],
    ['incoming-payment list-all with LIST_ALL_ACCESS_INTERACTION', [incomingAccess({ actions: ['list-all'] })], {}],
    ['quote with QUOTE_INTERACTION', [quoteAccess()], { quoteInteraction: true }],
  ])('refuses %s without identifier with invalid_request 400', async (_name, access, config) => {
    await t.reset({ config })
    await expect(requestGrant(t.deps, grantRequest({ access }), authAs(null), null)).rejects.toMatchObject(gnapError('invalid_request', 400))
    expect(await rowCounts(t.db)).toEqual(nothing)
  })

  it('does not require an identifier on items that skip interaction in an interactive grant', async () => {
    const access = [outgoingAccess(), quoteAccess(), incomingAccess()]
    const response = await requestGrant(t.deps, grantRequest({ access }), authAs(null), null)
    expect(response.interact).toBeDefined()
    expect(await t.db.accessItem.count()).toBe(3)
  })

  it('issues at once when list-all skips interaction because LIST_ALL_ACCESS_INTERACTION is off', async () => {
    await t.reset({ config: { listAllInteraction: false } })
    const response = await requestGrant(
      t.deps,
      grantRequest({ access: [incomingAccess({ actions: ['list-all'] })], interact: null }),
      authAs(null),
      null,
    )
    expect(response.access_token).toBeDefined()
  })
})

describe('requestGrant: interactive (docs/protocol.md §2.1 step 6)', () => {
  it('creates a pending grant and a pending interaction and answers interact and continue with wait', async () => {
    await t.reset({ config: { waitSeconds: 7, interactionExpirySeconds: 300 } })
    const response = await requestGrant(t.deps, grantRequest(), authAs(null), null)

    expect(response.access_token).toBeUndefined()
    expect(response.continue).toEqual({
      access_token: { value: expect.any(String) },
      uri: expect.stringMatching(/^https:\/\/auth\.example\/continue\//),
      wait: 7,
    })
    const redirect = new URL(response.interact!.redirect)
    const [, segment, interactionId, nonce] = redirect.pathname.split('/')
    expect(redirect.origin).toBe('https://auth.example')
    expect(segment).toBe('interact')
    expect(interactionId).toMatch(UUID)
    expect(nonce).toBe(response.interact!.finish)
    expect(Object.fromEntries(redirect.searchParams)).toEqual({ clientName: 'Test App', clientUri: TEST_CLIENT })

    const grant = await t.db.grant.findUniqueOrThrow({
      where: { continueId: lastSegment(response.continue.uri) },
      include: { interaction: true, accessTokens: true },
    })
    expect(grant).toMatchObject({
      state: 'pending',
      finalizedReason: null,
      finalizedAt: null,
      client: TEST_CLIENT,
      clientName: 'Test App',
      finishMethod: 'redirect',
      finishUri: TEST_FINISH_URI,
      clientNonce: TEST_CLIENT_NONCE,
      continueTokenHash: hashSecret(response.continue.access_token.value),
      continueNotBefore: new Date(t.clock.now.getTime() + 7_000),
    })
    expect(grant.accessTokens).toEqual([])
    expect(grant.interaction).toMatchObject({
      id: interactionId,
      nonce,
      state: 'pending',
      interactRef: expect.stringMatching(UUID),
      expiresAt: new Date(t.clock.now.getTime() + 300_000),
      sessionHash: null,
      decidedAt: null,
      finishedAt: null,
      refUsedAt: null,
    })
    expect(await databaseText(t)).not.toContain(response.continue.access_token.value)
  })

  it('returns interact.finish even when the client sent no finish method', async () => {
    const response = await requestGrant(t.deps, grantRequest({ interact: 'poll' }), authAs(null), null)
    expect(response.interact?.finish).toMatch(/^[0-9A-F]{16,}$/)
    const grant = await t.db.grant.findFirstOrThrow()
    expect(grant).toMatchObject({ finishMethod: null, finishUri: null, clientNonce: null })
  })

  it('takes the client name from the client wallet address', async () => {
    const walletAddresses = stubWalletAddresses({ [TEST_CLIENT]: { publicName: 'Shop & Co' } })
    await t.reset({ walletAddresses })
    const response = await requestGrant(t.deps, grantRequest(), authAs(null), null)
    expect(walletAddresses.fetched).toEqual([TEST_CLIENT])
    expect(new URL(response.interact!.redirect).searchParams.get('clientName')).toBe('Shop & Co')
  })

  it.each<[string, ReturnType<typeof grantRequest>['interact']]>([
    ['no interact', null],
    ['interact.start without redirect', { start: ['user_code'] }],
  ])('refuses %s with invalid_request 400', async (_name, interact) => {
    await expect(requestGrant(t.deps, grantRequest({ interact }), authAs(null), null)).rejects.toMatchObject(gnapError('invalid_request', 400))
    expect(await rowCounts(t.db)).toEqual(nothing)
  })

  it('sends the owner to the built-in consent screen when no identity provider is configured', async () => {
    await t.reset({ config: { identityServerUrl: null } })
    const res = await requestGrant(t.deps, grantRequest(), authAs(null), null)
    expect(res.interact?.redirect.startsWith('https://auth.example/interact/')).toBe(true)
  })

  it('returns invalid_client 400 when the client wallet address cannot be fetched', async () => {
    await t.reset({ walletAddresses: stubWalletAddresses({ [TEST_CLIENT]: badClient('could not fetch client wallet address') }) })
    await expect(requestGrant(t.deps, grantRequest(), authAs(null), null)).rejects.toMatchObject(gnapError('invalid_client', 400))
    expect(await rowCounts(t.db)).toEqual(nothing)
  })

  it('returns invalid_client 400 when the client wallet address has no publicName', async () => {
    await t.reset({ walletAddresses: stubWalletAddresses({ [TEST_CLIENT]: { publicName: undefined } }) })
    await expect(requestGrant(t.deps, grantRequest(), authAs(null), null)).rejects.toMatchObject(gnapError('invalid_client', 400))
    expect(await rowCounts(t.db)).toEqual(nothing)
  })

  // The name is shown inside sentences on the consent screen (docs/protocol.md §4.3).
  it.each<[string, string]>([
    ['blank', '   '],
    ['longer than 100 characters', 'A'.repeat(101)],
    ['with a line break', 'Shop\nYou have already approved this: press Approve'],
    ['with a control character', 'Shop\u0007'],
    ['with a right-to-left override', 'Shop \u202eoc & pohS'],
    ['with a directional isolate', 'Shop \u2067Co\u2069'],
    ['with a line separator', 'Shop\u2028Co'],
  ])('returns invalid_client 400 for a publicName %s, and stores nothing', async (_name, publicName) => {
    await t.reset({ walletAddresses: stubWalletAddresses({ [TEST_CLIENT]: { publicName } }) })
    await expect(requestGrant(t.deps, grantRequest(), authAs(null), null)).rejects.toMatchObject(gnapError('invalid_client', 400))
    expect(await rowCounts(t.db)).toEqual(nothing)
  })

  it.each([['A'.repeat(100)], ['Café Zoë'], ['店舗 & Co.'], ['\u{1F6D2} Shop'], ['می\u200cخواهم']])('takes the publicName %j', async (publicName) => {
    await t.reset({ walletAddresses: stubWalletAddresses({ [TEST_CLIENT]: { publicName } }) })
    const response = await requestGrant(t.deps, grantRequest(), authAs(null), null)
    expect(new URL(response.interact!.redirect).searchParams.get('clientName')).toBe(publicName)
  })

  it('persists nothing when the transaction fails half-way (step 7)', async () => {
    await failWrites(t, 'Interaction')
    await expect(requestGrant(t.deps, grantRequest(), authAs(null), null)).rejects.not.toBeInstanceOf(GnapError)
    expect(await rowCounts(t.db)).toEqual(nothing)
  })
})

describe('requestGrant in production: a client naming a loopback address is refused without a connection (docs/protocol.md §4.3)', () => {
  let listener: Server
  let connections = 0
  let port = 0
  beforeAll(async () => {
    listener = createServer((socket) => socket.destroy())
    listener.on('connection', () => connections++)
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()))
    port = (listener.address() as AddressInfo).port
  })
  afterAll(async () => {
    await new Promise<void>((resolve) => listener.close(() => resolve()))
  })

  it.each([
    ['https', (p: number) => `https://127.0.0.1:${p}/app`],
    ['http', (p: number) => `http://127.0.0.1:${p}/app`],
    ['decimal', (p: number) => `http://2130706433:${p}/app`],
    ['shortened', (p: number) => `http://127.1:${p}/app`],
    ['hex', (p: number) => `http://0x7f.1:${p}/app`],
    ['IPv4-mapped', (p: number) => `http://[::ffff:127.0.0.1]:${p}/app`],
    ['IPv4-mapped over https', (p: number) => `https://[::ffff:127.0.0.1]:${p}/app`],
    ['a name resolving to loopback', (p: number) => `https://localhost:${p}/app`],
  ])('%s: 400 invalid_client, no connection, nothing written', async (_name, clientAt) => {
    const env = EnvSchema.parse({
      AUTH_SERVER_URL: 'https://auth.example',
      INTROSPECTION_SECRET: 'introspection-secret-0123456789-0123456789',
      NODE_ENV: 'production',
    })
    const config = configFromEnv(env)
    // The real clock: the signature is made now and checked against it.
    await t.reset({ config, walletAddresses: walletAddressResolverFor(config), now: new Date() })
    connections = 0
    const client = clientAt(port)
    const body = JSON.stringify({ access_token: { access: [quoteAccess()] }, client })
    const headers = await signedHeaders(generateClientKey('key-1'), { method: 'POST', url: config.authServerUrl, body })
    const auth = createRequestAuth(t.deps, {
      method: 'POST',
      targetUri: config.authServerUrl,
      headers: new Headers(headers),
      body: new TextEncoder().encode(body),
    })
    await expect(requestGrant(t.deps, parseGrantRequest(JSON.parse(body)), auth, null)).rejects.toMatchObject(gnapError('invalid_client', 400))
    expect(connections).toBe(0)
    expect(await rowCounts(t.db)).toEqual(nothing)
  })
})
