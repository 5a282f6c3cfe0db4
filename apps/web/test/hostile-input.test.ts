// Hostile input, property-based: generated bodies, headers, path ids and query strings thrown at every
// endpoint of `next start`. Whatever arrives: never a 5xx, never a non-JSON error body from a JSON endpoint (the
// browser pages may answer HTML), and never a write. Some requests carry real ids, real tokens or a valid signature
// by the real client key, so the checks behind the first ones are reached too; none combines all the parts a
// change would need. The rate-limit counters may count (support/fuzz.ts COUNTER_TABLES).
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signedHeaders } from '@gnap/domain/testing'
import { IDP_SECRET, INTROSPECTION_SECRET } from '@gnap/test-support'
import { startWorld, type World } from './support/world'
import { issuedGrant, pendingGrant, type IssuedGrant, type PendingGrant } from './support/raw-http'
import { fingerprint, mutatedGrant } from './support/fuzz'

/** Generated requests per endpoint: bounded so the whole file stays well under a minute. */
const RUNS = 150

let w: World
let issued: IssuedGrant
let pending: PendingGrant
let before: string
const seen = { requests: 0, fiveXX: 0, byStatus: new Map<number, number>() }

beforeAll(async () => {
  // The per-IP grant limit is off here: every caller shares one counter without TRUST_PROXY, and a 429 would hide
  // what the endpoint itself does with the input (and write a counter row).
  w = await startWorld({ RATE_LIMIT_GRANTS_PER_MINUTE_PER_IP: '0' })
  issued = await issuedGrant(w)
  pending = await pendingGrant(w)
  before = fingerprint(w.server.dbFile).digest
})

afterAll(async () => {
  const statuses = [...seen.byStatus.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`)
  console.log(`hostile input: ${seen.requests} generated requests, ${seen.fiveXX} answered 5xx (${statuses.join(', ')})`)
  await w?.stop()
})

// ---- generators -------------------------------------------------------------------------------------------------

const char = (min: number, max: number) => fc.integer({ min, max }).map((c) => String.fromCharCode(c))
/** What a header value may hold on the wire (no CR, LF or NUL; Latin-1 bytes). */
const headerText = fc.string({ unit: fc.oneof(char(0x20, 0x7e), char(0x80, 0xff), fc.constant('\t')), maxLength: 300 })
const base64 = fc.uint8Array({ maxLength: 96 }).map((b) => Buffer.from(b).toString('base64'))
const label = fc.oneof(fc.constant('sig1'), fc.stringMatching(/^[a-z][a-z0-9*_.-]{0,8}$/))

const realIds = () => [
  new URL(issued.continueUri).pathname.split('/').pop()!,
  new URL(issued.token.manage).pathname.split('/').pop()!,
  new URL(pending.continueUri).pathname.split('/').pop()!,
  pending.interactionId,
]
const realTokens = () => [issued.token.value, issued.continueToken, pending.continueToken]

/** A path segment: real and unknown ids, encoded text, raw and broken %-escapes, very long ones. */
const pathId = fc
  .oneof(
    fc.nat({ max: 3 }).map((i) => realIds()[i]!),
    fc.uuid(),
    fc.string({ minLength: 1, maxLength: 80 }).map(encodeURIComponent),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).map(encodeURIComponent),
    fc
      .array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 24 })
      .map((bytes) => bytes.map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('')),
    fc.constantFrom('%', '%Z', '%E0%A4%A', '%00', '%2F', 'a%2Fb', '%C0%AF', '%FF%FE', '%25', '..%2F..', '%2e%2e%2f', 'null', 'undefined', '0', '-1'),
    fc.integer({ min: 100, max: 7000 }).map((n) => 'a'.repeat(n)),
    fc.uuid().map((u) => u.toUpperCase()),
  )
  // "." and ".." are dot segments: the URL parser removes them before the request leaves, so they never reach the endpoint.
  .filter((id) => !/^(\.|%2e){1,2}$/i.test(id))

const query = fc.option(
  fc.oneof(
    fc.dictionary(fc.string({ maxLength: 20 }), fc.string({ maxLength: 200 })).map((d) => new URLSearchParams(d).toString()),
    fc.string({ unit: char(0x21, 0x7e), maxLength: 300 }).map((s) => s.replaceAll('#', '')),
    fc.constantFrom('clientName=%FF&clientUri=javascript:alert(1)', 'a=%', 'interact_ref=x&hash=y', '%%%'),
  ),
  { nil: undefined },
)

const body = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v) ?? 'null'),
  fc.integer({ min: 20, max: 20_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.integer({ min: 20, max: 3_000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
  fc.integer({ min: 1_000, max: 25_000 }).map((n) => JSON.stringify(Array.from({ length: n }, (_, i) => i))),
  fc.string({ maxLength: 2_000 }),
  fc.uint8Array({ minLength: 1, maxLength: 2_000 }),
  // Chained so the real wallet address (known once the world started) is read when values are generated.
  fc.constant(null).chain(() => mutatedGrant(w)),
)

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined })

const headers = fc.record({
  signature: maybe(
    fc.oneof(
      headerText,
      fc.tuple(label, base64).map(([l, b]) => `${l}=:${b}:`),
    ),
  ),
  'signature-input': maybe(
    fc.oneof(
      headerText,
      fc
        .tuple(
          label,
          fc.subarray(['"@method"', '"@target-uri"', '"authorization"', '"content-digest"', '"content-length"', '"content-type"', '"x"']),
          headerText,
          fc.integer(),
        )
        .map(([l, c, kid, created]) => `${l}=(${c.join(' ')});keyid="${kid.replace(/["\\]/g, '')}";created=${created}`),
    ),
  ),
  'content-digest': maybe(
    fc.oneof(
      headerText,
      base64.map((b) => `sha-512=:${b}:`),
      base64.map((b) => `sha-256=:${b}:`),
    ),
  ),
  authorization: maybe(
    fc.oneof(
      headerText,
      headerText.map((t) => `GNAP ${t}`),
      fc.nat({ max: 2 }).map((i) => `GNAP ${realTokens()[i]!}`),
      fc.constant(`Bearer ${INTROSPECTION_SECRET}`),
    ),
  ),
  'content-type': maybe(
    fc.oneof(headerText, fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/jsonp', '')),
  ),
  'x-idp-secret': maybe(fc.oneof(headerText, fc.constant(IDP_SECRET))),
  accept: maybe(fc.oneof(headerText, fc.constantFrom('application/json', 'text/html', '*/*'))),
  cookie: maybe(
    fc.oneof(
      headerText,
      headerText.map((t) => `gnap_interaction=${t.replace(/;/g, '')}`),
    ),
  ),
})

// ---- endpoints --------------------------------------------------------------------------------------------------

interface Endpoint {
  method: 'GET' | 'POST' | 'DELETE'
  path: fc.Arbitrary<string>
  /** A browser page: may answer HTML. */
  page?: boolean
}

const nonce = fc.oneof(fc.stringMatching(/^[0-9A-F]{32}$/), pathId)
const endpoints: Record<string, Endpoint> = {
  'POST /': { method: 'POST', path: fc.constant('') },
  'POST /continue/{id}': { method: 'POST', path: pathId.map((id) => `continue/${id}`) },
  'DELETE /continue/{id}': { method: 'DELETE', path: pathId.map((id) => `continue/${id}`) },
  'POST /token/{id}': { method: 'POST', path: pathId.map((id) => `token/${id}`) },
  'DELETE /token/{id}': { method: 'DELETE', path: pathId.map((id) => `token/${id}`) },
  'POST /introspect': { method: 'POST', path: fc.constant('introspect') },
  'GET /grant/{id}/{nonce}': { method: 'GET', path: fc.tuple(pathId, nonce).map(([id, n]) => `grant/${id}/${n}`) },
  'POST /grant/{id}/{nonce}/{choice}': {
    method: 'POST',
    path: fc.tuple(pathId, nonce, fc.oneof(fc.constantFrom('accept', 'reject'), pathId)).map(([id, n, c]) => `grant/${id}/${n}/${c}`),
  },
  'GET /interact/{id}/{nonce}': { method: 'GET', page: true, path: fc.tuple(pathId, nonce).map(([id, n]) => `interact/${id}/${n}`) },
  'GET /interact/{id}/{nonce}/finish': { method: 'GET', page: true, path: fc.tuple(pathId, nonce).map(([id, n]) => `interact/${id}/${n}/finish`) },
}

const request = (e: Endpoint) =>
  fc.record({
    path: e.path,
    query,
    headers,
    body: e.method === 'GET' ? fc.constant(undefined) : body,
    // Signed by the real client key over exactly these bytes (with a random GNAP token): passes the signature checks.
    signed: fc.boolean(),
    token: headerText,
  })

interface GeneratedRequest {
  path: string
  query: string | undefined
  headers: Record<string, string | undefined>
  body: string | Uint8Array | undefined
  signed: boolean
  token: string
}

async function send(e: Endpoint, r: GeneratedRequest) {
  const url = `${w.server.url}${r.path}${r.query !== undefined ? `?${r.query}` : ''}`
  const headerList: Record<string, string> = {}
  for (const [name, value] of Object.entries(r.headers)) if (value !== undefined) headerList[name] = value
  const payload: string | Blob | undefined = r.body instanceof Uint8Array ? new Blob([new Uint8Array(r.body)]) : r.body
  // Never a valid signature on an almost-valid grant request of the real client: that one could be valid and write.
  if (r.signed && typeof r.body !== 'object' && isCompactJson(r.body) && !r.body?.includes(w.walletAddress)) {
    Object.assign(
      headerList,
      await signedHeaders(w.key, {
        method: e.method,
        url,
        headers: { authorization: `GNAP ${r.token.trim() || 'x'}` },
        ...(r.body !== undefined ? { body: r.body } : {}),
      }),
    )
  }
  const res = await fetch(url, { method: e.method, headers: headerList, redirect: 'manual', ...(payload !== undefined ? { body: payload } : {}) })
  const text = await res.text()
  seen.requests++
  seen.byStatus.set(res.status, (seen.byStatus.get(res.status) ?? 0) + 1)
  if (res.status >= 500) seen.fiveXX++
  return { status: res.status, type: res.headers.get('content-type') ?? '', text }
}

function isCompactJson(text: string | undefined): boolean {
  if (text === undefined) return true
  try {
    return JSON.stringify(JSON.parse(text)) === text
  } catch {
    return false
  }
}

describe.each(Object.entries(endpoints))('%s under hostile input', (_name, endpoint) => {
  it(`never answers 5xx, answers errors as ${endpoint.page ? 'a page or GNAP JSON' : 'GNAP JSON'}, and writes nothing`, async () => {
    await fc.assert(
      fc.asyncProperty(request(endpoint), async (r) => {
        const res = await send(endpoint, r)
        const where = `${endpoint.method} /${r.path.slice(0, 120)}`
        expect(res.status, `${where} answered ${res.status} ${res.text.slice(0, 200)}`).toBeLessThan(500)
        if (res.text.length === 0) return
        if (endpoint.page && res.type.startsWith('text/html')) return
        expect(res.type, `${where}: ${res.status} ${res.text.slice(0, 200)}`).toMatch(/^application\/json/)
        const json = JSON.parse(res.text) as unknown
        if (res.status >= 400) expect(json, where).toEqual({ error: { code: expect.any(String), description: expect.any(String) } })
      }),
      { numRuns: RUNS },
    )
    expect(fingerprint(w.server.dbFile).digest).toBe(before)
  })
})

describe('the generators', () => {
  it('reach the checks behind the first ones: some generated requests got past the signature layer', () => {
    // 401 is the signature layer; anything else (400 body, 404 unknown id, 413, 200 introspection) is further in.
    const beyond = [...seen.byStatus.entries()].filter(([s]) => s !== 401).reduce((n, [, c]) => n + c, 0)
    expect(seen.requests).toBeGreaterThanOrEqual(Object.keys(endpoints).length * RUNS)
    expect(beyond).toBeGreaterThan(seen.requests / 4)
    expect(seen.fiveXX).toBe(0)
  })

  it('still serve the real client afterwards', async () => {
    const res = await fetch(`${w.server.url}introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${INTROSPECTION_SECRET}` },
      body: JSON.stringify({ access_token: issued.token.value }),
    })
    expect(await res.json()).toMatchObject({ active: true })
  })
})
