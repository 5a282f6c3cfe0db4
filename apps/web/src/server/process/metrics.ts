import cluster from 'node:cluster'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { Metrics, OutboundFetchKind, OutboundFetchOutcome, RateLimitName, SignatureCheck, SqlPressure } from '@gnap/domain/kernel'

type WebhookDeliveryOutcome = Parameters<Metrics['webhookDelivery']>[0]

// The metrics port of the domain (deps.metrics) counted with prom-client, plus what only the web app sees: requests
// by route template and status with their latency, and the launcher's fair-turn queue. One registry per process;
// under the launcher each worker hands its registry to the primary, which sums them (prom-client's cluster
// aggregator) and answers the scrape. Names follow Prometheus conventions: `gnap_` prefix, `_total` counters,
// `_seconds` durations.

/** Latency buckets of the GNAP endpoints, in seconds: a fast introspection takes well under a millisecond. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
/** Outbound fetches take tens to thousands of milliseconds (their timeout is 5 s). */
const FETCH_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
/** Waits in the fair-turn queue: a few turns of the event loop, each about TURN_BUDGET_MS. */
const WAIT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]
/** From an event to its delivery: tens of milliseconds when the receiver keeps up, up to a day of retries. */
const WEBHOOK_DELAY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600, 24 * 3600]
/** How long a scrape waits for the database's count of undelivered webhooks before it answers without a new one. */
const UNDELIVERED_READ_MS = 2_000

/** The webhook deliveries still pending in the database, and the time of the oldest one's event (outbox.repo.ts). */
export type UndeliveredReader = () => Promise<{ count: number; oldest: Date | null }>

/** One route's requests: counted by method and status, timed by method. */
export interface RouteMeter {
  done(method: string, status: number, seconds: number): void
}

/** The domain's metrics and the web app's own, over one registry. */
export interface WebMetrics extends Metrics {
  readonly registry: Registry
  /** The meter of a route template (`/continue/[id]`), made once per route. */
  route(template: string): RouteMeter
}

/** What the launcher's fair turns (packages/launcher fair-turns.ts) publish on globalThis under this key. */
const FAIR_TURNS = Symbol.for('gnap.fairTurns')
interface FairTurnsStats {
  waiting(): number
  onWait: ((seconds: number) => void) | null
}

const NO_METER: RouteMeter = { done: () => undefined }

/** A route's meter when `metrics` counts requests; a no-op otherwise (metrics off, tests). */
export function routeMeter(metrics: Metrics, template: string): RouteMeter {
  return 'route' in metrics ? (metrics as WebMetrics).route(template) : NO_METER
}

/** The requests' and the protocol's own counters and histograms, registered in this order on `registry`. */
function protocolMetrics(registry: Registry) {
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter({ name, help, labelNames, registers: [registry] })
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
    new Histogram({ name, help, labelNames, buckets, registers: [registry] })
  const requests = counter('gnap_http_requests_total', 'Requests answered by the GNAP endpoints, by route template, method and status.', [
    'route',
    'method',
    'status',
  ])
  const latency = histogram(
    'gnap_http_request_duration_seconds',
    'Time from a GNAP request reaching its handler to its answer, by route template and method.',
    ['route', 'method'],
    LATENCY_BUCKETS,
  )
  const grants = counter(
    'gnap_grants_total',
    'Grants by outcome: issued (a token), pending (waiting for interaction), approved, rejected, revoked, expired (interaction ran out unanswered).',
    ['outcome'],
  )
  const issued = counter('gnap_access_tokens_issued_total', 'Access tokens issued with a grant.')
  const rotated = counter('gnap_access_tokens_rotated_total', 'Access tokens rotated (each one a new token).')
  const revoked = counter(
    'gnap_access_tokens_revoked_total',
    'Live access tokens revoked: by their client, with their grant, by an administrator, or by blocking their client.',
  )
  const introspections = counter('gnap_introspections_total', 'Introspections answered, by result: active or inactive.', ['result'])
  const signatureFailures = counter(
    'gnap_signature_failures_total',
    'Requests refused by an HTTP message signature check, by the check that failed.',
    ['check'],
  )
  const fetches = histogram(
    'gnap_outbound_fetch_duration_seconds',
    "Fetches of clients' wallet address documents and key sets (JWKS), by kind and outcome.",
    ['kind', 'outcome'],
    FETCH_BUCKETS,
  )
  const rateLimited = counter('gnap_rate_limit_refusals_total', 'Requests refused with 429, by the limit that refused them.', ['limit'])
  const adminApiCalls = counter(
    'gnap_admin_api_calls_total',
    'Admin API calls (docs/admin-api.md), by operation (grants, grant, revokeGrant, other) and outcome (ok, unauthorized, not_found, invalid, error).',
    ['operation', 'outcome'],
  )
  return { requests, latency, grants, issued, rotated, revoked, introspections, signatureFailures, fetches, rateLimited, adminApiCalls }
}

/** The store's pressure (`pressure`, read at each scrape) on `registry`. */
function registerPressureMetrics(registry: Registry, pressure: () => SqlPressure): void {
  // The store's pressure, read at each scrape: nothing on the request path. Both databases' metrics are always
  // there (0 for the other database), so one dashboard fits either.
  // A SQLite counter read from the store's running total at each scrape.
  const sqliteCounter = (name: string, help: string, read: (now: Extract<SqlPressure, { dialect: 'sqlite' }>) => number): void => {
    let counted = 0
    const c: Counter = new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        const now = pressure()
        if (now.dialect !== 'sqlite') return
        c.inc(read(now) - counted)
        counted = read(now)
      },
    })
  }
  sqliteCounter(
    'gnap_sqlite_busy_retries_total',
    'Writes that found the SQLite file locked by another process and tried again (0 on PostgreSQL).',
    (n) => n.busyRetries,
  )
  // Group commit (docs/operating.md, Storage): transactions per flush is the ratio of the two.
  sqliteCounter(
    'gnap_sqlite_commit_batches_total',
    'SQLite write batches committed: one commit and one flush each (0 on PostgreSQL).',
    (n) => n.commitBatches,
  )
  sqliteCounter(
    'gnap_sqlite_batched_transactions_total',
    'SQLite write transactions committed in those batches (0 on PostgreSQL).',
    (n) => n.batchedTransactions,
  )
  const pool = (): { poolTotal: number; poolIdle: number; poolWaiting: number } => {
    const now = pressure()
    return now.dialect === 'postgresql' ? now : { poolTotal: 0, poolIdle: 0, poolWaiting: 0 }
  }
  new Gauge({
    name: 'gnap_postgres_pool_connections',
    help: 'Connections of the PostgreSQL pool, by state: in_use or idle (0 on SQLite).',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const now = pool()
      this.set({ state: 'in_use' }, now.poolTotal - now.poolIdle)
      this.set({ state: 'idle' }, now.poolIdle)
    },
  })
  new Gauge({
    name: 'gnap_postgres_pool_waiting',
    help: 'Queries waiting for a connection of the PostgreSQL pool (0 on SQLite).',
    registers: [registry],
    collect() {
      this.set(pool().poolWaiting)
    },
  })
}

/** The webhook metrics on `registry`; returns what records one delivery attempt. */
function webhookMetrics(registry: Registry, undelivered: UndeliveredReader): WebMetrics['webhookDelivery'] {
  // Webhooks (docs/webhooks.md): each attempt's outcome, the delay from event to delivery, and the outbox's backlog.
  const webhookDeliveries = new Counter({
    name: 'gnap_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: delivered (a 2xx), retrying (failed, tried again later), failed (failed, retries given up).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  })
  const webhookOutcomes: Record<WebhookDeliveryOutcome, Counter.Internal> = {
    delivered: webhookDeliveries.labels('delivered'),
    retrying: webhookDeliveries.labels('retrying'),
    failed: webhookDeliveries.labels('failed'),
  }
  const webhookDelay = new Histogram({
    name: 'gnap_webhook_delivery_delay_seconds',
    help: 'Time from an event (the state change) to the end of the attempt that delivered it.',
    buckets: WEBHOOK_DELAY_BUCKETS,
    registers: [registry],
  })
  // The backlog is the database's, the same for every process: read at the scrape by each worker, and the launcher's
  // primary keeps the largest answer instead of summing them ('max'), so N workers do not count it N times. A read
  // that fails or takes too long leaves the last value (the database being away shows on /readyz and the pool).
  let backlog: Promise<{ count: number; ageSeconds: number }> | null = null
  let last = { count: 0, ageSeconds: 0 }
  const readBacklog = (): Promise<{ count: number; ageSeconds: number }> =>
    (backlog ??= (async () => {
      let timer: NodeJS.Timeout | undefined
      try {
        const read = await Promise.race([
          undelivered(),
          new Promise<null>((resolve) => {
            timer = setTimeout(() => resolve(null), UNDELIVERED_READ_MS)
          }),
        ])
        if (read) last = { count: read.count, ageSeconds: read.oldest ? Math.max(0, (Date.now() - read.oldest.getTime()) / 1000) : 0 }
      } catch {
        // keep the last value
      } finally {
        clearTimeout(timer)
        backlog = null
      }
      return last
    })())
  new Gauge({
    name: 'gnap_webhook_undelivered',
    help: 'Webhook deliveries not yet delivered nor given up (pending), in the database.',
    aggregator: 'max',
    registers: [registry],
    async collect() {
      this.set((await readBacklog()).count)
    },
  })
  new Gauge({
    name: 'gnap_webhook_oldest_undelivered_age_seconds',
    help: 'Age of the event of the oldest pending webhook delivery (0 when none is pending).',
    aggregator: 'max',
    registers: [registry],
    async collect() {
      this.set((await readBacklog()).ageSeconds)
    },
  })
  return (outcome: WebhookDeliveryOutcome, seconds: number) => {
    webhookOutcomes[outcome].inc()
    if (outcome === 'delivered') webhookDelay.observe(seconds)
  }
}

/** The launcher's fair-turn queue on `registry`, when this process runs under it. */
function registerFairTurnMetrics(registry: Registry): void {
  // The launcher's fair turns, when this process runs under it: the queue's length at the scrape, and the wait of
  // each request that had to queue.
  const fairTurns = (globalThis as Record<symbol, FairTurnsStats | undefined>)[FAIR_TURNS]
  new Gauge({
    name: 'gnap_fair_turns_queue_length',
    help: 'Requests waiting in the fair-turn queue for a later turn of the event loop (0 without the launcher).',
    registers: [registry],
    collect() {
      this.set(fairTurns?.waiting() ?? 0)
    },
  })
  const waits = new Histogram({
    name: 'gnap_fair_turns_wait_seconds',
    help: 'How long requests that had to queue waited in the fair-turn queue before they started.',
    buckets: WAIT_BUCKETS,
    registers: [registry],
  })
  if (fairTurns) fairTurns.onWait = (seconds) => waits.observe(seconds)
}

/**
 * The process's metrics on a registry of its own: the default Node.js metrics (CPU, memory, event-loop lag, GC),
 * the domain's events, the requests, the store's pressure (`pressure`, read at each scrape), the webhook outbox
 * (`undelivered`, read from the database at each scrape) and the fair-turn queue.
 * In a worker of the launcher, the registry is the one the primary collects.
 */
export function createWebMetrics(pressure: () => SqlPressure, undelivered: UndeliveredReader): WebMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  // 1 in every process: summed over the launcher's workers, the number of processes that answered the scrape.
  new Gauge({ name: 'gnap_processes', help: 'Server processes whose metrics this scrape sums.', registers: [registry] }).set(1)
  const { requests, latency, grants, issued, rotated, revoked, introspections, signatureFailures, fetches, rateLimited, adminApiCalls } =
    protocolMetrics(registry)
  registerPressureMetrics(registry, pressure)
  const webhookDelivery = webhookMetrics(registry, undelivered)
  registerFairTurnMetrics(registry)

  // Children bound once per label set: a request costs map lookups, never a label string.
  const grantChildren = new Map<string, Counter.Internal>()
  const child = <K extends string>(map: Map<string, Counter.Internal>, counter: Counter<K>, value: string): Counter.Internal => {
    let c = map.get(value)
    if (!c) map.set(value, (c = counter.labels(value)))
    return c
  }
  const introspectionChildren = { active: introspections.labels('active'), inactive: introspections.labels('inactive') }
  const checkChildren = new Map<string, Counter.Internal>()
  const limitChildren = new Map<string, Counter.Internal>()
  const adminApiChildren = new Map<string, Counter.Internal>()
  const routes = new Map<string, RouteMeter>()

  if (cluster.isWorker) {
    // The launcher's primary asks each ready worker for its registry and sums them (prom-client's
    // AggregatorRegistry.aggregate, packages/launcher serve.ts).
    process.on('message', (msg: { gnap?: unknown; id?: unknown } | null) => {
      if (msg?.gnap !== 'metrics-collect') return
      void registry.getMetricsAsJSON().then((metrics) => process.send?.({ gnap: 'metrics-collected', id: msg.id, metrics }))
    })
  }

  return {
    registry,
    grant: (outcome, count = 1) => {
      if (count > 0) child(grantChildren, grants, outcome).inc(count)
    },
    tokenIssued: () => issued.inc(),
    tokenRotated: () => rotated.inc(),
    tokensRevoked: (count) => {
      if (count > 0) revoked.inc(count)
    },
    introspection: (active) => (active ? introspectionChildren.active : introspectionChildren.inactive).inc(),
    signatureFailure: (check: SignatureCheck) => child(checkChildren, signatureFailures, check).inc(),
    outboundFetch: (kind: OutboundFetchKind, outcome: OutboundFetchOutcome, seconds: number) => fetches.labels(kind, outcome).observe(seconds),
    rateLimited: (limit: RateLimitName) => child(limitChildren, rateLimited, limit).inc(),
    webhookDelivery,
    adminApiCall: (operation, outcome) => {
      const key = `${operation} ${outcome}`
      let c = adminApiChildren.get(key)
      if (!c) adminApiChildren.set(key, (c = adminApiCalls.labels(operation, outcome)))
      c.inc()
    },
    route(template) {
      let meter = routes.get(template)
      if (meter) return meter
      // Per method, then per status: the children of this route, made on first use.
      const byMethod = new Map<string, { timer: Histogram.Internal<'route' | 'method'>; statuses: Map<number, Counter.Internal> }>()
      meter = {
        done(method, status, seconds) {
          let m = byMethod.get(method)
          if (!m) byMethod.set(method, (m = { timer: latency.labels(template, method), statuses: new Map() }))
          m.timer.observe(seconds)
          let c = m.statuses.get(status)
          if (!c) m.statuses.set(status, (c = requests.labels(template, method, String(status))))
          c.inc()
        },
      }
      routes.set(template, meter)
      return meter
    },
  }
}

/**
 * A route template from a request's path and its route parameters: each parameter's segment named `[name]`
 * (`/continue/0a1b…` with `{ id }` → `/continue/[id]`), so no id ever becomes a label. Null when a parameter's value
 * is not a segment of the path.
 */
export function routeTemplate(pathname: string, params: Record<string, string | string[]>): string | null {
  const segments = pathname.split('/')
  const decoded = segments.map((s) => {
    try {
      return decodeURIComponent(s)
    } catch {
      return s
    }
  })
  // From the last parameter back, each takes the last segment equal to its value not taken yet.
  const names = Object.keys(params)
  let end = segments.length
  for (let i = names.length - 1; i >= 0; i--) {
    const name = names[i]!
    const value = params[name]
    if (typeof value !== 'string') return null
    let at = -1
    for (let j = end - 1; j >= 1; j--) {
      if (decoded[j] === value) {
        at = j
        break
      }
    }
    if (at < 0) return null
    segments[at] = `[${name}]`
    end = at
  }
  return segments.join('/') || '/'
}
