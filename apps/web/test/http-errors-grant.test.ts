// Error rows of docs/protocol.md §2.1–§2.3 (grant request, continue, cancel) over raw HTTP against `next start`:
// plain fetch with SDK-style signed headers, so every header and byte is under the test's control.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { contentDigest, generateClientKey, signedHeadersCovering } from '@gnap/domain/testing'
import { IDP_SECRET, INTROSPECTION_SECRET } from '@gnap/test-support'
import { consent, finishParams, introspect, sleep, startWorld, type ClientKey, type World } from './support/world'
import {
  approvedGrant,
  continueRequest,
  expectGnapError,
  expectNoLeaks,
  expectOk,
  incomingAccess,
  interactRefOf,
  issuedGrant,
  pendingGrant,
  rowCounts,
  signedFetch,
  signedRequest,
} from './support/raw-http'

let w: World
/** Token values and continuation tokens handed out in this file: none may appear in a description or log. */
const secrets: string[] = [INTROSPECTION_SECRET, IDP_SECRET]

beforeAll(async () => {
  w = await startWorld()
})

afterAll(async () => {
  await w?.stop()
})

const remember = <T extends { continueToken: string }>(g: T): T => {
  secrets.push(g.continueToken)
  return g
}

describe('POST / (grant request)', () => {
  let before: ReturnType<typeof rowCounts>

  beforeAll(() => {
    before = rowCounts(w.server.dbFile)
  })

  const nonInteractive = (): Record<string, unknown> => ({ access_token: { access: incomingAccess }, client: w.walletAddress })
  const outgoing = (item: Record<string, unknown> = {}, limits?: Record<string, unknown>) => ({
    access_token: {
      access: [
        {
          type: 'outgoing-payment',
          actions: ['create', 'read'],
          identifier: 'https://wallet.example/alice',
          ...(limits ? { limits } : {}),
          ...item,
        },
      ],
    },
    client: w.walletAddress,
    interact: { start: ['redirect'], finish: finishParams() },
  })
  const amount = (value: unknown, assetScale: unknown = 2) => ({ debitAmount: { value, assetCode: 'USD', assetScale } })

  async function post(body: unknown, key: ClientKey = w.key) {
    return signedFetch(key, { method: 'POST', url: w.server.url, body })
  }
  async function refused(res: Response, status: number, code: string) {
    return expectGnapError('POST', w.server.url, res, status, code)
  }

  it('refuses malformed JSON, a body that is not an object, and no body with 400 invalid_request', async () => {
    for (const body of ['{"client":', '{"access_token":{}}}', 'nul']) {
      const res = await fetch(w.server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      await refused(res, 400, 'invalid_request')
    }
    for (const body of [[], 'grant', 42, null]) await refused(await post(body), 400, 'invalid_request')
    const empty = await fetch(w.server.url, { method: 'POST', headers: { 'content-type': 'application/json' } })
    await refused(empty, 400, 'invalid_request')
  })

  it('refuses a body that is not sent as application/json with 400 invalid_request', async () => {
    const body = JSON.stringify(nonInteractive())
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp']) {
      const init = await signedRequest(w.key, { method: 'POST', url: w.server.url, body: nonInteractive() })
      const res = await fetch(w.server.url, { ...init, headers: { ...(init.headers as Record<string, string>), 'content-type': type } })
      const description = await refused(res, 400, 'invalid_request')
      expect(description).toContain('application/json')
    }
    // fetch's own default for a string body is text/plain.
    await refused(await fetch(w.server.url, { method: 'POST', body }), 400, 'invalid_request')
  })

  it('refuses a body over 64 KiB with 413, whether declared by content-length or streamed', async () => {
    const big = JSON.stringify({ ...nonInteractive(), padding: 'x'.repeat(65 * 1024) })
    const declared = await fetch(w.server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big })
    await refused(declared, 413, 'invalid_request')

    const bytes = new TextEncoder().encode(big)
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 8192) controller.enqueue(bytes.slice(i, i + 8192))
        controller.close()
      },
    })
    const streamed = await fetch(w.server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit)
    await refused(streamed, 413, 'invalid_request')
  })

  it('refuses an unknown top-level field with 400 invalid_request naming it', async () => {
    const description = await refused(await post({ ...nonInteractive(), unexpected: true }), 400, 'invalid_request')
    expect(description).toContain('unexpected')
  })

  it.each([
    ['no access_token', { client: 'CLIENT' }],
    ['no access list', { access_token: {}, client: 'CLIENT' }],
    ['an empty access list', { access_token: { access: [] }, client: 'CLIENT' }],
    [
      '4 access items',
      {
        access_token: {
          access: [
            { type: 'incoming-payment', actions: ['read'] },
            { type: 'incoming-payment', actions: ['list'] },
            { type: 'quote', actions: ['create'] },
            { type: 'quote', actions: ['read'] },
          ],
        },
        client: 'CLIENT',
      },
    ],
    [
      'duplicate access items',
      {
        access_token: {
          access: [
            { type: 'quote', actions: ['create', 'read'] },
            { type: 'quote', actions: ['create', 'read'] },
          ],
        },
        client: 'CLIENT',
      },
    ],
    ['duplicate actions', { access_token: { access: [{ type: 'quote', actions: ['create', 'create'] }] }, client: 'CLIENT' }],
    ['an action not allowed for quote', { access_token: { access: [{ type: 'quote', actions: ['list'] }] }, client: 'CLIENT' }],
    [
      'an action not allowed for outgoing-payment',
      {
        access_token: { access: [{ type: 'outgoing-payment', actions: ['complete'], identifier: 'https://wallet.example/alice' }] },
        client: 'CLIENT',
      },
    ],
    ['no actions', { access_token: { access: [{ type: 'quote', actions: [] }] }, client: 'CLIENT' }],
    ['an unknown access type', { access_token: { access: [{ type: 'account', actions: ['read'] }] }, client: 'CLIENT' }],
    [
      'an unknown field in an access item',
      { access_token: { access: [{ type: 'quote', actions: ['read'], identifier: 'https://wallet.example/alice' }] }, client: 'CLIENT' },
    ],
    [
      'limits on an incoming-payment item',
      { access_token: { access: [{ type: 'incoming-payment', actions: ['read'], limits: {} }] }, client: 'CLIENT' },
    ],
  ])('refuses %s with 400 invalid_request', async (_name, template) => {
    const body = JSON.parse(JSON.stringify(template).replace('"CLIENT"', JSON.stringify(w.walletAddress))) as unknown
    await refused(await post(body), 400, 'invalid_request')
  })

  it('refuses an outgoing-payment item without identifier with 400 invalid_request', async () => {
    const body = outgoing()
    delete (body.access_token.access[0] as Record<string, unknown>).identifier
    await refused(await post(body), 400, 'invalid_request')
  })

  it('refuses an item that needs interaction but has no identifier (incoming list-all) with 400 invalid_request', async () => {
    const body = { ...outgoing(), access_token: { access: [{ type: 'incoming-payment', actions: ['list-all'] }] } }
    await refused(await post(body), 400, 'invalid_request')
  })

  it.each([['18446744073709551616'], ['-1'], ['1.5'], [''], [' 1'], ['1e3'], [1000], [null]])(
    'refuses the amount value %j with 400 invalid_request',
    async (value) => {
      const description = await refused(await post(outgoing({}, amount(value))), 400, 'invalid_request')
      expect(description).toContain('value')
    },
  )

  it.each([[256], [-1], [1.5], ['2']])('refuses assetScale %j with 400 invalid_request', async (scale) => {
    await refused(await post(outgoing({}, amount('1000', scale))), 400, 'invalid_request')
  })

  it('refuses an amount without assetCode with 400 invalid_request', async () => {
    await refused(await post(outgoing({}, { debitAmount: { value: '1000', assetScale: 2 } })), 400, 'invalid_request')
  })

  it('refuses an assetCode that is not 1–16 upper-case letters or digits with 400 invalid_request', async () => {
    for (const assetCode of ['usd', 'USD every month to Mallory', 'ABCDEFGHIJ0123456']) {
      const description = await refused(
        await post(outgoing({}, { debitAmount: { value: '1000', assetCode, assetScale: 2 } })),
        400,
        'invalid_request',
      )
      expect(description).toContain('assetCode')
    }
  })

  it.each([['P1M'], ['R12/not-a-date/P1M'], ['R1/2026-01-01T00:00:00Z/P0D'], ['R12/2026-01-01T00:00:00Z'], [''], ['R/P1M/P1D']])(
    'refuses the interval %j with 400 invalid_request',
    async (interval) => {
      const description = await refused(await post(outgoing({}, { interval })), 400, 'invalid_request')
      expect(description).toContain('interval')
    },
  )

  it('refuses a receiver that is not an incoming payment URL with 400 invalid_request', async () => {
    for (const receiver of ['https://wallet.example/alice', 'ftp://wallet.example/incoming-payments/1', 'not a url']) {
      await refused(await post(outgoing({}, { receiver })), 400, 'invalid_request')
    }
  })

  it('refuses both debitAmount and receiveAmount with 400 invalid_request', async () => {
    const limits = { ...amount('1000'), receiveAmount: { value: '1000', assetCode: 'USD', assetScale: 2 } }
    const description = await refused(await post(outgoing({}, limits)), 400, 'invalid_request')
    expect(description).toContain('only one access amount allowed')
  })

  it('refuses a missing or malformed client with 400 invalid_client', async () => {
    const { client: _omit, ...noClient } = nonInteractive()
    await refused(await post(noClient), 400, 'invalid_client')
    for (const client of ['not a url', 42, '', 'ftp://wallet.example/app', '/relative/app', `${w.walletAddress}?x=1`]) {
      await refused(await post({ ...nonInteractive(), client }), 400, 'invalid_client')
    }
  })

  it('refuses an http client that is not loopback with 400 invalid_client', async () => {
    await refused(await post({ ...nonInteractive(), client: 'http://wallet.example/app' }), 400, 'invalid_client')
  })

  it('refuses a request without signature headers with 401 invalid_client', async () => {
    const res = await fetch(w.server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(nonInteractive()) })
    await refused(res, 401, 'invalid_client')
  })

  it('refuses malformed signature headers with 401 invalid_client', async () => {
    const init = await signedRequest(w.key, { method: 'POST', url: w.server.url, body: nonInteractive() })
    const headers = init.headers as Record<string, string>
    const bads: Record<string, string>[] = [{ signature: 'not a dictionary (' }, { 'signature-input': 'sig2=("@method");keyid="key-1"' }]
    for (const bad of bads) {
      await refused(await fetch(w.server.url, { ...init, headers: { ...headers, ...bad } }), 401, 'invalid_client')
    }
  })

  it('refuses a body changed after signing (digest mismatch) with 401 invalid_client', async () => {
    const signed = nonInteractive()
    const init = await signedRequest(w.key, { method: 'POST', url: w.server.url, body: signed })
    // Same length, still a valid request: only the digest (and the signature) can tell.
    const tampered = JSON.stringify({ ...signed, access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'list', 'read'] }] } })
    expect(tampered.length).toBe(String(init.body).length)
    const description = await refused(await fetch(w.server.url, { ...init, body: tampered }), 401, 'invalid_client')
    expect(description).toContain('digest')
  })

  it('refuses a request signed for another URL with 401 invalid_client', async () => {
    const init = await signedRequest(w.key, { method: 'POST', url: `${w.server.url}continue/${randomUUID()}`, body: nonInteractive() })
    await refused(await fetch(w.server.url, init), 401, 'invalid_client')
  })

  it('refuses a key the wallet address does not publish: unknown kid 400, same kid other key 401', async () => {
    const unknownKid = await post(nonInteractive(), generateClientKey('not-published'))
    expect(await refused(unknownKid, 400, 'invalid_client')).toContain('could not determine client')
    const impostor = await post(nonInteractive(), generateClientKey(w.key.kid))
    await refused(impostor, 401, 'invalid_client')
  })

  it('refuses a client whose keys cannot be fetched with 400 invalid_client', async () => {
    await refused(await post({ ...nonInteractive(), client: `${w.wallets.url}/nobody` }), 400, 'invalid_client')
  })

  it('refuses an interactive grant without interact, or without the redirect start, with 400 invalid_request', async () => {
    const { interact: _omit, ...noInteract } = outgoing()
    await refused(await post(noInteract), 400, 'invalid_request')
    await refused(await post({ ...noInteract, interact: { start: ['app'] } }), 400, 'invalid_request')
    await refused(await post({ ...noInteract, interact: { start: [] } }), 400, 'invalid_request')
  })

  it('refuses a malformed interact.finish with 400 invalid_request', async () => {
    const { interact: _omit, ...noInteract } = outgoing()
    for (const finish of [
      { method: 'push', uri: 'https://client.example/finish', nonce: 'n' },
      { method: 'redirect', uri: 'not a url', nonce: 'n' },
      { method: 'redirect', uri: 'https://client.example/finish' },
      { method: 'redirect', uri: 'http://client.example/finish', nonce: 'n' },
    ]) {
      await refused(await post({ ...noInteract, interact: { start: ['redirect'], finish } }), 400, 'invalid_request')
    }
  })

  it('refuses an interactive grant from a wallet address without publicName with 400 invalid_client', async () => {
    const key = generateClientKey('nameless-key')
    const client = w.wallets.addClient('nameless', { keys: [key.jwk], authServer: w.server.url })
    await refused(await post({ ...outgoing(), client }, key), 400, 'invalid_client')
  })

  it('refuses an interactive grant whose client publicName is over 100 characters or holds a line break, with 400 invalid_client', async () => {
    for (const [name, publicName] of [
      ['long-name', 'Shop '.repeat(21)],
      ['two-lines', 'Shop\nAlready approved by you'],
    ] as const) {
      const key = generateClientKey(`${name}-key`)
      const client = w.wallets.addClient(name, { publicName, keys: [key.jwk], authServer: w.server.url })
      expect(await refused(await post({ ...outgoing(), client }, key), 400, 'invalid_client')).toContain('publicName')
    }
  })

  it('refuses a subject request without interaction, of another format, or naming two wallet addresses, with 400 invalid_request and why', async () => {
    const alice = { id: 'https://wallet.example/alice', format: 'uri' }
    const interact = { start: ['redirect'], finish: finishParams() }
    for (const [body, why] of [
      [{ client: w.walletAddress, access_token: outgoing().access_token, subject: { sub_ids: [alice] } }, 'a subject request needs interaction'],
      [{ client: w.walletAddress, interact, subject: { sub_ids: [{ ...alice, format: 'email' }] } }, 'only "uri" is supported'],
      [
        { client: w.walletAddress, interact, subject: { sub_ids: [alice, { ...alice, id: 'https://wallet.example/bob' }] } },
        'at most 1 wallet address',
      ],
    ] as const) {
      expect(await refused(await post(body), 400, 'invalid_request')).toContain(why)
    }
  })

  it('wrote nothing for any of these requests', () => {
    expect(rowCounts(w.server.dbFile)).toEqual(before)
  })
})

describe('what a signature over a body covers (docs/protocol.md §4.2 steps 2 and 4)', () => {
  const CONTENT = ['content-digest', 'content-type', 'content-length'] as const

  it('takes a grant request with a body only when it covers content-digest, content-type and content-length', async () => {
    const body = JSON.stringify({ access_token: { access: incomingAccess }, client: w.walletAddress })
    const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'content-digest': contentDigest(body) }
    for (let bits = 0; bits < 2 ** CONTENT.length; bits++) {
      const covered = CONTENT.filter((_, i) => bits & (1 << i))
      const signed = await signedHeadersCovering(w.key, {
        method: 'POST',
        url: w.server.url,
        headers,
        components: ['@method', '@target-uri', ...covered],
      })
      const res = await fetch(w.server.url, { method: 'POST', headers: signed, body })
      if (covered.length === CONTENT.length) await expectOk('POST', w.server.url, res)
      else expect(await expectGnapError('POST', w.server.url, res, 401, 'invalid_client')).toMatch(/^signature does not cover content-/)
    }
  })

  it('refuses a continuation signed over content-digest with an interact_ref and sent without its body, instead of answering a poll', async () => {
    const g = remember(await pendingGrant(w, { finish: false }))
    await sleep(1000)
    const body = JSON.stringify({ interact_ref: randomUUID() })
    const authorization = `GNAP ${g.continueToken}`
    const signed = await signedHeadersCovering(w.key, {
      method: 'POST',
      url: g.continueUri,
      headers: { authorization, 'content-type': 'application/json', 'content-digest': contentDigest(body) },
      components: ['@method', '@target-uri', 'authorization', 'content-digest'],
    })
    const stripped = await fetch(g.continueUri, { method: 'POST', headers: signed })
    expect(await expectGnapError('POST', g.continueUri, stripped, 401, 'invalid_client')).toContain('digest')
    // Signed by the SDK (content-length covered too), then stripped: refused as well.
    const sdk = (await signedRequest(w.key, { method: 'POST', url: g.continueUri, token: g.continueToken, body: { interact_ref: randomUUID() } }))
      .headers as Record<string, string>
    const { 'content-length': _length, ...withoutLength } = sdk
    await expectGnapError('POST', g.continueUri, await fetch(g.continueUri, { method: 'POST', headers: withoutLength }), 401, 'invalid_client')
    // The grant was not polled by either: a poll now is the first one and is answered.
    await expectOk('POST', g.continueUri, await continueRequest(w, g))
  })

  it('refuses a body-less request whose covered Content-Digest is not that of the empty body', async () => {
    const g = remember(await pendingGrant(w, { finish: false }))
    await sleep(1000)
    const sign = async (digest: string) =>
      signedHeadersCovering(w.key, {
        method: 'POST',
        url: g.continueUri,
        headers: { authorization: `GNAP ${g.continueToken}`, 'content-type': 'application/json', 'content-digest': digest },
        components: ['@method', '@target-uri', 'authorization', 'content-digest'],
      })
    const wrong = await fetch(g.continueUri, { method: 'POST', headers: await sign(contentDigest('{}')) })
    expect(await expectGnapError('POST', g.continueUri, wrong, 401, 'invalid_client')).toContain('digest')
    await expectOk('POST', g.continueUri, await fetch(g.continueUri, { method: 'POST', headers: await sign(contentDigest('')) }))
  })
})

describe('POST /continue/{id}', () => {
  const url = (g: { continueUri: string }) => g.continueUri

  it('refuses a body that is not absent, {} or {interact_ref} with 400 invalid_request', async () => {
    const g = remember(await pendingGrant(w))
    for (const body of [[], 'ref', 42, null, { foo: 1 }, { interact_ref: 1 }, { interact_ref: '' }, { interact_ref: 'a', foo: 'b' }]) {
      await expectGnapError('POST', url(g), await continueRequest(w, g, { body }), 400, 'invalid_request')
    }
    const malformed = await fetch(url(g), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `GNAP ${g.continueToken}` },
      body: '{"interact_ref":',
    })
    await expectGnapError('POST', url(g), malformed, 400, 'invalid_request')
  })

  it('refuses a request without signature headers with 401 invalid_client, before looking at the token', async () => {
    const g = remember(await pendingGrant(w))
    const withToken = await fetch(url(g), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `GNAP ${g.continueToken}` },
    })
    await expectGnapError('POST', url(g), withToken, 401, 'invalid_client')
    const bare = await fetch(url(g), { method: 'POST' })
    await expectGnapError('POST', url(g), bare, 401, 'invalid_client')
  })

  it('refuses a signed request without Authorization: GNAP with 401 invalid_continuation', async () => {
    const g = remember(await pendingGrant(w))
    await expectGnapError('POST', url(g), await continueRequest(w, g, { token: null }), 401, 'invalid_continuation')
    const bearer = await signedFetch(w.key, { method: 'POST', url: url(g), authorization: `Bearer ${g.continueToken}` })
    await expectGnapError('POST', url(g), bearer, 401, 'invalid_continuation')
  })

  it('answers an unknown continue id with 404 invalid_continuation', async () => {
    const g = remember(await pendingGrant(w))
    const unknown = { continueUri: `${w.server.url}continue/${randomUUID()}`, continueToken: g.continueToken }
    await expectGnapError('POST', url(unknown), await continueRequest(w, unknown), 404, 'invalid_continuation')
  })

  it('refuses a wrong continuation token with 401 invalid_continuation', async () => {
    const g = remember(await pendingGrant(w))
    const other = remember(await pendingGrant(w))
    for (const token of [other.continueToken, 'WRONGTOKEN0123456789', `${g.continueToken}0`]) {
      const description = await expectGnapError('POST', url(g), await continueRequest(w, g, { token }), 401, 'invalid_continuation')
      expect(description).not.toContain(token)
    }
  })

  it("refuses another client's signature on the grant's continuation token: 401, or 400 for a kid the grant's client lacks", async () => {
    const g = remember(await pendingGrant(w))
    await sleep(1000)
    const sameKid = generateClientKey(w.key.kid)
    w.wallets.addClient('mallory', { publicName: 'Mallory', keys: [sameKid.jwk], authServer: w.server.url })
    await expectGnapError('POST', url(g), await continueRequest(w, g, { key: sameKid }), 401, 'invalid_client')
    const other = await w.newClient('eve')
    await expectGnapError('POST', url(g), await continueRequest(w, g, { key: other.key }), 400, 'invalid_client')
  })

  it('answers too_fast before wait elapses; errors do not restart the clock, a pending answer does', async () => {
    const g = remember(await pendingGrant(w, { finish: false }))
    await expectGnapError('POST', url(g), await continueRequest(w, g), 400, 'too_fast')
    await sleep(300)
    await expectGnapError('POST', url(g), await continueRequest(w, g, { body: {} }), 400, 'too_fast')
    await sleep(800)
    const polled = await expectOk<{ continue: { wait: number } }>('POST', url(g), await continueRequest(w, g))
    expect(polled.continue.wait).toBe(1)
    await expectGnapError('POST', url(g), await continueRequest(w, g), 400, 'too_fast')
  })

  it('answers too_fast to an interact_ref sent before wait elapses', async () => {
    const g = remember(await pendingGrant(w))
    await expectGnapError('POST', url(g), await continueRequest(w, g, { body: { interact_ref: randomUUID() } }), 400, 'too_fast')
  })

  it("answers an interact_ref that is not this grant's with 404 invalid_continuation", async () => {
    const g = remember(await pendingGrant(w))
    const other = remember(await pendingGrant(w))
    await sleep(1000)
    for (const ref of [randomUUID(), interactRefOf(w.server.dbFile, other.continueUri)]) {
      await expectGnapError('POST', url(g), await continueRequest(w, g, { body: { interact_ref: ref } }), 404, 'invalid_continuation')
    }
  })

  it('answers the right interact_ref of a grant still pending with 401 request_denied, also after the IdP accepted', async () => {
    const g = remember(await pendingGrant(w))
    const ref = interactRefOf(w.server.dbFile, g.continueUri)
    await sleep(1000)
    await expectGnapError('POST', url(g), await continueRequest(w, g, { body: { interact_ref: ref } }), 401, 'request_denied')

    // The IdP accepted, but the browser has not come back to finish: the grant is still pending.
    const start = await fetch(g.redirect, { redirect: 'manual' })
    expect(start.status).toBe(302)
    const choice = await fetch(`${w.server.url}grant/${g.interactionId}/${g.asNonce}/accept`, {
      method: 'POST',
      headers: { 'x-idp-secret': IDP_SECRET },
    })
    expect(choice.status).toBe(202)
    await expectGnapError('POST', url(g), await continueRequest(w, g, { body: { interact_ref: ref } }), 401, 'request_denied')
  })

  it('refuses to poll a grant that has a finish method with 401 request_denied', async () => {
    const g = remember(await pendingGrant(w))
    await sleep(1000)
    const description = await expectGnapError('POST', url(g), await continueRequest(w, g), 401, 'request_denied')
    expect(description).toContain('cannot be polled')
  })

  it('answers a denied grant with 401 user_denied, polled or with a ref', async () => {
    const g = remember(await pendingGrant(w))
    const ref = interactRefOf(w.server.dbFile, g.continueUri)
    const { finish } = await consent(w.server, g.redirect, 'reject')
    expect(finish.status).toBe(302)
    await sleep(1000)
    await expectGnapError('POST', url(g), await continueRequest(w, g, { body: { interact_ref: ref } }), 401, 'user_denied')
    await expectGnapError('POST', url(g), await continueRequest(w, g), 401, 'user_denied')
  })

  it('answers an issued grant with 401 too_many_attempts for a ref and 401 request_denied for a poll', async () => {
    const g = remember(await approvedGrant(w))
    await sleep(1000)
    const issued = await expectOk<{ access_token: { value: string } }>(
      'POST',
      url(g),
      await continueRequest(w, g, { body: { interact_ref: g.interactRef } }),
    )
    secrets.push(issued.access_token.value)
    await expectGnapError('POST', url(g), await continueRequest(w, g, { body: { interact_ref: g.interactRef } }), 401, 'too_many_attempts')
    await expectGnapError('POST', url(g), await continueRequest(w, g), 401, 'request_denied')

    const direct = remember(await issuedGrant(w))
    secrets.push(direct.token.value)
    await expectGnapError('POST', url(direct), await continueRequest(w, direct), 401, 'request_denied')
    await expectGnapError('POST', url(direct), await continueRequest(w, direct, { body: {} }), 401, 'request_denied')
  })

  it('answers a revoked grant with 401 invalid_continuation', async () => {
    const g = remember(await approvedGrant(w))
    expect((await continueRequest(w, g, { method: 'DELETE' })).status).toBe(204)
    await sleep(1000)
    await expectGnapError('POST', url(g), await continueRequest(w, g, { body: { interact_ref: g.interactRef } }), 401, 'invalid_continuation')
    await expectGnapError('POST', url(g), await continueRequest(w, g), 401, 'invalid_continuation')
  })

  it('lets exactly one of 20 concurrent continuations with the same interact_ref win; the rest get 401 too_many_attempts', async () => {
    const g = remember(await approvedGrant(w))
    await sleep(1000)
    const tokensBefore = rowCounts(w.server.dbFile).AccessToken
    const inits = await Promise.all(
      Array.from({ length: 20 }, () =>
        signedRequest(w.key, { method: 'POST', url: url(g), token: g.continueToken, body: { interact_ref: g.interactRef } }),
      ),
    )
    const answers = await Promise.all(inits.map((init) => fetch(url(g), init)))
    const winners = answers.filter((r) => r.status === 200)
    expect(winners).toHaveLength(1)
    for (const res of answers.filter((r) => r.status !== 200)) await expectGnapError('POST', url(g), res, 401, 'too_many_attempts')
    const won = await expectOk<{ access_token: { value: string } }>('POST', url(g), winners[0]!)
    secrets.push(won.access_token.value)
    expect((await introspect(w.server, won.access_token.value)).body.active).toBe(true)
    expect(rowCounts(w.server.dbFile).AccessToken).toBe(tokensBefore + 1)
  })
})

describe('DELETE /continue/{id}', () => {
  const del = (g: { continueUri: string; continueToken: string }, opts: { token?: string | null; key?: ClientKey } = {}) =>
    continueRequest(w, g, { method: 'DELETE', ...opts })

  it('answers an unknown continue id with 404 invalid_request', async () => {
    const g = remember(await pendingGrant(w))
    const unknown = { continueUri: `${w.server.url}continue/${randomUUID()}`, continueToken: g.continueToken }
    await expectGnapError('DELETE', unknown.continueUri, await del(unknown), 404, 'invalid_request')
  })

  it('refuses a wrong or missing continuation token with 401 invalid_continuation', async () => {
    const g = remember(await pendingGrant(w))
    const other = remember(await pendingGrant(w))
    await expectGnapError('DELETE', g.continueUri, await del(g, { token: other.continueToken }), 401, 'invalid_continuation')
    await expectGnapError('DELETE', g.continueUri, await del(g, { token: null }), 401, 'invalid_continuation')
  })

  it('refuses an unsigned request, or one signed by another key, with invalid_client', async () => {
    const g = remember(await pendingGrant(w))
    const unsigned = await fetch(g.continueUri, { method: 'DELETE', headers: { authorization: `GNAP ${g.continueToken}` } })
    await expectGnapError('DELETE', g.continueUri, unsigned, 401, 'invalid_client')
    await expectGnapError('DELETE', g.continueUri, await del(g, { key: generateClientKey(w.key.kid) }), 401, 'invalid_client')
    // A kid the client does not publish: 401 too, since delete-continue lists no 400 invalid_client.
    await expectGnapError('DELETE', g.continueUri, await del(g, { key: generateClientKey('not-published') }), 401, 'invalid_client')
    // The grant is untouched: the owner can still start the interaction.
    expect((await fetch(g.redirect, { redirect: 'manual' })).status).toBe(302)
  })

  it('answers an already revoked grant with 401 invalid_continuation', async () => {
    const g = remember(await issuedGrant(w))
    secrets.push(g.token.value)
    expect((await del(g)).status).toBe(204)
    await expectGnapError('DELETE', g.continueUri, await del(g), 401, 'invalid_continuation')
    const p = remember(await pendingGrant(w))
    expect((await del(p)).status).toBe(204)
    await expectGnapError('DELETE', p.continueUri, await del(p), 401, 'invalid_continuation')
  })

  it('leaves a rejected grant rejected (204), so continuing still answers user_denied', async () => {
    const g = remember(await pendingGrant(w))
    await consent(w.server, g.redirect, 'reject')
    const res = await del(g)
    expect(res.status).toBe(204)
    expect(await res.text()).toBe('')
    await sleep(1000)
    await expectGnapError('POST', g.continueUri, await continueRequest(w, g), 401, 'user_denied')
  })
})

describe('what the errors gave away', () => {
  it('no description or log line contains a token value, continuation token or secret used here', () => {
    expectNoLeaks(w, secrets)
  })

  it('every answer of the server in this file met the contract', () => {
    expect(w.spec.failures).toEqual([])
  })
})
