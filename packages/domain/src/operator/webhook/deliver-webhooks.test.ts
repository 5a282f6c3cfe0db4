import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { noMetrics, type Metrics, type WebhookDeliveryOutcome } from '../../kernel/metrics'
import { RefusedAddressError } from '../../kernel/net/guarded-fetch'
import { useTestDeps } from '../../testing/use-test-deps'
import { addWebhookEndpoint, fakeReceiver, openSecondInstance, recordGrantRevoked, type ReceivedRequest } from '../../testing/webhook-delivery'
import { LEASE_MS, runDeliveryPass, startWebhookWorker } from './deliver-webhooks'
import { ATTEMPT_TIMEOUT_MS, RETRY_WINDOW_MS, afterFailedAttempt } from '../../protocol/events/delivery-schedule'
import { claimDueDeliveries, recordAttempt, recordEvent, recordEvents, replayFailedDelivery } from '../../protocol/events/outbox.repo'

// The delivery worker (docs/webhooks.md) against a real database and a fake receiver (a `fetch` of the test's own),
// with the fake clock: what each answer makes of a delivery, the retry schedule, giving up and replay, the order of
// one grant's events, leases, disabled endpoints, refused URLs, concurrent workers, and the worker's loop.

const outcomes: { outcome: WebhookDeliveryOutcome; seconds: number }[] = []
const metrics: Metrics = { ...noMetrics, webhookDelivery: (outcome, seconds) => void outcomes.push({ outcome, seconds }) }
const t = useTestDeps({ metrics })
beforeEach(() => {
  outcomes.length = 0
})

/** No jitter: every retry waits the shortest delay of its step (15 s, 30 s, 1 min, …). */
const noJitter = () => 0
const status = (code: number) => () => new Response(code === 204 ? null : `answer ${code}`, { status: code })
const pass = (fetch: typeof globalThis.fetch, opts: { owner?: string; concurrency?: number } = {}) =>
  runDeliveryPass(t.deps, { fetch, random: noJitter, ...opts })
const deliveryOf = (eventId: string) => t.db.webhookDelivery.findFirstOrThrow({ where: { eventId } })
const storedPayload = async (eventId: string) => (await t.db.webhookEvent.findUniqueOrThrow({ where: { id: eventId } })).payload
const ms = (d: Date) => d.getTime()

describe('runDeliveryPass: one attempt', () => {
  it.each([200, 202, 204, 299])('counts %i as delivered', async (code) => {
    await addWebhookEndpoint(t)
    const receiver = fakeReceiver(status(code))
    const eventId = await recordGrantRevoked(t, 'grant-1')
    t.clock.advance(2)

    expect(await pass(receiver.fetch)).toEqual({ claimed: 1, delivered: 1, retrying: 0, failed: 0 })
    expect(await deliveryOf(eventId)).toMatchObject({
      state: 'delivered',
      attempts: 1,
      lastStatus: code,
      lastError: null,
      lastAttemptAt: t.clock.now,
      deliveredAt: t.clock.now,
      leaseOwner: null,
      leaseUntil: null,
    })
    expect(outcomes).toEqual([{ outcome: 'delivered', seconds: 2 }])
    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 0 })
    expect(receiver.received).toHaveLength(1)
  })

  it('POSTs exactly the stored payload as JSON, to the endpoint URL, without following redirects, with a timeout signal', async () => {
    const endpoint = await addWebhookEndpoint(t, { url: 'https://hooks.example/in?tenant=7' })
    const receiver = fakeReceiver()
    const eventId = await recordGrantRevoked(t, 'grant-1')
    await pass(receiver.fetch)

    const r = receiver.received[0]!
    expect(r).toMatchObject({ url: endpoint.url, method: 'POST', redirect: 'manual', eventId })
    expect(r.signal).toBeInstanceOf(AbortSignal)
    expect(r.headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': eventId })
    expect(r.body).toBe(await storedPayload(eventId))
    expect(JSON.parse(r.body)).toEqual({
      id: eventId,
      type: 'grant.revoked',
      timestamp: t.clock.now.toISOString(),
      data: {
        grant: { id: 'grant-1', client: { wallet_address: 'https://wallet.example/test-app' }, access: [] },
        revoked_tokens: 1,
        actor: { type: 'client' },
      },
    })
  })

  it('sends one delivery to each enabled endpoint subscribed to the type, and none to the others', async () => {
    const a = await addWebhookEndpoint(t)
    const b = await addWebhookEndpoint(t, { eventTypes: ['grant.approved', 'grant.revoked'] })
    await addWebhookEndpoint(t, { eventTypes: ['grant.approved'] })
    await addWebhookEndpoint(t, { disabled: true })
    const receiver = fakeReceiver()
    const eventId = await recordGrantRevoked(t, 'grant-1')

    expect(await t.db.webhookDelivery.count()).toBe(2)
    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 2, delivered: 2 })
    expect(receiver.received.map((r) => r.url).sort()).toEqual([a.url, b.url].sort())
    expect(receiver.received.map((r) => r.eventId)).toEqual([eventId, eventId])
  })

  it.each([301, 308, 400, 404, 429, 500, 503])('counts %i as a failed attempt and retries', async (code) => {
    await addWebhookEndpoint(t)
    const receiver = fakeReceiver(status(code))
    const eventId = await recordGrantRevoked(t, 'grant-1')

    expect(await pass(receiver.fetch)).toEqual({ claimed: 1, delivered: 0, retrying: 1, failed: 0 })
    expect(await deliveryOf(eventId)).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastStatus: code,
      lastError: `the endpoint answered ${code}`,
      lastAttemptAt: t.clock.now,
      nextAttemptAt: new Date(ms(t.clock.now) + 15_000),
      deliveredAt: null,
      leaseOwner: null,
    })
    expect(outcomes.map((o) => o.outcome)).toEqual(['retrying'])
  })

  it.each([
    [
      'a refused connection',
      new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' }) }),
      'could not connect (ECONNREFUSED)',
    ],
    ['a DNS failure', Object.assign(new Error('getaddrinfo ENOTFOUND hooks.example'), { code: 'ENOTFOUND' }), 'could not connect (ENOTFOUND)'],
    ['a refused address', new RefusedAddressError('hooks.example'), 'refused: the endpoint is not a public address nor in WEBHOOK_ALLOWED_NETWORKS'],
    ['an abort', new DOMException('This operation was aborted', 'AbortError'), `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`],
    ['an error whose words are not for the console', new Error('boom: whsec_c2VjcmV0 at /srv/app.js:1'), 'could not connect'],
  ])('counts %s as a failed attempt, in safe words and without a status', async (_name, error, words) => {
    await addWebhookEndpoint(t)
    const receiver = fakeReceiver(() => Promise.reject(error))
    const eventId = await recordGrantRevoked(t, 'grant-1')

    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 1, retrying: 1 })
    expect(await deliveryOf(eventId)).toMatchObject({ state: 'pending', attempts: 1, lastStatus: null, lastError: words })
  })

  describe('when the receiver does not answer', () => {
    let timeouts: number[]
    let controller: AbortController
    beforeEach(() => {
      timeouts = []
      controller = new AbortController()
      vi.spyOn(AbortSignal, 'timeout').mockImplementation((delay) => {
        timeouts.push(delay)
        return controller.signal
      })
    })
    afterEach(() => {
      vi.restoreAllMocks()
    })
    /** Answers only when the request's signal fires, as fetch does: with the signal's reason. */
    const hanging = (r: ReceivedRequest) =>
      new Promise<Response>((_resolve, reject) => r.signal!.addEventListener('abort', () => reject(r.signal!.reason as Error)))
    const timeUp = () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'))

    it('gives each attempt 5 s, then counts it as failed', async () => {
      await addWebhookEndpoint(t)
      const receiver = fakeReceiver(hanging)
      const eventId = await recordGrantRevoked(t, 'grant-1')

      const running = pass(receiver.fetch)
      await vi.waitFor(() => expect(receiver.received).toHaveLength(1))
      expect(timeouts).toEqual([ATTEMPT_TIMEOUT_MS])
      expect(receiver.received[0]!.signal).toBe(controller.signal)
      timeUp()
      expect(await running).toMatchObject({ claimed: 1, retrying: 1 })
      expect(await deliveryOf(eventId)).toMatchObject({ state: 'pending', attempts: 1, lastStatus: null, lastError: 'no answer within 5 s' })
    })

    it('keeps a 2xx whose body never ends, once the 5 s are over', async () => {
      await addWebhookEndpoint(t)
      // As fetch does, the request's signal also ends the reading of the answer's body.
      const endless = (signal: AbortSignal) =>
        new ReadableStream<Uint8Array>({
          start: (c) => signal.addEventListener('abort', () => c.error(signal.reason)),
          pull: () => new Promise(() => undefined),
        })
      const receiver = fakeReceiver((r) => new Response(endless(r.signal!), { status: 200 }))
      const eventId = await recordGrantRevoked(t, 'grant-1')

      const running = pass(receiver.fetch)
      await vi.waitFor(() => expect(receiver.received).toHaveLength(1))
      timeUp()
      expect(await running).toMatchObject({ claimed: 1, delivered: 1 })
      expect(await deliveryOf(eventId)).toMatchObject({ state: 'delivered', lastStatus: 200 })
    })
  })

  it('refuses an http: URL off loopback without sending it unless ALLOW_HTTP_WEBHOOKS, and sends http: to loopback', async () => {
    await addWebhookEndpoint(t, { url: 'http://hooks.example/in' })
    const local = await addWebhookEndpoint(t, { url: 'http://127.0.0.1:4000/in' })
    const receiver = fakeReceiver()
    const eventId = await recordGrantRevoked(t, 'grant-1')

    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 2, delivered: 1, retrying: 1 })
    expect(receiver.received.map((r) => r.url)).toEqual([local.url])
    const refused = await t.db.webhookDelivery.findFirstOrThrow({ where: { eventId, NOT: { endpointId: local.id } } })
    expect(refused).toMatchObject({ state: 'pending', lastStatus: null, lastError: expect.stringMatching(/must be https/) as unknown })

    await t.reset({ config: { webhookAllowHttp: true }, metrics })
    await addWebhookEndpoint(t, { url: 'http://hooks.example/in' })
    await recordGrantRevoked(t, 'grant-1')
    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 1, delivered: 1 })
    expect(receiver.received.map((r) => r.url)).toEqual([local.url, 'http://hooks.example/in'])
  })
})

describe('retries (fake clock)', () => {
  it('are not due before nextAttemptAt, are due at it, and follow the schedule until a 2xx', async () => {
    await addWebhookEndpoint(t)
    const answers = [500, 503, 200]
    const receiver = fakeReceiver(() => status(answers.shift()!)())
    const eventId = await recordGrantRevoked(t, 'grant-1')
    const start = ms(t.clock.now)

    expect(await pass(receiver.fetch)).toMatchObject({ retrying: 1 })
    expect((await deliveryOf(eventId)).nextAttemptAt).toEqual(new Date(start + 15_000))
    t.clock.advance(14.999)
    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 0 })
    t.clock.advance(0.001)
    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 1, retrying: 1 })
    expect(await deliveryOf(eventId)).toMatchObject({ attempts: 2, lastStatus: 503, nextAttemptAt: new Date(start + 15_000 + 30_000) })
    t.clock.advance(29.999)
    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 0 })
    t.clock.advance(0.001)
    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 1, delivered: 1 })
    expect(await deliveryOf(eventId)).toMatchObject({ state: 'delivered', attempts: 3, lastStatus: 200, lastError: null, deliveredAt: t.clock.now })

    // Every attempt is the same message: the same webhook-id and body, for the receiver to deduplicate on.
    expect(new Set(receiver.received.map((r) => r.eventId))).toEqual(new Set([eventId]))
    expect(new Set(receiver.received.map((r) => r.body))).toEqual(new Set([await storedPayload(eventId)]))
    expect(outcomes).toEqual([
      { outcome: 'retrying', seconds: 0 },
      { outcome: 'retrying', seconds: 15 },
      { outcome: 'delivered', seconds: 45 },
    ])
  })

  it('gives up once the 24 h window is over: failed, never tried again; a replay makes it pending and it is delivered', async () => {
    await addWebhookEndpoint(t)
    let answer = 500
    const receiver = fakeReceiver(() => status(answer)())
    const eventId = await recordGrantRevoked(t, 'grant-1')
    const start = t.clock.now
    const giveUpAt = new Date(ms(start) + RETRY_WINDOW_MS)
    expect(await deliveryOf(eventId)).toMatchObject({ giveUpAt })

    // The attempts the schedule allows within the window.
    let expected = 1
    for (let at = start; ; expected++) {
      const next = afterFailedAttempt({ attempts: expected, giveUpAt }, at, noJitter)
      if (next.state === 'failed') break
      at = next.nextAttemptAt
    }

    for (let attempt = 1; attempt <= expected; attempt++) {
      expect(await pass(receiver.fetch)).toMatchObject({ claimed: 1 })
      const row = await deliveryOf(eventId)
      if (attempt < expected) {
        expect(row.state).toBe('pending')
        t.clock.now = row.nextAttemptAt
      } else expect(row).toMatchObject({ state: 'failed', attempts: expected, lastStatus: 500 })
    }
    expect(ms(t.clock.now)).toBeLessThanOrEqual(ms(giveUpAt))
    expect(ms(t.clock.now)).toBeGreaterThan(ms(giveUpAt) - 4 * 60 * 60 * 1000)
    expect(outcomes.map((o) => o.outcome)).toEqual([...Array<string>(expected - 1).fill('retrying'), 'failed'])

    t.clock.advance(7 * 24 * 3600)
    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 0 })
    expect(receiver.received).toHaveLength(expected)

    // Replay: pending again, due now, as if new: attempts from 0, so its retries start again from the shortest wait.
    const { id } = await deliveryOf(eventId)
    expect(await replayFailedDelivery(t.sql, id, t.clock.now)).toBe(true)
    expect(await deliveryOf(eventId)).toMatchObject({
      state: 'pending',
      attempts: 0,
      nextAttemptAt: t.clock.now,
      giveUpAt: new Date(ms(t.clock.now) + RETRY_WINDOW_MS),
    })
    expect(await replayFailedDelivery(t.sql, id, t.clock.now)).toBe(false)
    answer = 200
    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 1, delivered: 1 })
    expect(await deliveryOf(eventId)).toMatchObject({ state: 'delivered', attempts: 1, lastStatus: 200, lastError: null })
    expect(receiver.received.at(-1)!.body).toBe(await storedPayload(eventId))
    expect(await replayFailedDelivery(t.sql, id, t.clock.now)).toBe(false)
    expect(await replayFailedDelivery(t.sql, 'no-such-delivery', t.clock.now)).toBe(false)
  })
})

describe('order per grant', () => {
  it('holds a grant’s second event while its first is pending, even waiting for a retry, and holds no other grant', async () => {
    await addWebhookEndpoint(t)
    const failing = new Set<string>()
    const receiver = fakeReceiver((r) => status(failing.has(r.eventId) ? 500 : 200)())
    const first = await recordGrantRevoked(t, 'grant-1')
    const second = await recordGrantRevoked(t, 'grant-1')
    const other = await recordGrantRevoked(t, 'grant-2')
    failing.add(first)

    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 2, delivered: 1, retrying: 1 })
    expect(receiver.received.map((r) => r.eventId).sort()).toEqual([first, other].sort())
    t.clock.advance(10)
    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 0 })
    expect(await deliveryOf(second)).toMatchObject({ state: 'pending', attempts: 0 })

    failing.delete(first)
    t.clock.advance(5)
    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 1, delivered: 1 })
    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 1, delivered: 1 })
    expect(receiver.received.map((r) => r.eventId).slice(2)).toEqual([first, second])
  })

  it('holds the second while the first is being sent (claimed by another worker)', async () => {
    await addWebhookEndpoint(t)
    const first = await recordGrantRevoked(t, 'grant-1')
    await recordGrantRevoked(t, 'grant-1')
    const lease = { now: t.clock.now, leaseUntil: new Date(ms(t.clock.now) + LEASE_MS), take: 10 }

    expect((await claimDueDeliveries(t.sql, { ...lease, owner: 'worker-a' })).map((d) => d.eventId)).toEqual([first])
    expect(await claimDueDeliveries(t.sql, { ...lease, owner: 'worker-b' })).toEqual([])
  })

  it('sends the events of one transaction in the order they were recorded', async () => {
    await addWebhookEndpoint(t)
    const ids = await t.sql.transaction((tx) =>
      recordEvents(
        tx,
        [0, 1, 2, 3, 4].map((n) => ({
          type: 'grant.revoked' as const,
          grantId: 'grant-1',
          data: {
            grant: { id: 'grant-1', client: { wallet_address: 'https://wallet.example/a' }, access: [] },
            revoked_tokens: n,
            actor: { type: 'client' as const },
          },
        })),
        t.clock.now,
      ),
    )
    const receiver = fakeReceiver()
    for (let i = 0; i < 5; i++) expect(await pass(receiver.fetch)).toMatchObject({ claimed: 1, delivered: 1 })
    expect(receiver.received.map((r) => r.eventId)).toEqual(ids)
  })

  it('keeps the order per endpoint: one endpoint failing does not hold back another', async () => {
    const down = await addWebhookEndpoint(t)
    const up = await addWebhookEndpoint(t)
    const receiver = fakeReceiver((r) => status(r.url === down.url ? 503 : 200)())
    const first = await recordGrantRevoked(t, 'grant-1')
    const second = await recordGrantRevoked(t, 'grant-1')

    await pass(receiver.fetch)
    await pass(receiver.fetch)
    expect(receiver.received.filter((r) => r.url === up.url).map((r) => r.eventId)).toEqual([first, second])
    expect(receiver.received.filter((r) => r.url === down.url).map((r) => r.eventId)).toEqual([first])
  })

  it('lets the next event go once the first has failed for good', async () => {
    await addWebhookEndpoint(t)
    const first = await recordGrantRevoked(t, 'grant-1')
    const second = await recordGrantRevoked(t, 'grant-1')
    // The first is at its last attempt: its retry window ends now.
    await t.db.webhookDelivery.updateMany({ where: { eventId: first }, data: { attempts: 14, giveUpAt: t.clock.now } })
    const receiver = fakeReceiver((r) => status(r.eventId === first ? 503 : 200)())
    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 1, failed: 1 })
    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 1, delivered: 1 })
    expect(receiver.received.map((r) => r.eventId)).toEqual([first, second])
  })
})

describe('leases', () => {
  it('takes a delivery back when its worker died: claimed again after LEASE_MS, and the first worker’s late record is ignored', async () => {
    await addWebhookEndpoint(t)
    const eventId = await recordGrantRevoked(t, 'grant-1')
    const claim = (owner: string) =>
      claimDueDeliveries(t.sql, { owner, now: t.clock.now, leaseUntil: new Date(ms(t.clock.now) + LEASE_MS), take: 10 })

    const [a] = await claim('worker-a')
    expect(a).toMatchObject({ eventId, attempts: 0 })
    expect(await deliveryOf(eventId)).toMatchObject({ leaseOwner: 'worker-a', leaseUntil: new Date(ms(t.clock.now) + LEASE_MS) })
    expect(await claim('worker-b')).toEqual([])
    t.clock.advance(LEASE_MS / 1000)
    expect(await claim('worker-b')).toEqual([])
    t.clock.advance(0.001)
    const [b] = await claim('worker-b')
    expect(b).toMatchObject({ id: a!.id, eventId })

    const delivered = { state: 'delivered' } as const
    const late = await recordAttempt(t.sql, {
      id: a!.id,
      owner: 'worker-a',
      result: { at: t.clock.now, status: 200, error: null },
      giveUpAt: b!.giveUpAt,
      outcome: delivered,
    })
    expect(late).toBe(false)
    expect(await deliveryOf(eventId)).toMatchObject({ state: 'pending', attempts: 0, leaseOwner: 'worker-b', lastStatus: null })

    const result = { at: t.clock.now, status: 500, error: 'the endpoint answered 500' }
    const nextAttemptAt = new Date(ms(t.clock.now) + 15_000)
    expect(
      await recordAttempt(t.sql, { id: b!.id, owner: 'worker-b', result, giveUpAt: b!.giveUpAt, outcome: { state: 'pending', nextAttemptAt } }),
    ).toBe(true)
    expect(await deliveryOf(eventId)).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastStatus: 500,
      nextAttemptAt,
      leaseOwner: null,
      leaseUntil: null,
    })
    expect(await recordAttempt(t.sql, { id: b!.id, owner: 'worker-b', result, giveUpAt: b!.giveUpAt, outcome: delivered })).toBe(false)
  })

  it('a pass sends a delivery whose lease ran out once more, with the same webhook-id', async () => {
    await addWebhookEndpoint(t)
    const eventId = await recordGrantRevoked(t, 'grant-1')
    await claimDueDeliveries(t.sql, { owner: 'dead-worker', now: t.clock.now, leaseUntil: new Date(ms(t.clock.now) + LEASE_MS), take: 10 })
    const receiver = fakeReceiver()
    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 0 })
    t.clock.advance(LEASE_MS / 1000 + 1)
    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 1, delivered: 1 })
    expect(receiver.received.map((r) => r.eventId)).toEqual([eventId])
  })
})

describe('a disabled endpoint', () => {
  it('keeps its pending deliveries waiting, gets none for new events, and is sent the waiting ones when enabled again', async () => {
    const endpoint = await addWebhookEndpoint(t)
    const receiver = fakeReceiver()
    const waiting = await recordGrantRevoked(t, 'grant-1')
    await t.sql.run(`UPDATE "WebhookEndpoint" SET "disabledAt" = $1 WHERE "id" = $2`, [t.clock.now, endpoint.id])

    // Its only subscriber disabled, the event is not written at all.
    await expect(recordGrantRevoked(t, 'grant-2')).rejects.toThrow('nothing was written')
    t.clock.advance(3600)
    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 0 })
    expect(await t.db.webhookDelivery.findMany({ select: { eventId: true, state: true } })).toEqual([{ eventId: waiting, state: 'pending' }])

    await t.sql.run(`UPDATE "WebhookEndpoint" SET "disabledAt" = NULL WHERE "id" = $1`, [endpoint.id])
    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 1, delivered: 1 })
    expect(receiver.received.map((r) => r.eventId)).toEqual([waiting])
  })
})

describe('two instances at once', () => {
  it('never claim the same delivery: 200 events, each sent exactly once, never twice at once, in order per grant', async () => {
    await addWebhookEndpoint(t)
    const grants = Array.from({ length: 50 }, (_, i) => `grant-${i}`)
    const recorded = await t.sql.transaction((tx) =>
      recordEvents(
        tx,
        [0, 1, 2, 3].flatMap((n) =>
          grants.map((g) => ({
            type: 'grant.revoked' as const,
            grantId: g,
            data: {
              grant: { id: g, client: { wallet_address: 'https://wallet.example/a' }, access: [] },
              revoked_tokens: n,
              actor: { type: 'client' as const },
            },
          })),
        ),
        t.clock.now,
      ),
    )
    const sent = new Map<string, number>()
    const inFlight = new Set<string>()
    const overlapping: string[] = []
    const receiver = fakeReceiver(async (r) => {
      if (inFlight.has(r.eventId)) overlapping.push(r.eventId)
      inFlight.add(r.eventId)
      sent.set(r.eventId, (sent.get(r.eventId) ?? 0) + 1)
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 3))
      inFlight.delete(r.eventId)
      return new Response('ok')
    })

    const second = await openSecondInstance(t)
    try {
      const worker = async (deps: typeof t.deps) => {
        for (let passes = 0; passes < 1_000 && sent.size < recorded.length; passes++) {
          // Two claims at once through the same pool as well as across the two instances.
          await Promise.all([
            runDeliveryPass(deps, { fetch: receiver.fetch, concurrency: 8 }),
            runDeliveryPass(deps, { fetch: receiver.fetch, concurrency: 8 }),
          ])
        }
      }
      await Promise.all([worker(t.deps), worker(second.deps)])
    } finally {
      await second.close()
    }

    expect(overlapping).toEqual([])
    expect(receiver.received).toHaveLength(recorded.length)
    expect([...sent.values()].every((n) => n === 1)).toBe(true)
    expect(new Set(sent.keys())).toEqual(new Set(recorded))
    expect(await t.db.webhookDelivery.count({ where: { state: 'delivered', attempts: 1 } })).toBe(recorded.length)
    for (const g of grants) {
      const order = receiver.received
        .filter((r) => (JSON.parse(r.body) as { data: { grant: { id: string } } }).data.grant.id === g)
        .map((r) => r.eventId)
      expect(order).toEqual(recorded.filter((_, i) => i % grants.length === grants.indexOf(g)))
    }
  })
})

describe('startWebhookWorker', () => {
  it('delivers an event shortly after it commits, and stop() resolves', async () => {
    await addWebhookEndpoint(t)
    const receiver = fakeReceiver()
    // A poll far away: only the outbox's signal can wake the worker in time.
    const worker = startWebhookWorker(t.deps, { fetch: receiver.fetch, pollMs: 60_000 })
    try {
      await new Promise((resolve) => setTimeout(resolve, 50))
      const eventId = await recordGrantRevoked(t, 'grant-1')
      const recordedAt = Date.now()
      await vi.waitFor(async () => expect(await deliveryOf(eventId)).toMatchObject({ state: 'delivered' }), { timeout: 2_000, interval: 10 })
      expect(Date.now() - recordedAt).toBeLessThan(1_000)
      expect(receiver.received.map((r) => r.eventId)).toEqual([eventId])
    } finally {
      await worker.stop()
    }
  })

  it('delivers shortly after the commit of a transaction that goes on after recording its event', async () => {
    await addWebhookEndpoint(t)
    const receiver = fakeReceiver()
    const worker = startWebhookWorker(t.deps, { fetch: receiver.fetch, pollMs: 60_000 })
    try {
      await new Promise((resolve) => setTimeout(resolve, 50))
      const eventId = await t.sql.transaction(async (tx) => {
        const id = await recordEvent(
          tx,
          {
            type: 'grant.revoked',
            grantId: 'grant-1',
            data: {
              grant: { id: 'grant-1', client: { wallet_address: 'https://wallet.example/a' }, access: [] },
              revoked_tokens: 0,
              actor: { type: 'client' },
            },
          },
          t.clock.now,
        )
        // The rest of the use case's transaction (an audit row, other updates) before it commits.
        await new Promise((resolve) => setTimeout(resolve, 150))
        return id!
      })
      const committedAt = Date.now()
      await vi.waitFor(async () => expect(await deliveryOf(eventId)).toMatchObject({ state: 'delivered' }), { timeout: 2_000, interval: 10 })
      expect(Date.now() - committedAt).toBeLessThan(1_000)
    } finally {
      await worker.stop()
    }
  })

  it('finds events recorded before it started, and by another process, at its poll', async () => {
    await addWebhookEndpoint(t)
    const receiver = fakeReceiver()
    const before = await recordGrantRevoked(t, 'grant-1')
    const worker = startWebhookWorker(t.deps, { fetch: receiver.fetch, pollMs: 20 })
    try {
      await vi.waitFor(() => expect(receiver.received.map((r) => r.eventId)).toEqual([before]), { timeout: 2_000, interval: 10 })
      const other = await openSecondInstance(t)
      const later = await recordGrantRevoked({ sql: other.deps.sql, clock: t.clock }, 'grant-2').finally(() => other.close())
      await vi.waitFor(() => expect(receiver.received.map((r) => r.eventId)).toEqual([before, later]), { timeout: 2_000, interval: 10 })
    } finally {
      await worker.stop()
    }
  })

  it('on stop, lets the attempt in flight end and records it', async () => {
    await addWebhookEndpoint(t)
    let answer!: (r: Response) => void
    const receiver = fakeReceiver(() => new Promise<Response>((resolve) => (answer = resolve)))
    const eventId = await recordGrantRevoked(t, 'grant-1')
    const worker = startWebhookWorker(t.deps, { fetch: receiver.fetch, pollMs: 20 })
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1), { timeout: 2_000, interval: 10 })

    let stopped = false
    const stopping = worker.stop(10_000).then(() => (stopped = true))
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(stopped).toBe(false)
    answer(new Response('ok'))
    await stopping
    expect(await deliveryOf(eventId)).toMatchObject({ state: 'delivered', attempts: 1 })
  })

  it('keeps running when sending throws, and retries on the schedule', async () => {
    await addWebhookEndpoint(t)
    let calls = 0
    const receiver = fakeReceiver(() => {
      calls += 1
      throw new Error('socket hang up')
    })
    const eventId = await recordGrantRevoked(t, 'grant-1')
    const worker = startWebhookWorker(t.deps, { fetch: receiver.fetch, pollMs: 20, random: noJitter })
    try {
      await vi.waitFor(async () => expect(await deliveryOf(eventId)).toMatchObject({ attempts: 1 }), { timeout: 2_000, interval: 10 })
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(calls).toBe(1)
      t.clock.advance(15)
      await vi.waitFor(async () => expect(await deliveryOf(eventId)).toMatchObject({ attempts: 2 }), { timeout: 2_000, interval: 10 })
    } finally {
      await worker.stop()
    }
  })
})

describe('the retry window', () => {
  it('starts at the first attempt: a delivery held back behind its grant’s earlier event still gets its full day of retries', async () => {
    await addWebhookEndpoint(t)
    const receiver = fakeReceiver(() => status(500)())
    const first = await recordGrantRevoked(t, 'grant-1')
    const second = await recordGrantRevoked(t, 'grant-1')
    // The first event fails for a whole day, holding the second back.
    for (;;) {
      await pass(receiver.fetch)
      const row = await deliveryOf(first)
      if (row.state === 'failed') break
      t.clock.now = row.nextAttemptAt
    }
    const heldUntil = t.clock.now
    expect(ms(heldUntil) - ms((await deliveryOf(second)).createdAt)).toBeGreaterThan(RETRY_WINDOW_MS - 4 * 60 * 60 * 1000)
    // Its own first attempt now: failed, but retried, with a window from now.
    expect(await pass(receiver.fetch)).toMatchObject({ claimed: 1, retrying: 1 })
    expect(await deliveryOf(second)).toMatchObject({ state: 'pending', attempts: 1, giveUpAt: new Date(ms(heldUntil) + RETRY_WINDOW_MS) })
  })
})
