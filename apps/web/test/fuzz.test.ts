// The fuzz suite: generated hostile requests across every endpoint of `next start` (the GNAP endpoints, the
// interaction pages and forms, the identity-provider API, the console's tRPC API, admin pages, paths that do not
// exist), with any method, hostile bodies (deep nesting, huge numbers, wrong types, prototype-pollution keys, NUL
// bytes and odd Unicode, very long strings, invalid JSON, oversize bodies), wrong content types, duplicated and
// forged headers, bad signatures and garbage Signature-Input, path traversal and broken percent-encoding.
// Expected: no 5xx, no error body from a JSON endpoint that is not JSON (a GNAP error body from the GNAP
// endpoints), and no write but the rate-limit counters (support/fuzz.ts COUNTER_TABLES says why).
//
// In the normal suite: FUZZ_REQUESTS=500 with a fixed seed, the same requests on every run. `pnpm test:fuzz`: 10,000
// with a fresh seed, printed so a failure can be replayed with FUZZ_SEED=<seed>.
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { INTROSPECTION_SECRET } from '@gnap/test-support'
import { startWorld } from './support/world'
import { issuedGrant, pendingGrant } from './support/raw-http'
import { closeAgent, fingerprint, hostileRequests, realValues, send, sendWire, violation, wireRequests, type FuzzTarget } from './support/fuzz'

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 500)
const SEED = process.env.FUZZ_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED ?? 20261125)
/** Requests generated at once: bodies can be large, so not all of them are held in memory together. */
const BATCH = 250
/** The share sent as raw bytes on a socket rather than through an HTTP client. */
const WIRE_SHARE = 0.05

let t: FuzzTarget
let before: ReturnType<typeof fingerprint>
const seen = {
  requests: 0,
  wire: 0,
  fiveXX: 0,
  closed: 0,
  refusedByClient: 0,
  byStatus: new Map<number, number>(),
  byEndpoint: new Map<string, number>(),
  seconds: 0,
}
const violations: string[] = []

beforeAll(async () => {
  // TRUST_PROXY: the generated X-Forwarded-For values are the callers' addresses, so the per-address counters are
  // exercised too. The per-IP grant limit is off: a 429 would hide what the endpoint itself does with the input.
  const w = await startWorld({ TRUST_PROXY: 'true', RATE_LIMIT_GRANTS_PER_MINUTE_PER_IP: '0' })
  t = { w, issued: await issuedGrant(w), pending: await pendingGrant(w) }
  before = fingerprint(w.server.dbFile)
})

afterAll(async () => {
  closeAgent()
  await t?.w.stop()
})

describe(`${REQUESTS} hostile requests (seed ${SEED})`, () => {
  it(
    'never answer 5xx, nor a non-JSON error body from a JSON endpoint',
    async () => {
      const started = performance.now()
      const arbitrary = hostileRequests(realValues(t))
      // A share of the requests is raw bytes on a socket (support/fuzz.ts wireRequests): answered by Node's parser
      // or by us, never with a 5xx.
      const wire = Math.ceil(REQUESTS * WIRE_SHARE)
      for (const raw of fc.sample(wireRequests(realValues(t)), { seed: SEED, numRuns: wire })) {
        const answer = await sendWire(t, raw)
        seen.requests++
        seen.wire++
        seen.byStatus.set(answer.status, (seen.byStatus.get(answer.status) ?? 0) + 1)
        if (answer.status >= 500) {
          seen.fiveXX++
          violations.push(`raw ${JSON.stringify(raw.slice(0, 120))} answered ${answer.status}: ${answer.text.slice(0, 160)}`)
        }
      }
      for (let done = wire, batch = 0; done < REQUESTS; batch++) {
        const requests = fc.sample(arbitrary, { seed: SEED + batch, numRuns: Math.min(BATCH, REQUESTS - done) })
        for (const r of requests) {
          const answer = await send(t, r)
          done++
          if (answer.status === -1) {
            seen.refusedByClient++
            continue
          }
          seen.requests++
          seen.byStatus.set(answer.status, (seen.byStatus.get(answer.status) ?? 0) + 1)
          seen.byEndpoint.set(r.endpoint, (seen.byEndpoint.get(r.endpoint) ?? 0) + 1)
          if (answer.status >= 500) seen.fiveXX++
          if (answer.status === 0) seen.closed++
          const wrong = violation(r, answer)
          if (wrong) violations.push(wrong)
        }
      }
      seen.seconds = (performance.now() - started) / 1000
      const statuses = [...seen.byStatus.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`)
      console.log(
        `fuzz: ${seen.requests} hostile requests tried (seed ${SEED}), ${seen.fiveXX} × 5xx, ${violations.length} rule violations, ` +
          `${seen.wire} of them raw bytes on a socket, ${seen.closed} requests refused unread (oversize body, unknown method) cut off by a closed connection, ${seen.refusedByClient} not sendable, in ${seen.seconds.toFixed(0)} s\n  statuses: ${statuses.join(', ')}\n  endpoints: ${[...seen.byEndpoint.entries()].map(([e, n]) => `${e} ${n}`).join(', ')}`,
      )
      expect(violations.slice(0, 20), `${violations.length} violations`).toEqual([])
      expect(seen.fiveXX).toBe(0)
    },
    Math.max(120_000, REQUESTS * 300),
  )

  it('wrote nothing but the rate-limit counters', () => {
    const after = fingerprint(t.w.server.dbFile)
    expect(after.rows).toEqual(before.rows)
    expect(after.digest).toBe(before.digest)
  })

  it('reached every endpoint, and the checks behind the first ones', () => {
    expect(seen.requests).toBeGreaterThanOrEqual(REQUESTS * 0.95)
    expect(seen.byEndpoint.size).toBe(11)
    // 401 is the signature or secret layer; anything else (400 body, 404 unknown id, 405, 413, 429) is further in.
    const beyond = [...seen.byStatus.entries()].filter(([s]) => s !== 401).reduce((n, [, c]) => n + c, 0)
    expect(beyond).toBeGreaterThan(seen.requests / 4)
  })

  it('still serves the real resource server afterwards', async () => {
    const res = await fetch(`${t.w.server.url}introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${INTROSPECTION_SECRET}`, 'x-forwarded-for': '192.0.2.250' },
      body: JSON.stringify({ access_token: t.issued.token.value }),
    })
    expect(await res.json()).toMatchObject({ active: true })
  })
})
