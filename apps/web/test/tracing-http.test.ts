// OpenTelemetry traces (docs/operating.md "Traces") over HTTP against the production build: an OTLP/HTTP receiver in
// this process gets the spans of a real Open Payments client's grant, continue, rotate and a resource server's
// introspection, and of a Rafiki backend's calls on the service API and the Admin API. The spans link up (every parent is in the trace), the rotation shows its request, signature and
// database spans, an incoming traceparent is continued, log lines carry the trace's ids, and no secret the test
// used appears in any span's name or attribute.
import http from 'node:http'
import { randomBytes } from 'node:crypto'
import { isFinalizedGrant, isPendingGrant } from '@interledger/open-payments'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, IDP_SECRET, INTROSPECTION_SECRET } from '@gnap/test-support'
import { adminApiSignatureHeader } from '@gnap/domain/operator'
import { consent, finishParams, outgoingAccess, sleep, startWorld, type World } from './support/world'

interface OtlpValue {
  stringValue?: string
  intValue?: string | number
  boolValue?: boolean
  doubleValue?: number
}
interface Span {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  attributes: Record<string, string | number | boolean | undefined>
}

const spans: Span[] = []
let receiver: http.Server
let listenerPort = 0
let serviceApiPort = 0
let adminApiPort = 0
let w: World
const OPERATOR = '438fa74a-fa7d-4317-9ced-dde32ece1787'
const OPERATOR_SECRET = 'operator-admin-api-secret-0123456789abcdef'
const TENANT = '6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
const TENANT_SECRET = 'tenant-api-secret-0123456789abcdef'
const secrets: { kind: string; value: string }[] = []
const remember = (kind: string, value: string | null | undefined) => {
  if (!value) throw new Error(`no ${kind} to remember`)
  secrets.push({ kind, value })
}

/** The OTLP/HTTP JSON export (ExportTraceServiceRequest), flattened to its spans. */
function collect(body: string): void {
  const req = JSON.parse(body) as {
    resourceSpans?: { scopeSpans?: { spans?: (Omit<Span, 'attributes'> & { attributes?: { key: string; value: OtlpValue }[] })[] }[] }[]
  }
  for (const rs of req.resourceSpans ?? [])
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? []) {
        const attributes = Object.fromEntries(
          (s.attributes ?? []).map((a) => [a.key, a.value.stringValue ?? a.value.intValue ?? a.value.boolValue ?? a.value.doubleValue]),
        )
        spans.push({ ...s, attributes })
      }
}

beforeAll(async () => {
  const port = await freePort()
  receiver = http.createServer((req, res) => {
    let body = ''
    req.on('data', (d: Buffer) => (body += d.toString()))
    req.on('end', () => {
      if (req.url === '/v1/traces') collect(body)
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve))
  listenerPort = await freePort()
  serviceApiPort = await freePort()
  adminApiPort = await freePort()
  w = await startWorld({
    INTROSPECTION_PORT: String(listenerPort),
    SERVICE_API_PORT: String(serviceApiPort),
    ADMIN_PORT: String(adminApiPort),
    OPERATOR_TENANT_ID: OPERATOR,
    ADMIN_API_SECRET: OPERATOR_SECRET,
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_SERVICE_NAME: 'gnap-as-test',
    LOG_LEVEL: 'info',
  })
  remember('introspection secret', INTROSPECTION_SECRET)
  remember('identity-provider secret', IDP_SECRET)
  remember('Admin API secret', OPERATOR_SECRET)
  remember('tenant API secret', TENANT_SECRET)
}, 90_000)

afterAll(async () => {
  await w?.stop()
  await new Promise((resolve) => receiver?.close(resolve))
})

/** Waits until the receiver holds a span matching `match` (the batch processor exports every few seconds). */
async function spanWhere(match: (s: Span) => boolean, timeoutMs = 20_000): Promise<Span> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const found = spans.find(match)
    if (found) return found
    if (Date.now() > until) throw new Error(`no such span; received: ${spans.map((s) => s.name).join(', ')}`)
    await sleep(200)
  }
}

/** The spans under `root` (itself included), following parent links. */
function subtree(root: Span): Span[] {
  const out = [root]
  for (let i = 0; i < out.length; i++) out.push(...spans.filter((s) => s.parentSpanId === out[i]!.spanId && s.traceId === root.traceId))
  return out
}

/** A span and its children, one line each, indented by depth. */
function render(span: Span, depth: number): string {
  const attrs = Object.entries(span.attributes)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ')
  const children = spans.filter((s) => s.parentSpanId === span.spanId && s.traceId === span.traceId)
  return [
    `${'  '.repeat(depth)}${span.name}  [${['', 'internal', 'server', 'client'][span.kind] ?? span.kind}] ${attrs}`,
    ...children.map((c) => render(c, depth + 1)),
  ].join('\n')
}

/** An introspection as a resource server sends it from inside its own trace (W3C `traceparent`). */
const introspectInTrace = (url: string, token: string, parent: Parent) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${INTROSPECTION_SECRET}`, traceparent: traceparent(parent) },
    body: JSON.stringify({ access_token: token }),
  })

type Parent = { traceId: string; spanId: string }
const newParent = (): Parent => ({ traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') })
const traceparent = (parent: Parent) => `00-${parent.traceId}-${parent.spanId}-01`

/** The Rafiki backend's calls, each inside its own trace: a tenant created on the service API, grants listed on the Admin API. */
async function backendCallsInTraces(viaServiceApi: Parent, viaAdminApi: Parent): Promise<void> {
  const created = await fetch(`http://127.0.0.1:${serviceApiPort}/tenant`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', traceparent: traceparent(viaServiceApi) },
    body: JSON.stringify({ id: TENANT, apiSecret: TENANT_SECRET }),
  })
  expect(created.status).toBe(204)
  const body = { query: 'query Grants { grants(first: 5) { edges { node { id state } } } }', variables: {}, operationName: 'Grants' }
  const signature = adminApiSignatureHeader(OPERATOR_SECRET, 1, body, Date.now())
  remember('Admin API signature', /v1=([0-9a-f]+)/.exec(signature)?.[1])
  const listed = await fetch(`http://127.0.0.1:${adminApiPort}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', signature, 'tenant-id': OPERATOR, traceparent: traceparent(viaAdminApi) },
    body: JSON.stringify(body),
  })
  expect([listed.status, ((await listed.json()) as { data?: { grants?: { edges?: unknown[] } } }).data?.grants?.edges?.length]).toEqual([200, 1])
}

const isRoute = (name: string) => (s: Span) => s.name === name && s.attributes['http.route'] !== undefined

describe('traces of a grant, continue, rotate and introspect', () => {
  const incoming = newParent()
  const viaListener = newParent()
  const viaServiceApi = newParent()
  const viaAdminApi = newParent()
  let rotatedToken = ''

  beforeAll(async () => {
    const finish = finishParams()
    const pending = await w.client.grant.request(
      { url: w.server.url },
      { access_token: { access: [outgoingAccess('https://wallet.example/alice')] }, interact: { start: ['redirect'], finish } },
    )
    if (!isPendingGrant(pending)) throw new Error('expected a pending grant')
    remember('continuation token', pending.continue.access_token.value)
    const flow = await consent(w.server, pending.interact.redirect)
    remember('session cookie', flow.cookie.split('=')[1])
    remember('interaction nonce', flow.nonce)
    const location = new URL(flow.finish.headers.get('location') ?? '')
    const interactRef = location.searchParams.get('interact_ref') ?? ''
    remember('interact_ref', interactRef)
    remember('finish hash', location.searchParams.get('hash'))
    await sleep((pending.continue.wait ?? 0) * 1000)
    const issued = await w.client.grant.continue(
      { url: pending.continue.uri, accessToken: pending.continue.access_token.value },
      { interact_ref: interactRef },
    )
    if (!isFinalizedGrant(issued) || !issued.access_token) throw new Error('expected an issued grant')
    remember('access token', issued.access_token.value)
    remember('continuation token (issued)', issued.continue.access_token.value)
    const rotated = await w.client.token.rotate({ url: issued.access_token.manage, accessToken: issued.access_token.value })
    rotatedToken = rotated.access_token.value
    remember('rotated access token', rotatedToken)
    // A resource server's introspection, inside its own trace; and on the introspection listener, inside another.
    const res = await introspectInTrace(`${w.server.url}introspect`, rotatedToken, incoming)
    expect(res.status).toBe(200)
    expect(((await res.json()) as { active: boolean }).active).toBe(true)
    expect((await introspectInTrace(`http://127.0.0.1:${listenerPort}/`, rotatedToken, viaListener)).status).toBe(200)
    // The console's REST and tRPC endpoints, refused without credentials: spans all the same.
    expect((await fetch(`${w.server.url}api/v1/grants/${randomBytes(8).toString('hex')}`)).status).toBe(401)
    expect((await fetch(`${w.server.url}api/trpc/grants.list`)).status).toBe(401)
    await backendCallsInTraces(viaServiceApi, viaAdminApi)
  }, 60_000)

  it('names each request span by its route template, never by an id', async () => {
    const names = ['POST /', 'POST /continue/[id]', 'POST /token/[id]', 'POST /introspect', 'GET /api/v1/[...path]', 'GET /api/trpc/[trpc]']
    for (const name of names) await spanWhere(isRoute(name))
    for (const s of spans) expect(s.name).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/)
  })

  it('shows a rotation as its request span with signature and database spans under it, all linked', async () => {
    const rotation = await spanWhere(isRoute('POST /token/[id]'))
    const tree = subtree(rotation)
    const signature = tree.find((s) => s.name === 'gnap.verify_signature')
    expect(signature?.attributes['gnap.operation']).toBeDefined()
    const statements = tree.filter((s) => s.attributes['db.operation.name'] !== undefined)
    expect(statements.length).toBeGreaterThan(0)
    expect(statements.some((s) => s.attributes['db.collection.name'] === 'AccessToken')).toBe(true)
    // Every span of the rotation's trace has its parent in the trace, but the trace's root.
    const trace = spans.filter((s) => s.traceId === rotation.traceId)
    const ids = new Set(trace.map((s) => s.spanId))
    const roots = trace.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId))
    expect(roots).toHaveLength(1)
    // PRINT_TRACE=1: the rotation's whole trace as a tree, as docs/operating.md shows it.
    if (process.env.PRINT_TRACE) console.log(render(roots[0]!, 0))
  })

  it('shows the wallet-address fetch of a grant request under it', async () => {
    const grant = await spanWhere(isRoute('POST /'))
    const fetches = subtree(grant).filter((s) => s.kind === 3 && s.attributes['http.request.method'] === 'GET')
    expect(fetches.length).toBeGreaterThan(0)
    expect(fetches[0]!.attributes['server.address']).toBe('127.0.0.1')
  })

  it("continues the resource server's traceparent on introspection", async () => {
    const introspection = await spanWhere(isRoute('POST /introspect'))
    expect(introspection.traceId).toBe(incoming.traceId)
    const trace = spans.filter((s) => s.traceId === incoming.traceId)
    const root = trace.find((s) => !trace.some((p) => p.spanId === s.parentSpanId))
    expect(root?.parentSpanId).toBe(incoming.spanId)
  })

  it("continues the resource server's traceparent on the introspection listener, with the statements under it", async () => {
    const span = await spanWhere((s) => s.attributes['gnap.listener'] === 'introspection')
    expect([span.name, span.kind, span.traceId, span.parentSpanId]).toEqual(['POST /', 2, viaListener.traceId, viaListener.spanId])
    expect(subtree(span).some((s) => s.attributes['db.collection.name'] === 'AccessToken')).toBe(true)
  })

  it("continues the backend's traceparent on the service API and the Admin API, with the statements under each", async () => {
    const service = await spanWhere((s) => s.attributes['gnap.listener'] === 'service-api')
    expect([service.name, service.kind, service.traceId, service.parentSpanId]).toEqual([
      'POST /tenant',
      2,
      viaServiceApi.traceId,
      viaServiceApi.spanId,
    ])
    expect(subtree(service).some((s) => s.attributes['db.collection.name'] === 'Tenant')).toBe(true)
    const admin = await spanWhere((s) => s.attributes['gnap.listener'] === 'admin-api')
    expect([admin.name, admin.kind, admin.traceId, admin.parentSpanId]).toEqual(['POST /graphql', 2, viaAdminApi.traceId, viaAdminApi.spanId])
    expect(subtree(admin).some((s) => s.attributes['db.collection.name'] === 'Grant')).toBe(true)
  })

  it("puts the active span's trace_id and span_id on log lines", async () => {
    const rotation = await spanWhere(isRoute('POST /token/[id]'))
    const lines = w.server
      .logs()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string; trace_id?: string; span_id?: string; path?: string })
    const line = lines.find((l) => l.msg === 'request' && l.trace_id === rotation.traceId)
    expect(line?.span_id).toMatch(/^[0-9a-f]{16}$/)
  })

  it('puts no secret in any span name or attribute', async () => {
    await spanWhere(isRoute('POST /introspect'))
    const text = JSON.stringify(spans)
    for (const { kind, value } of secrets) expect(text.includes(value), `${kind} in a span`).toBe(false)
    // Nor a signature, a cookie or an authorization header under any name.
    for (const s of spans) for (const key of Object.keys(s.attributes)) expect(key).not.toMatch(/signature$|cookie|authorization|token|secret/i)
  })
})
