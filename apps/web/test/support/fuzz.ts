// The fuzz suite's parts: generators of hostile HTTP requests for every endpoint of the server (and for paths it
// does not have), a raw sender on node:http (any method, duplicate and forged headers, chunked or oversize bodies),
// the rules every answer must keep, and a fingerprint of the database. Used by test/fuzz.test.ts: a seed-stable
// share in the normal suite, and `pnpm test:fuzz` with FUZZ_REQUESTS=10000.
import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import path from 'node:path'
import { createHash } from 'node:crypto'
import fc from 'fast-check'
import { signedHeaders } from '@gnap/domain/testing'
import { IDP_SECRET, INTROSPECTION_SECRET } from '@gnap/test-support'
import { withDb } from './db'
import type { IssuedGrant, PendingGrant } from './raw-http'
import type { World } from './world'

/** What the server's answers must look like on a path: GNAP JSON, the console's JSON API, or anything (pages). */
export type Kind = 'gnap' | 'trpc' | 'page'

export interface FuzzTarget {
  w: World
  issued: IssuedGrant
  pending: PendingGrant
}

export interface HostileRequest {
  endpoint: string
  kind: Kind
  method: string
  path: string
  query: string | undefined
  /** Header name → value; an array sends the header once per value (duplicates). */
  headers: Record<string, string | string[]>
  body: string | Uint8Array | undefined
  /** Sent with Transfer-Encoding: chunked instead of Content-Length. */
  chunked: boolean
  /** Signed by the real client key over exactly these bytes, with `token` as the GNAP token. */
  signed: boolean
  token: string
}

export interface Answer {
  status: number
  type: string
  text: string
}

// ---- generators -------------------------------------------------------------------------------------------------

const char = (min: number, max: number) => fc.integer({ min, max }).map((c) => String.fromCharCode(c))
/** What a header value may hold on the wire (no CR, LF or NUL; Latin-1 bytes). */
const headerText = fc.string({ unit: fc.oneof(char(0x20, 0x7e), char(0x80, 0xff), fc.constant('\t')), maxLength: 300 })
const base64 = fc.uint8Array({ maxLength: 96 }).map((b) => Buffer.from(b).toString('base64'))
const label = fc.oneof(fc.constant('sig1'), fc.stringMatching(/^[a-z][a-z0-9*_.-]{0,8}$/))
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 })
/** Text with the characters parsers trip on: NUL and control characters, lone surrogates, RTL marks, emoji. */
const nastyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 100 }),
  fc.constantFrom('\u0000', 'a\u0000b', '\uD800', '\uDFFF\uD800', '\u202Eevil', '\uFEFF', '🙂'.repeat(50), 'e\u0301', '\u0085\u2028\u2029', ''),
  fc.integer({ min: 1_000, max: 60_000 }).map((n) => 'x'.repeat(n)),
)
const hugeNumber = fc.constantFrom(
  '1e309',
  '-1e309',
  '123456789012345678901234567890',
  '1.7976931348623157e308',
  '5e-324',
  '-0',
  '0.1e-999999',
  `9${'9'.repeat(400)}`,
  '1E+2',
)
/** Keys that would pollute prototypes if a parser copied them naively. */
const pollutionKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__')
const pollution = fc.tuple(pollutionKey, fc.jsonValue({ maxDepth: 2 }), fc.nat({ max: 2 })).map(([k, v, shape]) => {
  const inner = JSON.stringify(v) ?? 'null'
  return [`{"${k}":${inner}}`, `{"${k}":{"isAdmin":true,"polluted":${inner}}}`, `{"access_token":{"${k}":{"access":[]}}}`][shape]!
})

export interface RealValues {
  ids: string[]
  /** Paths of real files: public/ and a few of the build's assets. */
  files: string[]
  tokens: string[]
  walletAddress: string
}

/** A path segment: real and unknown ids, encoded text, raw and broken %-escapes, traversal, very long ones. */
const pathId = (real: RealValues) =>
  fc
    .oneof(
      fc.constantFrom(...real.ids),
      fc.uuid(),
      fc.string({ minLength: 1, maxLength: 80 }).map(encodeURIComponent),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).map(encodeURIComponent),
      fc
        .array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 24 })
        .map((bytes) => bytes.map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('')),
      fc.constantFrom(
        '%',
        '%Z',
        '%E0%A4%A',
        '%00',
        'a%00b',
        '%2F',
        'a%2Fb',
        '%C0%AF',
        '%FF%FE',
        '%25',
        '..%2F..',
        '%2e%2e%2f',
        '..%5C..%5Cetc%5Cpasswd',
        '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
        '%252e%252e%252f',
        'null',
        'undefined',
        '__proto__',
        'constructor',
        '0',
        '-1',
        '%EF%BC%8E%EF%BC%8E',
      ),
      fc.integer({ min: 100, max: 7000 }).map((n) => 'a'.repeat(n)),
      fc.uuid().map((u) => u.toUpperCase()),
    )
    // "." and ".." are dot segments: the URL parser removes them before the request leaves, so they never reach the endpoint.
    .filter((id) => !/^(\.|%2e){1,2}$/i.test(id))

const query = maybe(
  fc.oneof(
    fc.dictionary(fc.string({ maxLength: 20 }), fc.string({ maxLength: 200 })).map((d) => new URLSearchParams(d).toString()),
    fc.string({ unit: char(0x21, 0x7e), maxLength: 300 }).map((s) => s.replaceAll('#', '')),
    fc.constantFrom(
      'clientName=%FF&clientUri=javascript:alert(1)',
      'a=%',
      'interact_ref=x&hash=y',
      '%%%',
      'batch=1',
      'batch=1&input=%7B%220%22%3A%7B%7D%7D',
      'input=%7B%22__proto__%22%3A%7B%7D%7D',
      'failed',
      `x=${'y'.repeat(6000)}`,
    ),
  ),
)

/** A grant request that is almost right, with one part replaced by a random (often hostile) value. */
export const mutatedGrant = (real: Pick<RealValues, 'walletAddress'>) =>
  fc
    .tuple(
      fc.constantFrom('client', 'access_token', 'access', 'item', 'type', 'actions', 'identifier', 'limits', 'interact', 'finish', 'extra'),
      fc.oneof(fc.jsonValue({ maxDepth: 3 }), nastyText),
    )
    .map(([where, value]) => {
      const item: Record<string, unknown> = {
        type: 'outgoing-payment',
        actions: ['create', 'read'],
        identifier: 'https://wallet.example/alice',
        limits: { debitAmount: { value: '100', assetCode: 'USD', assetScale: 2 } },
      }
      const body: Record<string, unknown> = {
        access_token: { access: [item] },
        client: real.walletAddress,
        interact: { start: ['redirect'], finish: { method: 'redirect', uri: 'https://client.example/finish', nonce: 'n' } },
      }
      if (where === 'client') body.client = value
      else if (where === 'access_token') body.access_token = value
      else if (where === 'access') body.access_token = { access: value }
      else if (where === 'item') body.access_token = { access: [value] }
      else if (where === 'interact') body.interact = value
      else if (where === 'finish') body.interact = { start: ['redirect'], finish: value }
      // JSON text, not String(): generated objects may have no prototype, so no toString either.
      else if (where === 'extra') body[(typeof value === 'string' ? value : (JSON.stringify(value) ?? '')).slice(0, 20) || 'x'] = value
      else item[where] = value
      return JSON.stringify(body)
    })

/** A JSON body with a number no double holds, in a place a number is expected. */
const numberBody = hugeNumber.chain((n) =>
  fc.constantFrom(
    `{"access_token":{"access":[{"type":"outgoing-payment","actions":["create"],"identifier":"https://w.example/a","limits":{"debitAmount":{"value":"1","assetCode":"USD","assetScale":${n}}}}]},"client":"https://w.example/c"}`,
    `{"access_token":${n}}`,
    `[${n}]`,
    n,
    `{"interact_ref":${n}}`,
  ),
)

const body = (real: RealValues) =>
  fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 2 },
    { arbitrary: fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v) ?? 'null'), weight: 3 },
    { arbitrary: fc.integer({ min: 20, max: 20_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)), weight: 1 },
    { arbitrary: fc.integer({ min: 20, max: 3_000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)), weight: 1 },
    { arbitrary: fc.integer({ min: 1_000, max: 25_000 }).map((n) => JSON.stringify(Array.from({ length: n }, (_, i) => i))), weight: 1 },
    // Over the 64 KiB cap: refused with 413 before parsing.
    { arbitrary: fc.integer({ min: 65 * 1024, max: 300 * 1024 }).map((n) => `{"a":"${'x'.repeat(n)}"}`), weight: 1 },
    { arbitrary: fc.string({ maxLength: 2_000 }), weight: 1 },
    { arbitrary: nastyText.map((t) => JSON.stringify({ access_token: t, interact_ref: t, client: t })), weight: 2 },
    { arbitrary: fc.uint8Array({ minLength: 1, maxLength: 2_000 }), weight: 1 },
    { arbitrary: fc.constantFrom('{', '{"a":1,}', '{"a":1}{"b":2}', "{'a':1}", '\u0000', 'null', '""', '[]', '{"a":NaN}', '\uFEFF{}'), weight: 1 },
    { arbitrary: pollution, weight: 2 },
    { arbitrary: numberBody, weight: 1 },
    { arbitrary: mutatedGrant(real), weight: 3 },
    // What the consent screen's forms and the console's API take.
    {
      arbitrary: fc
        .dictionary(fc.constantFrom('email', 'password', 'csrf', 'choice', '__proto__'), nastyText)
        .map((d) => new URLSearchParams(d).toString()),
      weight: 1,
    },
    {
      arbitrary: fc
        .tuple(fc.jsonValue({ maxDepth: 3 }), nastyText)
        .map(([v, t]) => JSON.stringify({ 0: { json: v }, 1: { json: { email: t, password: t } }, json: { grantId: t } })),
      weight: 1,
    },
  )

const contentType = maybe(
  fc.oneof(
    headerText,
    fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json; charset=latin1',
      'text/plain',
      'application/jsonp',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json, text/html',
      '',
    ),
  ),
)

const headers = (real: RealValues) =>
  fc
    .record({
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
              fc.subarray([
                '"@method"',
                '"@target-uri"',
                '"authorization"',
                '"content-digest"',
                '"content-length"',
                '"content-type"',
                '"x"',
                '"@query"',
              ]),
              headerText,
              fc.oneof(fc.integer(), fc.constantFrom(1e21, -1, 0, Date.now() / 1000 + 1e9)),
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
          headerText.map((t) => `Bearer ${t}`),
          fc.constantFrom(...real.tokens).map((t) => `GNAP ${t}`),
          fc.constant(`Bearer ${INTROSPECTION_SECRET}`),
        ),
      ),
      'content-type': contentType,
      'x-idp-secret': maybe(fc.oneof(headerText, fc.constant(IDP_SECRET))),
      accept: maybe(fc.oneof(headerText, fc.constantFrom('application/json', 'text/html', '*/*', 'application/json, text/html'))),
      cookie: maybe(
        fc.oneof(
          headerText,
          headerText.map((t) => `gnap_interaction=${t.replace(/;/g, '')}`),
          headerText.map((t) => `gnap_owner=${t.replace(/;/g, '')}; gnap_admin=${t.replace(/;/g, '')}`),
        ),
      ),
      'x-csrf-token': maybe(headerText),
      'x-forwarded-for': maybe(fc.oneof(headerText, fc.ipV4(), fc.ipV6(), fc.constantFrom('unknown', '::1, 127.0.0.1', '1.1.1.1, 2.2.2.2, 3.3.3.3'))),
      'x-forwarded-host': maybe(fc.oneof(headerText, fc.domain())),
      'x-forwarded-proto': maybe(fc.constantFrom('https', 'http', 'gopher', '')),
      origin: maybe(fc.oneof(headerText, fc.webUrl(), fc.constant('null'))),
      'sec-fetch-site': maybe(fc.constantFrom('same-origin', 'cross-site', 'none', 'same-site', 'x')),
      'x-middleware-subrequest': maybe(
        fc.constantFrom('middleware', 'src/middleware:src/middleware:src/middleware:src/middleware:src/middleware', 'proxy'),
      ),
      'x-http-method-override': maybe(fc.constantFrom('DELETE', 'PUT', 'GET')),
      range: maybe(fc.constantFrom('bytes=0-1', 'bytes=-1', 'bytes=9999999999-')),
    })
    .chain((h) =>
      // Duplicated headers: each value sent on its own line, as proxies and hostile clients may.
      fc
        .subarray(['authorization', 'content-type', 'signature', 'signature-input', 'content-digest', 'x-idp-secret', 'cookie', 'x-forwarded-for'], {
          maxLength: 3,
        })
        .chain((dups) =>
          fc.tuple(...dups.map(() => headerText)).map((extra) => {
            const out: Record<string, string | string[]> = {}
            for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = v
            dups.forEach((name, i) => {
              const first = out[name]
              out[name] = [...(first === undefined ? [] : Array.isArray(first) ? first : [first]), extra[i] ?? '']
            })
            return out
          }),
        ),
    )

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'MKCOL', 'SEARCH', 'PURGE', 'X-HOSTILE']

interface Endpoint {
  name: string
  kind: Kind
  /** The methods the endpoint takes; others are tried too, less often. */
  methods: string[]
  path: fc.Arbitrary<string>
  weight: number
}

const TRPC_PROCEDURES = [
  'auth.signIn',
  'auth.verifyCode',
  'auth.session',
  'auth.signOut',
  'audit.list',
  'clients.list',
  'grants.list',
  'grants.byId',
  'grants.revoke',
  'stats.overview',
  'tokens.chain',
  'tokens.byManagementId',
  'tokens.revoke',
]

function endpoints(real: RealValues): Endpoint[] {
  const id = pathId(real)
  const nonce = fc.oneof(fc.stringMatching(/^[0-9A-F]{32}$/), id)
  const interaction = fc.tuple(id, nonce).map(([i, n]) => `${i}/${n}`)
  return [
    { name: 'POST /', kind: 'gnap', methods: ['POST'], path: fc.constant(''), weight: 4 },
    { name: '/continue/{id}', kind: 'gnap', methods: ['POST', 'DELETE'], path: id.map((i) => `continue/${i}`), weight: 3 },
    { name: '/token/{id}', kind: 'gnap', methods: ['POST', 'DELETE'], path: id.map((i) => `token/${i}`), weight: 3 },
    { name: 'POST /introspect', kind: 'gnap', methods: ['POST'], path: fc.constant('introspect'), weight: 3 },
    { name: 'GET /grant/{id}/{nonce}', kind: 'gnap', methods: ['GET'], path: interaction.map((p) => `grant/${p}`), weight: 2 },
    {
      name: 'POST /grant/{id}/{nonce}/{choice}',
      kind: 'gnap',
      methods: ['POST'],
      path: fc.tuple(interaction, fc.oneof(fc.constantFrom('accept', 'reject'), id)).map(([p, c]) => `grant/${p}/${c}`),
      weight: 2,
    },
    { name: 'GET /interact/{id}/{nonce}', kind: 'page', methods: ['GET'], path: interaction.map((p) => `interact/${p}`), weight: 2 },
    {
      name: '/interact/{id}/{nonce}/{step}',
      kind: 'page',
      methods: ['GET', 'POST'],
      path: fc.tuple(interaction, fc.constantFrom('finish', 'consent', 'sign-in', 'decision', 'sign-out')).map(([p, s]) => `interact/${p}/${s}`),
      weight: 3,
    },
    {
      name: '/api/trpc/{procedure}',
      kind: 'trpc',
      methods: ['GET', 'POST'],
      path: fc
        .oneof(
          fc.constantFrom(...TRPC_PROCEDURES),
          fc.array(fc.constantFrom(...TRPC_PROCEDURES), { minLength: 2, maxLength: 60 }).map((p) => p.join(',')),
          id,
        )
        .map((p) => `api/trpc/${p}`),
      weight: 3,
    },
    {
      name: 'admin pages',
      kind: 'page',
      methods: ['GET'],
      path: fc.oneof(
        fc.constantFrom('admin', 'admin/sign-in', 'admin/grants', 'admin/audit'),
        id.map((i) => `admin/grants/${i}`),
        id.map((i) => `admin/tokens/${i}`),
      ),
      weight: 1,
    },
    {
      name: 'unknown paths',
      kind: 'page',
      methods: METHODS,
      path: fc.oneof(
        fc.array(id, { minLength: 1, maxLength: 6 }).map((s) => s.join('/')),
        fc.constantFrom(...real.files),
        fc.constantFrom(
          '../../etc/passwd',
          '..%2f..%2fetc%2fpasswd',
          'continue',
          'continue/',
          'token',
          'grant',
          'interact',
          '_next/static/../../../package.json',
          '_next/image?url=http://127.0.0.1:22',
          '_next/data/x.json',
          'api',
          'api/trpc',
          'api/trpc/',
          '.env',
          'favicon.ico',
          'pages.css',
          '%2e%2e/%2e%2e/etc/passwd',
          'introspect/x',
          'continue/a/b',
          'grant/a/b/c/d',
          'interact/a/b/c/d',
        ),
      ),
      weight: 2,
    },
  ]
}

/** Every hostile request: an endpoint (weighted), usually one of its methods, its path, headers and body. */
export function hostileRequests(real: RealValues): fc.Arbitrary<HostileRequest> {
  const one = (e: Endpoint): fc.Arbitrary<HostileRequest> =>
    fc
      .record({
        method: fc.oneof({ arbitrary: fc.constantFrom(...e.methods), weight: 4 }, { arbitrary: fc.constantFrom(...METHODS), weight: 1 }),
        path: e.path,
        query,
        headers: headers(real),
        body: body(real),
        chunked: fc.boolean(),
        signed: fc.boolean(),
        token: headerText,
      })
      .map((r) => ({
        ...r,
        endpoint: e.name,
        kind: e.kind,
        // GET and HEAD carry no body here: no endpoint reads one.
        body: r.method === 'GET' || r.method === 'HEAD' ? undefined : r.body,
      }))
  return fc.oneof(...endpoints(real).map((e) => ({ weight: e.weight, arbitrary: one(e) })))
}

export function realValues(t: FuzzTarget): RealValues {
  const last = (u: string) => new URL(u).pathname.split('/').pop() ?? ''
  return {
    ids: [last(t.issued.continueUri), last(t.issued.token.manage), last(t.pending.continueUri), t.pending.interactionId],
    tokens: [t.issued.token.value, t.issued.continueToken, t.pending.continueToken],
    walletAddress: t.w.walletAddress,
    files: [
      'pages.css',
      ...fs
        .readdirSync(path.join(import.meta.dirname, '..', '..', '.next', 'static', 'chunks'))
        .filter((f) => f.endsWith('.js') || f.endsWith('.css'))
        .slice(0, 3)
        .map((f) => `_next/static/chunks/${f}`),
    ],
  }
}

// ---- sending ----------------------------------------------------------------------------------------------------

// One connection per request: an answer (or a reset) always belongs to the request that caused it.
const agent = new http.Agent({ keepAlive: false })

/** Sends one request with node:http and reads the whole answer; a connection the server closed counts as status 0. */
export async function send(t: FuzzTarget, r: HostileRequest): Promise<Answer> {
  const base = new URL(t.w.server.url)
  const target = `/${r.path}${r.query !== undefined ? `?${r.query}` : ''}`
  const headersOut: Record<string, string | string[]> = { ...r.headers }
  // Never a valid signature on an almost-valid grant request of the real client: that one could be valid and write.
  if (r.signed && typeof r.body !== 'object' && isCompactJson(r.body) && !r.body?.includes(t.w.walletAddress)) {
    const signed = await signedHeaders(t.w.key, {
      method: r.method,
      url: `${t.w.server.url}${r.path}${r.query !== undefined ? `?${r.query}` : ''}`,
      headers: { authorization: `GNAP ${r.token.trim() || 'x'}` },
      ...(r.body !== undefined ? { body: r.body } : {}),
    })
    Object.assign(headersOut, signed)
  }
  const payload = r.body === undefined ? undefined : typeof r.body === 'string' ? Buffer.from(r.body) : Buffer.from(r.body)
  // Framed one way or the other: Node's client sends a DELETE or OPTIONS body unframed unless told to chunk it,
  // and those bytes would reach the server as a second, garbage request on the same connection. A signed request
  // keeps the Content-Length its signature covers (both headers together are refused before any endpoint, rightly).
  const chunked = r.chunked && !Object.keys(headersOut).some((name) => name.toLowerCase() === 'content-length')
  if (payload && !chunked) headersOut['content-length'] = String(payload.length)
  if (payload && chunked) headersOut['transfer-encoding'] = 'chunked'
  return new Promise<Answer>((resolve) => {
    let settled = false
    const done = (a: Answer) => {
      if (!settled) {
        settled = true
        resolve(a)
      }
    }
    let req: http.ClientRequest
    try {
      req = http.request({ host: base.hostname, port: base.port, method: r.method, path: target, headers: headersOut, agent }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          done({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }),
        )
        res.on('error', () => done({ status: res.statusCode ?? 0, type: '', text: '' }))
      })
    } catch (e) {
      // Node's client refuses what it cannot put on the wire (a path with raw spaces, say): not a request at all.
      done({ status: -1, type: '', text: e instanceof Error ? e.message : String(e) })
      return
    }
    req.on('error', (e) => done({ status: 0, type: '', text: `${(e as NodeJS.ErrnoException).code ?? ''} ${e.message}` }))
    if (payload) req.end(payload)
    else req.end()
  })
}

function isCompactJson(text: string | undefined): boolean {
  if (text === undefined) return true
  try {
    return JSON.stringify(JSON.parse(text)) === text
  } catch {
    return false
  }
}

export function closeAgent(): void {
  agent.destroy()
}

// ---- rules ------------------------------------------------------------------------------------------------------

/** The server's body cap (src/server/edge/limits.ts). */
const MAX_BODY_BYTES = 64 * 1024

const bodyLength = (r: HostileRequest) => (r.body === undefined ? 0 : typeof r.body === 'string' ? Buffer.byteLength(r.body) : r.body.length)

/** What is wrong with an answer (null when nothing): a 5xx, or a body a JSON endpoint should not give. */
export function violation(r: HostileRequest, a: Answer): string | null {
  const where = `${r.method} /${r.path.slice(0, 100)}${r.query ? `?${r.query.slice(0, 40)}` : ''}`
  if (a.status >= 500) return `${where} answered ${a.status}: ${a.text.slice(0, 200)}`
  // A body over the cap is refused without being read, and a method Node's HTTP parser does not know is refused by
  // the parser itself (400, then the connection closes): the server may close while the body is still being sent,
  // so the client sees a reset instead of the 413 or 400. Any other request must get an answer.
  if (a.status === 0) {
    const refusedUnread = bodyLength(r) > MAX_BODY_BYTES || !http.METHODS.includes(r.method)
    return refusedUnread ? null : `${where}: connection closed without an answer (${a.text})`
  }
  if (a.text.length === 0 || r.kind === 'page' || r.method === 'HEAD') return null
  if (!/^application\/json\s*(;|$)/i.test(a.type)) return `${where} answered ${a.status} with ${a.type || 'no content-type'}: ${a.text.slice(0, 120)}`
  let json: unknown
  try {
    json = JSON.parse(a.text)
  } catch {
    return `${where} answered ${a.status} with a body that is not JSON: ${a.text.slice(0, 120)}`
  }
  if (r.kind === 'gnap' && a.status >= 400) {
    const error = (json as { error?: Record<string, unknown> } | null)?.error
    const ok =
      json !== null &&
      typeof json === 'object' &&
      Object.keys(json).join() === 'error' &&
      error !== undefined &&
      Object.keys(error).sort().join() === 'code,description' &&
      typeof error.code === 'string' &&
      typeof error.description === 'string'
    if (!ok) return `${where} answered ${a.status} without a GNAP error body: ${a.text.slice(0, 120)}`
  }
  return null
}

// ---- the database -----------------------------------------------------------------------------------------------

/**
 * Tables hostile requests may write: the fixed-window counters of the rate limits (wrong shared secrets, failed
 * sign-ins, grant requests), which count exactly the attempts this suite makes. Every other table must not change.
 */
export const COUNTER_TABLES = ['RateLimit']

/** A digest of every row of every table but the counters, and the row counts, of the server's SQLite file. */
export function fingerprint(dbFile: string): { digest: string; rows: Record<string, number> } {
  return withDb(dbFile, (db) => {
    const tables = (
      db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as { name: string }[]
    )
      .map((t) => t.name)
      .filter((name) => !COUNTER_TABLES.includes(name) && name !== '_prisma_migrations')
    const hash = createHash('sha256')
    const rows: Record<string, number> = {}
    for (const name of tables) {
      const all = db.prepare(`SELECT * FROM "${name}" ORDER BY 1, 2`).all()
      rows[name] = all.length
      hash.update(`${name}\n${JSON.stringify(all)}\n`)
    }
    return { digest: hash.digest('hex'), rows }
  })
}

// ---- bytes on the wire ------------------------------------------------------------------------------------------

/**
 * Requests only a raw socket can send: NUL and control bytes in the request line or headers, bare LF, absolute-form
 * and asterisk-form targets, conflicting Content-Length and Transfer-Encoding, HTTP versions we do not speak, a
 * missing or empty Host, oversize URLs and header blocks.
 */
export function wireRequests(real: RealValues): fc.Arbitrary<string> {
  const target = fc.oneof(
    fc.constantFrom('/', '/introspect', '/continue/x', `/interact/${real.ids[3] ?? 'x'}/n`, '/api/trpc/auth.session', '/pages.css', '/admin'),
    fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 60 }).map((s) => `/${s.replace(/[\r\n ]/g, '')}`),
    fc.constantFrom('*', 'http://evil.example/', 'https://127.0.0.1:1/introspect', '//evil.example/x', '/a\u0000b', '/../../etc/passwd', '/%00', 'x'),
    fc.integer({ min: 8_000, max: 40_000 }).map((n) => `/${'a'.repeat(n)}`),
  )
  const method = fc.oneof(
    fc.constantFrom('GET', 'POST', 'DELETE', 'OPTIONS', 'HEAD'),
    fc.stringMatching(/^[A-Za-z!#$%&'*+.^_`|~-]{1,12}$/),
    fc.constantFrom('G\u0000T', 'GET\t', ''),
  )
  const version = fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/0.9', 'HTTP/1.1x', '')
  const eol = fc.constantFrom('\r\n', '\r\n', '\n', '\r')
  const header = fc.oneof(
    fc.constantFrom(
      'Host: 127.0.0.1',
      'Host:',
      'Host: evil.example',
      'Host: a b',
      'Host: [::1',
      'Content-Length: 5',
      'Content-Length: -1',
      'Content-Length: 99999999999999999999',
      'Content-Length: 5, 6',
      'Transfer-Encoding: chunked',
      'Transfer-Encoding: gzip, chunked',
      'Transfer-Encoding: xchunked',
      'Content-Type: application/json',
      'Connection: close',
      'Expect: 100-continue',
      'X-Forwarded-For: 1.2.3.4',
      ' folded: continuation',
      'Bad Header: x',
      'X: a\u0000b',
    ),
    fc
      .tuple(fc.stringMatching(/^[a-zA-Z-]{1,20}$/), fc.string({ unit: 'binary-ascii', maxLength: 80 }))
      .map(([n, v]) => `${n}: ${v.replace(/[\r\n]/g, '')}`),
    fc.integer({ min: 17_000, max: 90_000 }).map((n) => `X-Big: ${'b'.repeat(n)}`),
  )
  const body = fc.oneof(
    fc.constant(''),
    fc.constantFrom('0\r\n\r\n', '5\r\nhello\r\n0\r\n\r\n', 'zz\r\n', '{"a":1}', 'GET / HTTP/1.1\r\nHost: x\r\n\r\n'),
  )
  return fc
    .tuple(method, target, version, eol, fc.array(header, { maxLength: 8 }), body)
    .map(([m, t, v, nl, hs, b]) => `${m} ${t} ${v}${nl}${hs.join(nl)}${hs.length ? nl : ''}${nl}${b}`)
}

/** Writes raw bytes to the server and reads until it closes (or 5 s pass); the highest status it answered, 0 when none. */
export function sendWire(t: FuzzTarget, raw: string): Promise<Answer> {
  return new Promise<Answer>((resolve) => {
    const socket = net.connect(Number(new URL(t.w.server.url).port), '127.0.0.1')
    const chunks: Buffer[] = []
    const finish = () => {
      socket.destroy()
      const text = Buffer.concat(chunks).toString('latin1')
      // Every answer on the connection counts (a body may carry a second, pipelined request): the worst one is kept.
      const statuses = [...text.matchAll(/(?:^|\r\n)HTTP\/1\.[01] (\d{3}) /g)].map((m) => Number(m[1]))
      resolve({ status: Math.max(0, ...statuses), type: '', text: text.slice(0, 300) })
    }
    socket.setTimeout(5_000, finish)
    socket.on('data', (c: Buffer) => chunks.push(c))
    socket.on('close', finish)
    socket.on('error', () => undefined)
    socket.on('connect', () => socket.end(Buffer.from(raw, 'latin1')))
  })
}
