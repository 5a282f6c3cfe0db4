// GET /metrics as Prometheus scrapes it, against the production build: the names and labels after a real flow
// (grant → consent → continue → rotate → revoke → introspect), the counters moving by exactly what the flow did,
// the bearer secret, and every metric the Grafana dashboard (docs/grafana/gnap-dashboard.json) uses.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStore } from '@gnap/domain/kernel'
import { sendTestEvent } from '@gnap/domain/operator'
import { addWebhookEndpoint, INTROSPECTION_SECRET, root, startServer, startWebhookReceiver, type WebhookReceiver } from '@gnap/test-support'
import { serverDeps } from './support/server-deps'
import { atLeastLeftInWindow, introspect, sleep, startWorld, type World } from './support/world'
import { approvedGrant, continueRequest, expectOk, issuedGrant, signedFetch, signedRequest, type IssuedToken } from './support/raw-http'

const METRICS_SECRET = 'test-metrics-secret-0123456789-abcdefghij'

let w: World
let receiver: WebhookReceiver

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  // TRUST_PROXY: the wrong introspection secrets below count against an address of their own (X-Forwarded-For).
  w = await startWorld({ METRICS_SECRET, TRUST_PROXY: 'true', ...receiver.serverEnv })
}, 90_000)

afterAll(async () => {
  await w?.stop()
  await receiver?.close()
})

/** One scrape's samples: `name{labels}` → value (labels as the server wrote them, in its order). */
type Samples = Map<string, number>

async function scrape(base = w.server.url, secret: string | null = METRICS_SECRET): Promise<{ samples: Samples; text: string }> {
  const res = await fetch(`${base}metrics`, { headers: secret === null ? {} : { authorization: `Bearer ${secret}` } })
  const text = await res.text()
  expect(res.status, text).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
  return { samples: parseSamples(text), text }
}

export function parseSamples(text: string): Samples {
  const samples: Samples = new Map()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const at = line.lastIndexOf(' ')
    samples.set(line.slice(0, at), Number(line.slice(at + 1)))
  }
  return samples
}

/** The value of the sample `name` with exactly these labels (any order); 0 when absent. */
export function value(samples: Samples, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
  for (const [key, v] of samples) {
    const brace = key.indexOf('{')
    const n = brace < 0 ? key : key.slice(0, brace)
    if (n !== name) continue
    const got = brace < 0 ? [] : (key.slice(brace + 1, -1).match(/[a-zA-Z_]+="(?:[^"\\]|\\.)*"/g) ?? []).sort()
    if (got.length === wanted.length && got.every((g, i) => g === wanted[i])) return v
  }
  return 0
}

const sent = (token: string, extra: Record<string, string> = {}) =>
  fetch(`${w.server.url}introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${INTROSPECTION_SECRET}`, ...extra },
    body: JSON.stringify({ access_token: token }),
  })

describe('GET /metrics', () => {
  it('needs the bearer secret: 401 without it or with a wrong one', async () => {
    const none = await fetch(`${w.server.url}metrics`)
    expect(none.status).toBe(401)
    expect(none.headers.get('www-authenticate')).toBe('Bearer')
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe('invalid_client')
    const wrong = await fetch(`${w.server.url}metrics`, { headers: { authorization: `Bearer ${METRICS_SECRET}x` } })
    expect(wrong.status).toBe(401)
    expect(await wrong.text()).not.toContain('gnap_')
    const right = await fetch(`${w.server.url}metrics`, { headers: { authorization: `Bearer ${METRICS_SECRET}` } })
    expect(right.status).toBe(200)
    expect(await right.text()).toContain('# TYPE gnap_http_requests_total counter')
  })

  it('counts a real flow by exactly what it did, under route templates, never ids', async () => {
    const before = (await scrape()).samples

    // A non-interactive grant (issued at once), introspected.
    const issued = await issuedGrant(w)
    expect((await introspect(w.server, issued.token.value)).body.active).toBe(true)
    // An interactive grant: pending, approved by its owner, continued (issued), rotated, revoked.
    const pending = await approvedGrant(w)
    await sleep(1_000) // WAIT_SECONDS of the test server
    const continued = await continueRequest(w, pending, { body: { interact_ref: pending.interactRef } })
    const token = (await expectOk<{ access_token: IssuedToken }>('POST', pending.continueUri, continued)).access_token
    const rotated = await signedFetch(w.key, { method: 'POST', url: token.manage, token: token.value })
    const next = (await expectOk<{ access_token: IssuedToken }>('POST', token.manage, rotated)).access_token
    const revoked = await signedFetch(w.key, { method: 'DELETE', url: next.manage, token: next.value })
    expect(revoked.status).toBe(204)
    // Both tokens of that chain are dead now: two inactive introspections.
    expect((await introspect(w.server, token.value)).body.active).toBe(false)
    expect((await introspect(w.server, next.value)).body.active).toBe(false)
    // A request whose signature bytes were replaced: refused by the signature check.
    const tampered = await signedRequest(w.key, { method: 'POST', url: next.manage, token: next.value })
    const refused = await fetch(next.manage, { ...tampered, headers: { ...(tampered.headers as Record<string, string>), signature: 'sig1=:AAAA:' } })
    expect(refused.status).toBe(401)
    // A request without signature headers at all.
    const unsigned = await fetch(next.manage, { method: 'POST', headers: { authorization: `GNAP ${next.value}` } })
    expect(unsigned.status).toBe(401)
    // Wrong introspection secrets from one address until its limit refuses (10 per minute, then 429), in one window.
    await atLeastLeftInWindow(15)
    let limited = 0
    for (let i = 0; i < 11; i++) {
      const res = await sent('x', { authorization: 'Bearer wrong-secret-wrong-secret', 'x-forwarded-for': '198.51.100.7' })
      if (res.status === 429) limited++
    }
    expect(limited).toBe(1)

    const { samples: after, text } = await scrape()
    const moved = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels)

    expect(moved('gnap_grants_total', { outcome: 'issued' })).toBe(2)
    expect(moved('gnap_grants_total', { outcome: 'pending' })).toBe(1)
    expect(moved('gnap_grants_total', { outcome: 'approved' })).toBe(1)
    expect(moved('gnap_access_tokens_issued_total')).toBe(2)
    expect(moved('gnap_access_tokens_rotated_total')).toBe(1)
    expect(moved('gnap_access_tokens_revoked_total')).toBe(1)
    expect(moved('gnap_introspections_total', { result: 'active' })).toBe(1)
    expect(moved('gnap_introspections_total', { result: 'inactive' })).toBe(2)
    expect(moved('gnap_signature_failures_total', { check: 'signature' })).toBe(1)
    expect(moved('gnap_signature_failures_total', { check: 'headers' })).toBe(1)
    expect(moved('gnap_rate_limit_refusals_total', { limit: 'introspection_secret_failures' })).toBe(1)

    expect(moved('gnap_http_requests_total', { route: '/', method: 'POST', status: '200' })).toBe(2)
    expect(moved('gnap_http_requests_total', { route: '/continue/[id]', method: 'POST', status: '200' })).toBe(1)
    expect(moved('gnap_http_requests_total', { route: '/token/[id]', method: 'POST', status: '200' })).toBe(1)
    expect(moved('gnap_http_requests_total', { route: '/token/[id]', method: 'POST', status: '401' })).toBe(2)
    expect(moved('gnap_http_requests_total', { route: '/token/[id]', method: 'DELETE', status: '204' })).toBe(1)
    expect(moved('gnap_http_requests_total', { route: '/introspect', method: 'POST', status: '200' })).toBe(3)
    expect(moved('gnap_http_requests_total', { route: '/introspect', method: 'POST', status: '401' })).toBe(10)
    expect(moved('gnap_http_requests_total', { route: '/introspect', method: 'POST', status: '429' })).toBe(1)
    expect(moved('gnap_http_request_duration_seconds_count', { route: '/introspect', method: 'POST' })).toBe(14)
    expect(moved('gnap_http_request_duration_seconds_bucket', { route: '/introspect', method: 'POST', le: '+Inf' })).toBe(14)
    // The client's key set was fetched, and answered.
    expect(value(after, 'gnap_outbound_fetch_duration_seconds_count', { kind: 'jwks', outcome: 'ok' })).toBeGreaterThanOrEqual(1)
    expect(value(after, 'gnap_outbound_fetch_duration_seconds_count', { kind: 'wallet_address', outcome: 'ok' })).toBeGreaterThanOrEqual(1)
    // Default Node.js metrics, with the event-loop lag.
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m)

    // No label carries an id or a token: only templates.
    for (const id of [pending.continueUri, token.manage, next.manage].map((u) => u.split('/').pop()!)) expect(text).not.toContain(id)
    for (const secret of [issued.token.value, token.value, next.value]) expect(text).not.toContain(secret)
    const routes = new Set([...text.matchAll(/route="([^"]*)"/g)].map((m) => m[1]))
    // The GNAP endpoints the flow used, the identity provider's consent API among them.
    expect([...routes].sort()).toEqual(['/', '/continue/[id]', '/grant/[id]/[nonce]', '/grant/[id]/[nonce]/[choice]', '/introspect', '/token/[id]'])
  }, 60_000)

  it('counts webhook deliveries by outcome and their delay, and reads the undelivered backlog from the database', async () => {
    const before = (await scrape()).samples
    // Two endpoints subscribed to nothing, each sent a test event: one answers 200, the other 503 (retried later).
    receiver.answer = (hook) => (hook.path.endsWith('?down') ? 503 : 200)
    const ok = await addWebhookEndpoint(`file:${w.server.dbFile}`, receiver.url, [])
    const down = await addWebhookEndpoint(`file:${w.server.dbFile}`, `${receiver.url}?down`, [])
    const store = await openStore(`file:${w.server.dbFile}`)
    try {
      const deps = serverDeps(store, w.server.url)
      const actor = { kind: 'admin' as const, id: 'metrics-test', label: 'admin:metrics@example.com', role: 'admin' as const, tenantId: null }
      for (const id of [ok.id, down.id]) await sendTestEvent(deps, { id, actor })
    } finally {
      await store.close()
    }
    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(2)

    let after = before
    const moved = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels)
    await expect
      .poll(
        async () => {
          after = (await scrape()).samples
          return [moved('gnap_webhook_deliveries_total', { outcome: 'delivered' }), moved('gnap_webhook_deliveries_total', { outcome: 'retrying' })]
        },
        { timeout: 10_000 },
      )
      .toEqual([1, 1])
    expect(moved('gnap_webhook_deliveries_total', { outcome: 'failed' })).toBe(0)
    expect(moved('gnap_webhook_delivery_delay_seconds_count')).toBe(1)
    expect(moved('gnap_webhook_delivery_delay_seconds_bucket', { le: '+Inf' })).toBe(1)
    // The delivery that failed waits for its retry: pending, in the database, as old as its event.
    expect(value(after, 'gnap_webhook_undelivered')).toBe(1)
    expect(value(after, 'gnap_webhook_oldest_undelivered_age_seconds')).toBeGreaterThan(0)
    expect(value(after, 'gnap_webhook_oldest_undelivered_age_seconds')).toBeLessThan(60)
  })

  it('has every metric the Grafana dashboard uses', async () => {
    const dashboard = JSON.parse(fs.readFileSync(path.join(root, 'docs', 'grafana', 'gnap-dashboard.json'), 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[]
    }
    const used = new Set<string>()
    for (const panel of dashboard.panels) {
      expect(panel.targets.length, panel.title).toBeGreaterThan(0)
      for (const t of panel.targets) for (const m of t.expr.matchAll(/\b(?:gnap|nodejs|process)_[a-z0-9_]+\b/g)) used.add(m[0])
    }
    expect(used.size).toBeGreaterThan(10)
    const { text } = await scrape()
    // A histogram's series are its name with _bucket, _sum and _count; the others are their own name.
    const names = new Set<string>()
    for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
      names.add(m[1]!)
      if (m[2] === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(m[1]! + s)
    }
    expect([...used].filter((n) => !names.has(n))).toEqual([])
  })
})

describe('metrics off', () => {
  it('answers 404 at /metrics when neither METRICS_SECRET nor METRICS_PORT is set', async () => {
    const server = await startServer()
    try {
      const res = await fetch(`${server.url}metrics`, { headers: { authorization: `Bearer ${METRICS_SECRET}` } })
      expect(res.status).toBe(404)
      expect(await res.text()).not.toContain('gnap_')
    } finally {
      await server.stop()
    }
  }, 90_000)
})
