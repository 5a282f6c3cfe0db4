import { createHash } from 'node:crypto'
import { createSigner, httpbis } from 'http-message-signatures'
import type { SignatureParameters } from 'http-message-signatures'
import { describe, expect, it } from 'vitest'
import { GnapError } from '../../kernel/errors'
import { generateClientKey, signedHeaders } from '../../testing/client-keys'
import type { ClientKey } from '../../testing/client-keys'
import { readSignatureInputs, verifyHttpSignature as verifyParsed } from './http-signature'
import type { SignedRequest, VerifyHttpSignatureOptions } from './http-signature'

const AS = 'https://as.example'
const key = generateClientKey('key-1')
const otherKey = generateClientKey('key-1')
const grantBody = JSON.stringify({
  access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'read'] }] },
  client: 'https://wallet.example/alice',
})

function toRequest(method: string, url: string, headers: Record<string, string>, body?: string): SignedRequest {
  return {
    method,
    targetUri: url,
    headers: new Headers(headers),
    body: body === undefined ? null : new TextEncoder().encode(body),
  }
}

/** A request signed exactly as the Open Payments SDK signs it. */
async function sdkRequest(
  input: { method: string; path: string; headers?: Record<string, string>; body?: string },
  signer: ClientKey = key,
): Promise<SignedRequest> {
  const url = AS + input.path
  const headers = await signedHeaders(signer, { method: input.method, url, headers: input.headers, body: input.body })
  return toRequest(input.method, url, headers, input.body)
}

/** A signature built by hand with http-message-signatures, for what the SDK never sends (nonce, tag, …). */
async function handSigned(
  input: {
    method: string
    url: string
    headers: Record<string, string>
    fields: string[]
    params?: string[]
    paramValues?: SignatureParameters
    name?: string
  },
  signer: ClientKey = key,
): Promise<Record<string, string>> {
  const signed = await httpbis.signMessage(
    {
      key: createSigner(signer.privateKey, 'ed25519', signer.kid),
      name: input.name ?? 'sig1',
      params: input.params ?? ['keyid', 'created'],
      fields: input.fields,
      ...(input.paramValues !== undefined ? { paramValues: input.paramValues } : {}),
    },
    { method: input.method, url: input.url, headers: input.headers },
  )
  return signed.headers as Record<string, string>
}

type Options = Omit<VerifyHttpSignatureOptions, 'signatures' | 'operation'>

function options(overrides: Partial<Options> = {}): Options {
  return {
    getKey: async (kid) => (kid === key.kid ? key.jwk : null),
    now: new Date(),
    windowSeconds: 300,
    skewSeconds: 30,
    ...overrides,
  }
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; status: number; description: string }> {
  const error = await promise.then(
    () => {
      throw new Error('expected a refusal')
    },
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(GnapError)
  const { code, status, message } = error as GnapError
  return { code, status, description: message }
}

/** Parses the signature headers, then verifies, as for a grant request (post-request). */
const verifyHttpSignature = async (req: SignedRequest, opts: Options) =>
  verifyParsed(req, { ...opts, signatures: readSignatureInputs(req), operation: 'post-request' })

const invalidClient = (description: string, status = 401) => ({ code: 'invalid_client', status, description })

describe('verifyHttpSignature with requests signed by the Open Payments SDK', () => {
  it('accepts a grant request POST with a body', async () => {
    const req = await sdkRequest({ method: 'POST', path: '/', body: grantBody })
    expect(req.headers.get('signature-input')).toMatch(
      /^sig1=\("@method" "@target-uri" "content-digest" "content-length" "content-type"\);keyid="key-1";created=\d+$/,
    )
    await expect(verifyHttpSignature(req, options())).resolves.toEqual({ keyid: 'key-1', label: 'sig1' })
  })

  it('accepts a continue POST with Authorization and a body', async () => {
    const req = await sdkRequest({
      method: 'POST',
      path: '/continue/0f3c',
      headers: { Authorization: 'GNAP 4D1A' },
      body: JSON.stringify({ interact_ref: 'abc' }),
    })
    await expect(verifyHttpSignature(req, options())).resolves.toEqual({ keyid: 'key-1', label: 'sig1' })
  })

  it('accepts a body-less DELETE with Authorization (and the SDK’s Content-Type)', async () => {
    const req = await sdkRequest({ method: 'DELETE', path: '/token/abc', headers: { Authorization: 'GNAP 4D1A' } })
    expect(req.headers.get('content-type')).toBe('application/json')
    expect(req.headers.get('signature-input')).toMatch(/^sig1=\("@method" "@target-uri" "authorization"\);/)
    await expect(verifyHttpSignature(req, options())).resolves.toEqual({ keyid: 'key-1', label: 'sig1' })
  })

  it('accepts a request with a query string', async () => {
    const req = await sdkRequest({ method: 'POST', path: '/token/abc?x=1&y=%20', headers: { Authorization: 'GNAP t' } })
    await expect(verifyHttpSignature(req, options())).resolves.toMatchObject({ label: 'sig1' })
  })

  it('treats an empty body like no body', async () => {
    const req = await sdkRequest({ method: 'POST', path: '/token/abc', headers: { Authorization: 'GNAP t' } })
    await expect(verifyHttpSignature({ ...req, body: new Uint8Array() }, options())).resolves.toMatchObject({
      label: 'sig1',
    })
  })

  it('accepts created within the clock skew', async () => {
    const req = await sdkRequest({ method: 'POST', path: '/', body: grantBody })
    await expect(verifyHttpSignature(req, options({ now: new Date(Date.now() - 20_000) }))).resolves.toBeDefined()
  })
})

describe('readSignatureInputs', () => {
  it('returns the parsed candidate', async () => {
    const req = await sdkRequest({ method: 'POST', path: '/', body: grantBody })
    const [candidate, ...rest] = readSignatureInputs(req)
    expect(rest).toHaveLength(0)
    expect(candidate).toMatchObject({
      label: 'sig1',
      keyid: 'key-1',
      components: [
        { name: '@method', identifier: '"@method"' },
        { name: '@target-uri', identifier: '"@target-uri"' },
        { name: 'content-digest', identifier: '"content-digest"' },
        { name: 'content-length', identifier: '"content-length"' },
        { name: 'content-type', identifier: '"content-type"' },
      ],
    })
    expect(candidate?.signature).toHaveLength(64)
    expect(candidate?.signatureParams).toBe(req.headers.get('signature-input')?.replace(/^sig1=/, ''))
    expect(candidate?.expires).toBeUndefined()
    expect(candidate?.nonce).toBeUndefined()
  })
})

describe('verifyHttpSignature refusals', () => {
  it('refuses a request without Signature', async () => {
    const req = await sdkRequest({ method: 'POST', path: '/', body: grantBody })
    req.headers.delete('signature')
    expect(await refusal(verifyHttpSignature(req, options()))).toEqual(invalidClient('missing Signature header'))
  })

  it('refuses a request without Signature-Input', async () => {
    const req = await sdkRequest({ method: 'POST', path: '/', body: grantBody })
    req.headers.delete('signature-input')
    expect(await refusal(verifyHttpSignature(req, options()))).toEqual(invalidClient('missing Signature-Input header'))
  })

  it.each([
    ['signature-input', 'sig1=("@method" "@target-uri"', 'Signature-Input header is not a structured field dictionary'],
    ['signature', 'sig1=:not base64!:', 'Signature header is not a structured field dictionary'],
  ])('refuses an unparseable %s header', async (header, value, description) => {
    const req = await sdkRequest({ method: 'POST', path: '/', body: grantBody })
    req.headers.set(header, value)
    expect(await refusal(verifyHttpSignature(req, options()))).toEqual(invalidClient(description))
  })

  it('refuses labels that do not match', async () => {
    const req = await sdkRequest({ method: 'POST', path: '/', body: grantBody })
    req.headers.set('signature', req.headers.get('signature')!.replace(/^sig1=/, 'sig2='))
    expect(await refusal(verifyHttpSignature(req, options()))).toEqual(
      invalidClient('no signature label appears in both Signature and Signature-Input'),
    )
  })

  it('refuses a signature value that is not a byte sequence', async () => {
    const req = await sdkRequest({ method: 'POST', path: '/', body: grantBody })
    req.headers.set('signature', 'sig1="abc"')
    expect(await refusal(verifyHttpSignature(req, options()))).toEqual(invalidClient('signature value is not a byte sequence'))
  })

  it.each([
    ['"@target-uri"', 'signature does not cover @method'],
    ['"@method"', 'signature does not cover @target-uri'],
    ['"@method" "@target-uri" "@method"', 'covered component listed twice'],
    ['"@method" "@target-uri" "Accept"', 'covered component names must be lower-case'],
    ['"@method" "@target-uri" accept', 'covered component is not a string'],
    ['"@method" "@target-uri" "@status"', 'signature covers an unsupported derived component'],
    ['"@method" "@target-uri" "accept";req', 'signature covers a component with unsupported parameters'],
    ['"@method";req "@target-uri"', 'signature covers a component with unsupported parameters'],
    ['"@method" "@target-uri" "bad header"', 'covered component is not a valid field name'],
  ])('refuses covered components (%s)', async (components, description) => {
    const url = `${AS}/token/abc`
    const headers = await handSigned({
      method: 'DELETE',
      url,
      headers: { accept: 'application/json' },
      fields: ['@method', '@target-uri'],
    })
    // Shape checks come before the signature, so rewriting the list after signing is enough.
    headers['Signature-Input'] = headers['Signature-Input']!.replace('("@method" "@target-uri")', `(${components})`)
    expect(await refusal(verifyHttpSignature(toRequest('DELETE', url, headers), options()))).toEqual(invalidClient(description))
  })

  it('refuses an Authorization header the signature does not cover', async () => {
    const req = await sdkRequest({ method: 'DELETE', path: '/token/abc' })
    req.headers.set('authorization', 'GNAP 4D1A')
    expect(await refusal(verifyHttpSignature(req, options()))).toEqual(invalidClient('signature does not cover the authorization header'))
  })

  it('refuses a body when content-digest is not covered', async () => {
    const url = `${AS}/`
    const digest = `sha-512=:${createHash('sha512').update(grantBody).digest('base64')}:`
    const headers = await handSigned({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', 'content-digest': digest },
      fields: ['@method', '@target-uri', 'content-type'],
    })
    expect(await refusal(verifyHttpSignature(toRequest('POST', url, headers, grantBody), options()))).toEqual(
      invalidClient('signature does not cover content-digest'),
    )
  })

  it('refuses when a covered header is missing from the request', async () => {
    const req = await sdkRequest({ method: 'POST', path: '/', body: grantBody })
    req.headers.delete('content-length')
    expect(await refusal(verifyHttpSignature(req, options()))).toEqual(invalidClient('covered header content-length is missing from the request'))
  })

  it('refuses a signature created longer ago than the window', async () => {
    const req = await sdkRequest({ method: 'POST', path: '/', body: grantBody })
    const now = new Date(Date.now() + 301_000)
    expect(await refusal(verifyHttpSignature(req, options({ now })))).toEqual(invalidClient('signature created time outside the allowed window'))
  })

  it('refuses a signature created in the future beyond the skew', async () => {
    const req = await sdkRequest({ method: 'POST', path: '/', body: grantBody })
    const now = new Date(Date.now() - 60_000)
    expect(await refusal(verifyHttpSignature(req, options({ now })))).toEqual(invalidClient('signature created time outside the allowed window'))
  })

  it('refuses a signature without created', async () => {
    const url = `${AS}/token/abc`
    const headers = await handSigned({ method: 'DELETE', url, headers: {}, fields: ['@method', '@target-uri'], params: ['keyid'] })
    expect(await refusal(verifyHttpSignature(toRequest('DELETE', url, headers), options()))).toEqual(
      invalidClient('signature created parameter is missing or not an integer'),
    )
  })

  it('refuses a signature without keyid', async () => {
    const url = `${AS}/token/abc`
    const headers = await handSigned({ method: 'DELETE', url, headers: {}, fields: ['@method', '@target-uri'], params: ['created'] })
    expect(await refusal(verifyHttpSignature(toRequest('DELETE', url, headers), options()))).toEqual(
      invalidClient('signature keyid parameter is missing'),
    )
  })

  it('refuses a signature whose expires has passed', async () => {
    const url = `${AS}/token/abc`
    const created = new Date(Date.now() - 60_000)
    const headers = await handSigned({
      method: 'DELETE',
      url,
      headers: {},
      fields: ['@method', '@target-uri'],
      params: ['keyid', 'created', 'expires'],
      paramValues: { created, expires: new Date(created.getTime() + 10_000) },
    })
    expect(await refusal(verifyHttpSignature(toRequest('DELETE', url, headers), options()))).toEqual(invalidClient('signature has expired'))
  })

  it('accepts expires in the future', async () => {
    const url = `${AS}/token/abc`
    const headers = await handSigned({
      method: 'DELETE',
      url,
      headers: {},
      fields: ['@method', '@target-uri'],
      params: ['keyid', 'created', 'expires'],
    })
    await expect(verifyHttpSignature(toRequest('DELETE', url, headers), options())).resolves.toBeDefined()
  })

  it('refuses a replayed nonce, and remembers nonces only once the signature verifies', async () => {
    const seen = new Map<string, Date>()
    const rememberNonce = async (keyid: string, nonce: string, expiresAt: Date) => {
      const id = `${keyid} ${nonce}`
      if (seen.has(id)) return false
      seen.set(id, expiresAt)
      return true
    }
    const url = `${AS}/token/abc`
    const sign = (signer: ClientKey) =>
      handSigned(
        {
          method: 'DELETE',
          url,
          headers: {},
          fields: ['@method', '@target-uri'],
          params: ['keyid', 'created', 'nonce'],
          paramValues: { nonce: 'n-1' },
        },
        signer,
      )

    const forged = toRequest('DELETE', url, await sign(otherKey))
    expect(await refusal(verifyHttpSignature(forged, options({ rememberNonce })))).toEqual(invalidClient('signature does not verify'))
    expect(seen.size).toBe(0)

    const genuine = toRequest('DELETE', url, await sign(key))
    await expect(verifyHttpSignature(genuine, options({ rememberNonce }))).resolves.toBeDefined()
    const remembered = seen.get('key-1 n-1')
    const created = readSignatureInputs(genuine)[0]!.created
    expect(remembered?.getTime()).toBe((created + 300) * 1000)

    expect(await refusal(verifyHttpSignature(genuine, options({ rememberNonce })))).toEqual(invalidClient('signature nonce already used'))
  })

  it.each([
    ['other', 'signature tag parameter is not gnap'],
    ['gnap', null],
  ])('checks tag=%s', async (tag, description) => {
    const url = `${AS}/token/abc`
    const headers = await handSigned({
      method: 'DELETE',
      url,
      headers: {},
      fields: ['@method', '@target-uri'],
      params: ['keyid', 'created', 'tag'],
      paramValues: { tag },
    })
    const result = verifyHttpSignature(toRequest('DELETE', url, headers), options())
    if (description === null) await expect(result).resolves.toBeDefined()
    else expect(await refusal(result)).toEqual(invalidClient(description))
  })

  it.each([
    ['rsa-pss-sha512', 'signature alg parameter is not ed25519'],
    ['ed25519', null],
  ])('checks alg=%s', async (alg, description) => {
    const url = `${AS}/token/abc`
    const headers = await handSigned({
      method: 'DELETE',
      url,
      headers: {},
      fields: ['@method', '@target-uri'],
      params: ['keyid', 'created', 'alg'],
      paramValues: { alg },
    })
    const result = verifyHttpSignature(toRequest('DELETE', url, headers), options())
    if (description === null) await expect(result).resolves.toBeDefined()
    else expect(await refusal(result)).toEqual(invalidClient(description))
  })

  it('refuses a body changed after signing', async () => {
    const req = await sdkRequest({ method: 'POST', path: '/', body: grantBody })
    const tampered = grantBody.replace('alice', 'mallory')
    expect(await refusal(verifyHttpSignature({ ...req, body: new TextEncoder().encode(tampered) }, options()))).toEqual(
      invalidClient('content-digest does not match the body'),
    )
  })

  it('checks the digest against the bytes received, not re-serialised JSON', async () => {
    const req = await sdkRequest({ method: 'POST', path: '/', body: grantBody })
    const reformatted = JSON.stringify(JSON.parse(grantBody), null, 2)
    expect(await refusal(verifyHttpSignature({ ...req, body: new TextEncoder().encode(reformatted) }, options()))).toEqual(
      invalidClient('content-digest does not match the body'),
    )
  })

  it('accepts a sha-256 Content-Digest and refuses one without a known algorithm', async () => {
    const url = `${AS}/`
    const sign = (digest: string) =>
      handSigned({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', 'content-length': String(grantBody.length), 'content-digest': digest },
        fields: ['@method', '@target-uri', 'content-digest', 'content-length', 'content-type'],
      })
    const sha256 = `sha-256=:${createHash('sha256').update(grantBody).digest('base64')}:`
    await expect(verifyHttpSignature(toRequest('POST', url, await sign(sha256), grantBody), options())).resolves.toBeDefined()

    const md5 = `md5=:${createHash('md5').update(grantBody).digest('base64')}:`
    expect(await refusal(verifyHttpSignature(toRequest('POST', url, await sign(md5), grantBody), options()))).toEqual(
      invalidClient('content-digest has no sha-512 or sha-256 entry'),
    )
  })

  it.each([
    ['another scheme', 'http://as.example/continue/abc'],
    ['another path', 'https://as.example/continue/xyz'],
    ['another host', 'https://evil.example/continue/abc'],
  ])('refuses a signature made for %s', async (_, signedUrl) => {
    const headers = await signedHeaders(key, { method: 'POST', url: signedUrl, headers: { Authorization: 'GNAP t' } })
    const req = toRequest('POST', `${AS}/continue/abc`, headers)
    expect(await refusal(verifyHttpSignature(req, options()))).toEqual(invalidClient('signature does not verify'))
  })

  it('refuses a changed covered header', async () => {
    const req = await sdkRequest({ method: 'DELETE', path: '/token/abc', headers: { Authorization: 'GNAP 4D1A' } })
    req.headers.set('authorization', 'GNAP other')
    expect(await refusal(verifyHttpSignature(req, options()))).toEqual(invalidClient('signature does not verify'))
  })

  it('refuses a request signed with another key under the same kid', async () => {
    const req = await sdkRequest({ method: 'POST', path: '/', body: grantBody }, otherKey)
    expect(await refusal(verifyHttpSignature(req, options()))).toEqual(invalidClient('signature does not verify'))
  })

  it('answers 400 when the keyid resolves to no key', async () => {
    const req = await sdkRequest({ method: 'POST', path: '/', body: grantBody }, generateClientKey('key-9'))
    expect(await refusal(verifyHttpSignature(req, options()))).toEqual(invalidClient('could not determine client', 400))
  })

  it('refuses a key that is not Ed25519', async () => {
    const req = await sdkRequest({ method: 'POST', path: '/', body: grantBody })
    const getKey = async () => ({ kty: 'EC', crv: 'P-256', x: 'abc', y: 'def', kid: 'key-1' })
    expect(await refusal(verifyHttpSignature(req, options({ getKey })))).toEqual(invalidClient('client key is not an Ed25519 key'))
  })

  it('accepts when only the second signature (sig2) verifies', async () => {
    const url = `${AS}/continue/abc`
    const first = await signedHeaders(otherKey, { method: 'POST', url, headers: { Authorization: 'GNAP t' } })
    const both = await handSigned({
      method: 'POST',
      url,
      headers: first,
      fields: ['@method', '@target-uri', 'authorization'],
      name: 'sig2',
    })
    const req = toRequest('POST', url, both)
    expect(readSignatureInputs(req).map((c) => c.label)).toEqual(['sig1', 'sig2'])
    await expect(verifyHttpSignature(req, options())).resolves.toEqual({ keyid: 'key-1', label: 'sig2' })
  })

  it('reports the first candidate’s failure when no signature verifies', async () => {
    const url = `${AS}/continue/abc`
    const first = await signedHeaders(otherKey, { method: 'POST', url, headers: { Authorization: 'GNAP t' } })
    const both = await handSigned(
      { method: 'POST', url, headers: first, fields: ['@method', '@target-uri', 'authorization'], name: 'sig2' },
      generateClientKey('key-9'),
    )
    expect(await refusal(verifyHttpSignature(toRequest('POST', url, both), options()))).toEqual(invalidClient('signature does not verify'))
  })

  it('skips a malformed candidate for a well-formed one', async () => {
    const url = `${AS}/continue/abc`
    const headers = await signedHeaders(key, { method: 'POST', url, headers: { Authorization: 'GNAP t' } })
    headers['signature-input'] = `bad=("@target-uri");keyid="key-1";created=1, ${headers['signature-input']}`
    headers['signature'] = `bad=:AAAA:, ${headers['signature']}`
    await expect(verifyHttpSignature(toRequest('POST', url, headers), options())).resolves.toEqual({
      keyid: 'key-1',
      label: 'sig1',
    })
  })

  it('never puts header values in descriptions', async () => {
    const req = await sdkRequest({ method: 'DELETE', path: '/token/abc', headers: { Authorization: 'GNAP SECRET-TOKEN' } })
    req.headers.set('authorization', 'GNAP OTHER-SECRET')
    const { description } = await refusal(verifyHttpSignature(req, options()))
    expect(description).not.toMatch(/SECRET|GNAP|sig1=/)
  })
})

const sha512 = (bytes: string): string => `sha-512=:${createHash('sha512').update(bytes).digest('base64')}:`

describe('verifyHttpSignature: what a signature over a body must cover (docs/protocol.md §4.2 steps 2 and 4)', () => {
  const CONTENT = ['content-digest', 'content-type', 'content-length'] as const
  const subsets = Array.from({ length: 2 ** CONTENT.length }, (_, bits) => CONTENT.filter((_, i) => bits & (1 << i)))

  it.each(subsets.map((subset) => [subset.join(' ') || 'none of them', subset] as const))(
    'with a body, covering %s: only the full set passes',
    async (_, subset) => {
      const url = `${AS}/`
      const headers = await handSigned({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', 'content-length': String(grantBody.length), 'content-digest': sha512(grantBody) },
        fields: ['@method', '@target-uri', ...subset],
      })
      const result = verifyHttpSignature(toRequest('POST', url, headers, grantBody), options())
      const missing = CONTENT.find((field) => !subset.includes(field))
      if (missing === undefined) await expect(result).resolves.toEqual({ keyid: 'key-1', label: 'sig1' })
      else expect(await refusal(result)).toEqual(invalidClient(`signature does not cover ${missing}`))
    },
  )

  it('refuses a continuation signed over content-digest with its interact_ref, sent without its body', async () => {
    // The signature of RFC 9635 §7.3.1's minimum: the digest is covered, the type and length are not.
    const url = `${AS}/continue/0f3c`
    const body = JSON.stringify({ interact_ref: 'b0a8f2c4-0000-4000-8000-000000000000' })
    const headers = await handSigned({
      method: 'POST',
      url,
      headers: { authorization: 'GNAP 4D1A', 'content-type': 'application/json', 'content-digest': sha512(body) },
      fields: ['@method', '@target-uri', 'authorization', 'content-digest'],
    })
    expect(await refusal(verifyHttpSignature(toRequest('POST', url, headers, body), options()))).toEqual(
      invalidClient('signature does not cover content-type'),
    )
    for (const stripped of [null, new Uint8Array()]) {
      expect(await refusal(verifyHttpSignature({ ...toRequest('POST', url, headers), body: stripped }, options()))).toEqual(
        invalidClient('content-digest does not match the body'),
      )
    }
  })

  it('refuses a request signed by the SDK with a body, sent without it', async () => {
    const req = await sdkRequest({
      method: 'POST',
      path: '/continue/0f3c',
      headers: { Authorization: 'GNAP 4D1A' },
      body: JSON.stringify({ interact_ref: 'abc' }),
    })
    expect(await refusal(verifyHttpSignature({ ...req, body: null }, options()))).toEqual(invalidClient('content-digest does not match the body'))
  })

  it('checks a Content-Digest sent without a body against the empty body', async () => {
    const url = `${AS}/token/abc`
    const sign = (digest: string) =>
      handSigned({
        method: 'POST',
        url,
        headers: { authorization: 'GNAP t', 'content-digest': digest },
        fields: ['@method', '@target-uri', 'authorization', 'content-digest'],
      })
    await expect(verifyHttpSignature(toRequest('POST', url, await sign(sha512(''))), options())).resolves.toMatchObject({ label: 'sig1' })
    expect(await refusal(verifyHttpSignature(toRequest('POST', url, await sign(sha512('{}'))), options()))).toEqual(
      invalidClient('content-digest does not match the body'),
    )
  })

  it('refuses a digest that does not match the body even when every content field is covered', async () => {
    const url = `${AS}/`
    const headers = await handSigned({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', 'content-length': String(grantBody.length), 'content-digest': sha512('{}') },
      fields: ['@method', '@target-uri', 'content-digest', 'content-length', 'content-type'],
    })
    expect(await refusal(verifyHttpSignature(toRequest('POST', url, headers, grantBody), options()))).toEqual(
      invalidClient('content-digest does not match the body'),
    )
  })
})
