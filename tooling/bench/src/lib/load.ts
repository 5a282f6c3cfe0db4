// Load runs with autocannon. Every request is built in autocannon's per-request `setupRequest` hook and, where the
// answer carries state (a rotated token), read back in `onResponse`. autocannon hands both hooks the same context
// object for one request, so the hook remembers which rotation chain the request used and puts the chain back
// with its new token when the answer arrives. A chain whose request failed or was in flight when a run ended is
// dropped: its latest value is unknown.
import { randomUUID } from 'node:crypto'
import autocannon from 'autocannon'
import { signFast } from './signer'
import {
  INTROSPECTION_SECRET,
  incomingGrantBody,
  prepareApproved,
  prepareTokens,
  type ApprovedGrant,
  type BenchClient,
  type LiveToken,
} from './prepare'

export interface Target {
  /** What is measured, e.g. `next`, `floor`, `ceiling`. */
  name: string
  /** Base URL with one trailing slash (AUTH_SERVER_URL of the server): what requests are signed for. */
  url: string
  /** Where the load connects when that is not `url`: one instance of several behind one public URL. */
  connect?: string
}

/** What autocannon keeps for one request between `setupRequest` and `onResponse`. */
type Context = Record<string, unknown>

/** A request template with its per-request hooks (autocannon's Request, with the hooks typed as used here). */
interface Request {
  method: 'GET' | 'POST'
  path: string
  headers?: Record<string, string>
  body?: string
  setupRequest?: (req: Request, context: Context) => Request
  onResponse?: (status: number, body: string, context: Context) => void
}

export interface Scenario {
  op: string
  /** Makes sure the state for a run at `connections` for `seconds` exists (prepared through the real flow). */
  prepare(target: Target, connections: number, seconds: number): Promise<void>
  request(target: Target): Request
  /** Requests this scenario can still serve (each interact_ref works once); Infinity when unbounded. */
  available(): number
  /** Failed answers seen since the last call: status → count, and a few bodies. */
  takeFailures(): { statuses: Record<string, number>; samples: string[] }
}

function failures() {
  let statuses: Record<string, number> = {}
  let samples: string[] = []
  return {
    record(status: number, body: string) {
      statuses[status] = (statuses[status] ?? 0) + 1
      if (samples.length < 3) samples.push(`${status} ${body.slice(0, 200)}`)
    },
    take() {
      const out = { statuses, samples }
      statuses = {}
      samples = []
      return out
    },
  }
}

/** autocannon writes Content-Length itself for a body (the same value): a second one would make the request invalid. */
function withoutLength(headers: Record<string, string>): Record<string, string> {
  delete headers['content-length']
  return headers
}

const pathOf = (url: string) => {
  const u = new URL(url)
  return u.pathname + u.search
}

/**
 * POST /token/{id}: each request takes a free chain (a client's live token), signs with the client's key and the
 * token, and on 200 puts the chain back with the new value and manage id. LIFO: at concurrency 1 one chain rotates
 * again and again.
 */
export function rotationScenario(clients: BenchClient[]): Scenario & { ensure(target: Target, chains: number): Promise<void> } {
  const free: LiveToken[] = []
  const failed = failures()
  let prepared = 0
  const ensure = async (target: Target, need: number) => {
    if (free.length < need) {
      const more = await prepareTokens(target.url, clients, need - free.length, prepared)
      prepared += more.length
      free.push(...more)
    }
  }
  return {
    op: 'rotate',
    ensure,
    // Twice the connections: a run loses the chains in flight when it ends.
    prepare: (target, connections) => ensure(target, connections * 2 + 8),
    request(target) {
      return {
        method: 'POST',
        path: '/token/',
        setupRequest(req, context) {
          // Never empty while failures stay rare (twice the connections are prepared); if it is, the request goes
          // to an unknown id and counts as a failure rather than stopping the run.
          const chain = free.pop() ?? { client: 0, managementId: randomUUID(), value: 'NONE' }
          context.chain = chain
          const url = `${target.url}token/${chain.managementId}`
          req.path = pathOf(url)
          req.headers = signFast(clients[chain.client]!.key, { method: 'POST', url, authorization: `GNAP ${chain.value}` })
          return req
        },
        onResponse(status, body, context) {
          const chain = context.chain as LiveToken
          if (status !== 200) return failed.record(status, body)
          const json = JSON.parse(body) as { access_token: { value: string; manage: string } }
          const manage = json.access_token.manage
          free.push({ client: chain.client, managementId: manage.slice(manage.lastIndexOf('/') + 1), value: json.access_token.value })
        },
      }
    },
    available: () => Infinity,
    takeFailures: () => failed.take(),
  }
}

/** POST /introspect with the bearer secret, for a random live token of the pool; an inactive answer is a failure. */
export function introspectionScenario(
  clients: BenchClient[],
  poolSize: number,
  extra: LiveToken[] = [],
): Scenario & {
  /** The same requests with the same pool of tokens, sent to `path` under the target's address: another way in. */
  through(op: string, path: string): Scenario
} {
  const tokens: LiveToken[] = [...extra]
  let prepared = false
  const via = (op: string, path: string): Scenario => {
    const failed = failures()
    return {
      op,
      async prepare(target) {
        if (prepared) return
        tokens.push(...(await prepareTokens(target.url, clients, poolSize, 1_000_000)))
        prepared = true
      },
      request(target) {
        return {
          method: 'POST',
          path: `/${path}`,
          setupRequest(req) {
            const token = tokens[Math.floor(Math.random() * tokens.length)]!
            req.headers = { 'content-type': 'application/json', authorization: `Bearer ${INTROSPECTION_SECRET}` }
            req.body = JSON.stringify({ access_token: token.value })
            return req
          },
          onResponse(status, body) {
            if (status !== 200 || !body.startsWith('{"active":true')) failed.record(status, body)
          },
        }
      },
      available: () => Infinity,
      takeFailures: () => failed.take(),
    }
  }
  return { ...via('introspect', 'introspect'), through: via }
}

/**
 * POST /continue/{id} with the interact_ref of an approved grant: each grant once. The pool is prepared before
 * each run for the expected count (`ratePerSecond` × seconds, capped), and the run ends early if it is used up.
 */
export function continuationScenario(
  clients: BenchClient[],
  opts: { ratePerSecond: number; max: number; waitSeconds: number },
): Scenario & {
  setRate(rps: number): void
} {
  const queue: ApprovedGrant[] = []
  const failed = failures()
  let rate = opts.ratePerSecond
  let prepared = 0
  return {
    op: 'continue',
    setRate(rps) {
      rate = Math.max(rate, rps)
    },
    async prepare(target, connections, seconds) {
      const need = Math.min(opts.max, Math.ceil(rate * seconds * 1.3) + connections * 2)
      if (queue.length < need) {
        const more = await prepareApproved(target.url, clients, need - queue.length, prepared)
        prepared += more.length
        queue.push(...more)
        // continue.wait: continuing earlier answers too_fast.
        await new Promise((r) => setTimeout(r, opts.waitSeconds * 1000 + 200))
      }
    },
    request(target) {
      return {
        method: 'POST',
        path: '/continue/',
        setupRequest(req) {
          const grant = queue.shift() ?? { client: 0, continueId: randomUUID(), continueToken: 'NONE', interactRef: 'NONE' }
          const url = `${target.url}continue/${grant.continueId}`
          const body = JSON.stringify({ interact_ref: grant.interactRef })
          req.path = pathOf(url)
          req.headers = withoutLength(
            signFast(clients[grant.client]!.key, { method: 'POST', url, authorization: `GNAP ${grant.continueToken}`, body }),
          )
          req.body = body
          return req
        },
        onResponse(status, body) {
          if (status !== 200) failed.record(status, body)
        },
      }
    },
    available: () => queue.length,
    takeFailures: () => failed.take(),
  }
}

/** POST / non-interactive incoming-payment grants, each signed afresh. */
export function grantScenario(clients: BenchClient[]): Scenario {
  const failed = failures()
  let n = 0
  return {
    op: 'grant',
    async prepare() {},
    request(target) {
      return {
        method: 'POST',
        path: pathOf(target.url),
        setupRequest(req) {
          const client = clients[n++ % clients.length]!
          const body = incomingGrantBody(client)
          req.headers = withoutLength(signFast(client.key, { method: 'POST', url: target.url, body }))
          req.body = body
          return req
        },
        onResponse(status, body) {
          if (status !== 200) failed.record(status, body)
        },
      }
    },
    available: () => Infinity,
    takeFailures: () => failed.take(),
  }
}

/** GET of one URL, answered with constant JSON (the ceiling app) or any fixed answer; `expect` is the status. */
export function constantScenario(op: string, path: string, expect: number): Scenario {
  const failed = failures()
  return {
    op,
    async prepare() {},
    request() {
      return {
        method: 'GET',
        path,
        onResponse(status, body) {
          if (status !== expect) failed.record(status, body)
        },
      }
    },
    available: () => Infinity,
    takeFailures: () => failed.take(),
  }
}

export interface RunResult {
  target: string
  op: string
  connections: number
  seconds: number
  requests: number
  rps: number
  p50: number
  p99: number
  max: number
  /** Connection errors and timeouts. */
  errors: number
  timeouts: number
  /** Answers other than the expected one (non-2xx, or an inactive introspection). */
  failures: number
  statuses: Record<string, number>
  samples: string[]
  stoppedEarly?: string
}

interface Run {
  result: autocannon.Result
  amount: number | undefined
}

/**
 * One autocannon run of `seconds` against `target` (its `connect` address when given), or of `amount` requests
 * stopped after `seconds`. `onLatency` gets the response time of every 2xx answer, in ms (what autocannon's own
 * latency histogram records).
 */
async function autocannonRun(
  target: Target,
  scenario: Scenario,
  connections: number,
  seconds: number,
  amount: number | undefined,
  onLatency?: (ms: number) => void,
): Promise<Run> {
  const url = new URL(target.connect ?? target.url)
  // Without a callback autocannon returns its instance (an EventEmitter with stop()), which is also a promise.
  const instance = autocannon({
    url: `${url.protocol}//${url.host}`,
    connections,
    pipelining: 1,
    timeout: 10,
    sampleInt: 100,
    ...(amount !== undefined ? { amount } : { duration: seconds }),
    requests: [scenario.request(target)] as unknown as autocannon.Request[],
  } as autocannon.Options) as unknown as autocannon.Instance
  if (onLatency) {
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status >= 200 && status < 300) onLatency(ms)
    })
  }
  const timer = amount !== undefined ? setTimeout(() => instance.stop(), seconds * 1000) : undefined
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    instance.on('done', resolve)
    instance.on('error', reject)
    // autocannon calls back through `done` when given no callback; guard against a run that never ends.
    setTimeout(() => reject(new Error('load run did not end')), (seconds + 60) * 1000).unref()
  })
  if (timer) clearTimeout(timer)
  return { result, amount }
}

/** How many requests a run may send: the scenario's pool when it is finite (each interact_ref works once). */
function amountFor(scenario: Scenario, connections: number): number | undefined {
  const available = scenario.available()
  return Number.isFinite(available) ? Math.max(connections, available) : undefined
}

const stoppedEarlyNote = (runs: Run[], seconds: number) => {
  const early = runs.filter((r) => r.amount !== undefined && r.result.duration < seconds - 0.5)
  if (early.length === 0) return undefined
  const amount = runs.reduce((a, r) => a + (r.amount ?? 0), 0)
  return `pool of ${amount} used up after ${Math.max(...early.map((r) => r.result.duration))} s`
}

/** One autocannon run of `seconds`, stopped early when the scenario's pool runs out. */
export async function runLoad(target: Target, scenario: Scenario, connections: number, seconds: number): Promise<RunResult> {
  const run = await autocannonRun(target, scenario, connections, seconds, amountFor(scenario, connections))
  const { result } = run
  const stoppedEarly = stoppedEarlyNote([run], seconds)
  const f = scenario.takeFailures()
  const failuresCount = Object.values(f.statuses).reduce((a, b) => a + b, 0)
  const requests = result.requests.total
  return {
    target: target.name,
    op: scenario.op,
    connections,
    seconds: result.duration,
    requests,
    rps: Math.round(requests / result.duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    errors: result.errors,
    timeouts: result.timeouts,
    failures: failuresCount,
    statuses: f.statuses,
    samples: f.samples,
    ...(stoppedEarly ? { stoppedEarly } : {}),
  }
}

/** The nearest-rank percentile of sorted whole milliseconds (what autocannon's histogram reports for one run). */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}

/**
 * The load of `connections` split across several instances at the same time: one autocannon run per target with
 * its share of the connections (ceil/floor of connections / targets; a target whose share is 0 gets no run), all
 * drawing on the scenario's one pool. Requests, req/s, errors and failures are summed over the runs; p50, p99 and
 * max are computed over the merged response times of every 2xx answer of all runs (nearest rank, whole ms, as
 * autocannon reports one run), not averaged from per-run percentiles.
 */
export async function runSplit(
  name: string,
  targets: Target[],
  scenario: Scenario,
  connections: number,
  seconds: number,
): Promise<RunResult & { split: number[] }> {
  const split = targets.map((_, i) => Math.floor(connections / targets.length) + (i < connections % targets.length ? 1 : 0))
  const total = amountFor(scenario, connections)
  const latencies: number[] = []
  const record = (ms: number) => latencies.push(Math.floor(ms))
  const runs = await Promise.all(
    targets.flatMap((target, i) => {
      const share = split[i]!
      if (share === 0) return []
      // A finite pool is divided in proportion to the connections, so the runs together send it once.
      const amount = total === undefined ? undefined : Math.max(share, Math.floor((total * share) / connections))
      return [autocannonRun(target, scenario, share, seconds, amount, record)]
    }),
  )
  latencies.sort((a, b) => a - b)
  const f = scenario.takeFailures()
  const sum = (pick: (r: autocannon.Result) => number) => runs.reduce((a, r) => a + pick(r.result), 0)
  const requests = sum((r) => r.requests.total)
  const stoppedEarly = stoppedEarlyNote(runs, seconds)
  return {
    target: name,
    op: scenario.op,
    connections,
    split,
    seconds: Math.max(...runs.map((r) => r.result.duration)),
    requests,
    rps: Math.round(runs.reduce((a, r) => a + r.result.requests.total / r.result.duration, 0)),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.length > 0 ? latencies[latencies.length - 1]! : 0,
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    failures: Object.values(f.statuses).reduce((a, b) => a + b, 0),
    statuses: f.statuses,
    samples: f.samples,
    ...(stoppedEarly ? { stoppedEarly } : {}),
  }
}
