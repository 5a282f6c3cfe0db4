import { randomUUID } from 'node:crypto'
import type { Deps } from '../../protocol/deps'
import { readCapped } from '../../kernel/read-capped'
import { ATTEMPT_TIMEOUT_MS, RETRY_WINDOW_MS, afterFailedAttempt } from '../../protocol/events/delivery-schedule'
import { claimDueDeliveries, recordAttempt, releaseDelivery, type AttemptResult, type ClaimedDelivery } from '../../protocol/events/outbox.repo'
import { onOutboxSignal } from '../../protocol/events/outbox-signal'
import { signWebhook } from './webhook-signing'
import { isAllowedWebhookScheme } from './webhook-url'

// The delivery worker (docs/webhooks.md): every server process runs one. It claims due deliveries with a lease, POSTs
// each to its endpoint signed as Standard Webhooks say, and records the outcome: delivered on any 2xx, else retried
// with backoff (delivery-schedule.ts) until its retry window is over, then failed. At least once: a worker that dies
// mid-attempt leaves its lease to run out, and another worker (or the same one restarted) sends it again with the
// same `webhook-id`.

/** A claim holds this long: longer than one attempt can take, so a live worker never loses a delivery it is sending. */
export const LEASE_MS = ATTEMPT_TIMEOUT_MS + 10_000
/** How much of an answer is read (and thrown away) before the connection is let go. */
const MAX_ANSWER_BYTES = 64 * 1024

export interface DeliveryOptions {
  /** The fetch deliveries go through: the guarded fetch of WEBHOOK_ALLOWED_NETWORKS in the server. */
  fetch: typeof fetch
  /** Names this worker's leases. */
  owner?: string
  /** Deliveries sent at once by this worker. */
  concurrency?: number
  /** [0, 1): the jitter of retries; Math.random unless a test fixes it. */
  random?: () => number
}

/** What one pass did. */
export interface PassResult {
  claimed: number
  delivered: number
  retrying: number
  failed: number
}

/**
 * Claims the due deliveries (at most `concurrency`) and sends them, all at once, waiting for every attempt to end.
 * For tests and for the worker's loop.
 */
export async function runDeliveryPass(deps: Deps, opts: DeliveryOptions): Promise<PassResult> {
  const owner = opts.owner ?? `worker-${randomUUID()}`
  const now = deps.clock()
  const claimed = await claimDueDeliveries(deps.sql, {
    owner,
    now,
    leaseUntil: new Date(now.getTime() + LEASE_MS),
    take: opts.concurrency ?? 16,
  })
  const result: PassResult = { claimed: claimed.length, delivered: 0, retrying: 0, failed: 0 }
  const outcomes = await Promise.all(claimed.map((d) => deliverOne(deps, opts, owner, d)))
  for (const o of outcomes) if (o) result[o] += 1
  return result
}

/**
 * Sends one claimed delivery and records the attempt. The outcome, or null when the lease was lost meanwhile (the
 * other worker's record stands).
 */
async function deliverOne(deps: Deps, opts: DeliveryOptions, owner: string, d: ClaimedDelivery): Promise<'delivered' | 'retrying' | 'failed' | null> {
  const result = await attempt(deps, opts, d)
  const eventAt = new Date((JSON.parse(d.payload) as { timestamp: string }).timestamp)
  const ok = result.status !== null && result.status >= 200 && result.status < 300
  // The retry window starts at the first attempt, not at the event: a delivery held back behind an earlier event of
  // its grant (or a replayed one) still gets its full day of retries.
  const giveUpAt = d.attempts === 0 ? new Date(result.at.getTime() + RETRY_WINDOW_MS) : d.giveUpAt
  const outcome = ok
    ? ({ state: 'delivered' } as const)
    : afterFailedAttempt({ attempts: d.attempts + 1, giveUpAt }, result.at, opts.random ?? Math.random)
  const recorded = await recordAttempt(deps.sql, { id: d.id, owner, result, giveUpAt, outcome })
  if (!recorded) return null
  const name = outcome.state === 'pending' ? 'retrying' : outcome.state
  deps.metrics.webhookDelivery(name, Math.max(0, (result.at.getTime() - eventAt.getTime()) / 1000))
  const log = { eventId: d.eventId, type: d.eventType, endpointId: d.endpointId, attempt: d.attempts + 1, status: result.status }
  if (name === 'delivered') deps.log.debug(log, 'webhook delivered')
  else if (name === 'retrying') deps.log.info({ ...log, error: result.error }, 'webhook attempt failed: will retry')
  else deps.log.warn({ ...log, error: result.error }, 'webhook delivery failed: retries given up')
  return name
}

/** One POST. Never throws: every failure is an attempt result with words safe to show in the console. */
async function attempt(deps: Deps, opts: DeliveryOptions, d: ClaimedDelivery): Promise<AttemptResult> {
  const sentAt = deps.clock()
  let url: URL
  try {
    url = new URL(d.url)
  } catch {
    return { at: sentAt, status: null, error: 'the endpoint URL is not valid' }
  }
  // The rule the endpoint was saved under, again: the setting may have changed since.
  if (!isAllowedWebhookScheme(url, deps.config.webhookAllowHttp)) {
    return { at: sentAt, status: null, error: 'refused: the endpoint must be https (http only on loopback or with ALLOW_HTTP_WEBHOOKS)' }
  }
  const overlap = d.previousSecret !== null && d.previousSecretUntil !== null && d.previousSecretUntil.getTime() > sentAt.getTime()
  const headers = signWebhook({ id: d.eventId, at: sentAt, body: d.payload, secret: d.secret, previousSecret: overlap ? d.previousSecret : null })
  try {
    const response = await opts.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'gnap-auth-server-webhooks/1', ...headers },
      body: d.payload,
      redirect: 'manual',
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
    })
    // The answer's body is never stored or shown: read a little of it so the connection can be reused, then drop it.
    await readCapped(response.body, MAX_ANSWER_BYTES).catch(() => null)
    const at = deps.clock()
    const ok = response.status >= 200 && response.status < 300
    return { at, status: response.status, error: ok ? null : `the endpoint answered ${response.status}` }
  } catch (e) {
    return { at: deps.clock(), status: null, error: describeFailure(e) }
  }
}

function describeFailure(e: unknown): string {
  const err = e as { name?: string; code?: string; cause?: { code?: string } }
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`
  if (err.name === 'RefusedAddressError' || err.code === 'EREFUSEDADDRESS')
    return 'refused: the endpoint is not a public address nor in WEBHOOK_ALLOWED_NETWORKS'
  const code = err.code ?? err.cause?.code
  return code && /^[A-Z_]{3,40}$/.test(code) ? `could not connect (${code})` : 'could not connect'
}

export interface WebhookWorker {
  /** Stops claiming; resolves when the attempts in flight have ended (or after `graceMs`, leaving their leases to run out). */
  stop(graceMs?: number): Promise<void>
}

/** How often an idle worker looks for due deliveries. */
export const POLL_MS = 500
/** When a worker looks after this process recorded an event: its transaction has committed by then, nearly always. */
const SIGNAL_LOOKS_MS = [5, 25, 100, 250]

/**
 * Starts the delivery worker of this process: it claims and sends due deliveries, up to `concurrency` at a time,
 * looking again every POLL_MS, at once when an attempt ends, and a moment after this process records an event.
 * Errors (the database away) are logged and the loop goes on.
 */
export function startWebhookWorker(deps: Deps, opts: DeliveryOptions & { pollMs?: number }): WebhookWorker {
  const owner = opts.owner ?? `worker-${randomUUID()}`
  const concurrency = opts.concurrency ?? 16
  const pollMs = opts.pollMs ?? POLL_MS
  const inFlight = new Set<Promise<unknown>>()
  let stopped = false
  let wake: (() => void) | null = null
  let timer: NodeJS.Timeout | null = null
  // Set by every nudge, so one that comes while the loop is claiming (not waiting) is not lost: it looks again.
  let nudged = false
  const nudge = () => {
    nudged = true
    const w = wake
    wake = null
    w?.()
  }
  // The signal comes from inside the transaction that recorded the event, which commits a moment later: a few ms
  // when recording is its last step, longer when the use case goes on. Look then, and again a little later, so a
  // commit is seen well before the next poll.
  const stopListening = onOutboxSignal(() => {
    for (const delay of SIGNAL_LOOKS_MS) setTimeout(nudge, delay).unref()
  })

  // Claims are batched: a claim is a write (SQLite's one writer), so with attempts in flight the worker waits until
  // half its slots are free rather than claiming one delivery each time one attempt ends.
  const batch = Math.max(1, Math.ceil(concurrency / 2))
  const loop = async () => {
    while (!stopped) {
      nudged = false
      const free = concurrency - inFlight.size
      let claimed: ClaimedDelivery[] = []
      if (free >= batch || (free > 0 && inFlight.size === 0)) {
        try {
          const now = deps.clock()
          claimed = await claimDueDeliveries(deps.sql, { owner, now, leaseUntil: new Date(now.getTime() + LEASE_MS), take: free })
        } catch (e) {
          deps.log.error({ err: e instanceof Error ? { name: e.name, message: e.message } : String(e) }, 'webhooks: claiming deliveries failed')
        }
        if (stopped) {
          await Promise.all(claimed.map((d) => releaseDelivery(deps.sql, d.id, owner).catch(() => undefined)))
          return
        }
        for (const d of claimed) {
          const p: Promise<unknown> = deliverOne(deps, opts, owner, d)
            .catch((e: unknown) =>
              deps.log.error({ err: e instanceof Error ? { name: e.name, message: e.message } : String(e) }, 'webhooks: recording an attempt failed'),
            )
            .finally(() => {
              inFlight.delete(p)
              nudge()
            })
          inFlight.add(p)
        }
      }
      // All that was free was claimed: more may be due, look again at once. Likewise when an attempt ended or an
      // event was recorded while this look was under way.
      if ((claimed.length > 0 && claimed.length === free) || nudged) continue
      await new Promise<void>((resolve) => {
        wake = resolve
        timer = setTimeout(nudge, pollMs)
        timer.unref()
      })
      if (timer) clearTimeout(timer)
    }
  }
  const running = loop()

  return {
    async stop(graceMs = ATTEMPT_TIMEOUT_MS + 1_000) {
      stopped = true
      stopListening()
      nudge()
      await running
      let graceTimer: NodeJS.Timeout | undefined
      await Promise.race([
        Promise.all([...inFlight]),
        new Promise<void>((resolve) => {
          graceTimer = setTimeout(resolve, graceMs)
          graceTimer.unref()
        }),
      ])
      clearTimeout(graceTimer)
    },
  }
}
