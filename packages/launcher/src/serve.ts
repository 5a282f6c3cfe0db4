// The production server as WEB_CONCURRENCY processes sharing one port (one worker per core). The primary forks the
// workers with node:cluster; each worker runs Next's own `next start` CLI in this process (Next 16 serves in the
// process that runs it, it forks no child), so its listen() goes through the primary, which hands the connections to
// the workers in turn. The primary serves nothing itself.
//
// - A worker is started once it says so (instrumentation.ts sends `{ gnap: 'ready' }` when the settings are valid
//   and the database is open). A worker that exits before that, or is not ready within STARTUP_TIMEOUT_SECONDS, is
//   a start-up failure: it is retried with a backoff, and after MAX_STARTUP_FAILURES in a row in one slot the
//   launcher stops everything and exits 1 (a bad setting or a missing database would otherwise loop forever).
// - A worker that dies after start-up is replaced at once the first time, then with a doubling delay (up to 30 s)
//   while it keeps dying within a minute.
// - SIGINT/SIGTERM: each worker gets the signal and stops gracefully (the server's own handler: /readyz answers 503
//   at once, the requests in flight finish within SHUTDOWN_GRACE_SECONDS, then it exits); the primary exits 0 when all are gone, or kills the rest after SHUTDOWN_TIMEOUT_SECONDS and
//   exits 1. A second signal kills at once. If the primary dies, the workers exit too (their IPC channel closes).
// - Each worker gets V8's old-space limit WORKER_HEAP_MB (0 keeps V8's default), unless NODE_OPTIONS sets one.
// - Metrics (METRICS_PORT, METRICS_SECRET): the primary answers a scrape with every ready worker's metrics summed
//   (prom-client's AggregatorRegistry.aggregate): on 127.0.0.1:METRICS_PORT itself, and for a worker that took a
//   GET /metrics on the public port (it asks over IPC). A worker that does not answer within a few seconds is left out.
// - Each worker's request listener is wrapped by fairTurns (fair-turns.ts, TURN_BUDGET_MS): a busy worker's event
//   loop spends a few milliseconds on requests per turn, so it keeps accepting new connections.
//
// Used by `pnpm start` (start.ts, after migrations and seed), the benchmark and the two-instance set-up; run
// directly (`node packages/launcher/dist/serve.js`), it expects a migrated database and the server's settings in the
// environment. Started with an IPC channel, it tells its parent `{ gnap: 'ready' }` once every worker is ready, and
// stops when the parent goes. It runs compiled (dist/serve.js): the primary forks its workers from this very file.
import type * as Zod from 'zod'
import type * as PromClient from 'prom-client'
import cluster, { type Worker } from 'node:cluster'
import fs from 'node:fs'
import http from 'node:http'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { DEFAULT_TURN_BUDGET_MS, installFairTurns } from './fair-turns.js'
import { requireNodeRuntime } from './node-runtime.js'
import { applyLauncherAliases } from './rafiki-names.js'

/** The repository (this module runs from packages/launcher/dist). */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
const webDir = path.join(root, 'apps', 'web')
const webRequire = createRequire(path.join(webDir, 'package.json'))

const MAX_STARTUP_FAILURES = 3
const STARTUP_BACKOFF_MS = 500
const CRASH_WINDOW_MS = 60_000
const MAX_BACKOFF_MS = 30_000

export interface LauncherSettings {
  WEB_CONCURRENCY: number
  PORT: number
  HOSTNAME?: string | undefined
  WORKER_HEAP_MB: number
  TURN_BUDGET_MS: number
  STARTUP_TIMEOUT_SECONDS: number
  SHUTDOWN_TIMEOUT_SECONDS: number
  METRICS_PORT?: number | undefined
}

/**
 * The launcher's settings as a zod schema, built with the zod module given (the launcher loads zod on first use; the
 * configuration document is generated from this schema, docs/configuration.md).
 */
export function launcherSettingsSchema(z: typeof Zod.z) {
  const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max)
  return z.object({
    WEB_CONCURRENCY: int(1, 256)
      .default(os.availableParallelism())
      .meta({ description: 'Worker processes of `next start`, all serving `PORT`.', defaultText: 'number of cores' }),
    PORT: int(1, 65535).default(3000).meta({ description: 'Port the workers share.' }),
    HOSTNAME: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'Address to listen on, e.g. `127.0.0.1` behind a proxy on the same machine.', defaultText: 'all interfaces' }),
    // V8 sizes a process's heap from the machine's memory and grows it lazily; with a 256 MB old space a busy
    // worker's RSS stays far lower at the same requests per second and CPU time per request (docs/operating.md,
    // "Several processes on one machine").
    WORKER_HEAP_MB: int(0, 65536).default(256).meta({
      description: "V8 old-space limit of each worker (`--max-old-space-size`); 0 keeps V8's default; ignored when `NODE_OPTIONS` sets one.",
    }),
    // A busy worker's event loop spends at most this on requests per turn before it goes back to accept new
    // connections (fair-turns.ts); 0 turns that off. A larger budget makes the slowest answer slower; without one,
    // some connections time out under a burst (docs/operating.md, "Several processes on one machine").
    TURN_BUDGET_MS: int(0, 1000).default(DEFAULT_TURN_BUDGET_MS).meta({
      description:
        "Milliseconds a busy worker's event loop spends starting requests per turn before the rest wait for later turns (fair turns); 0 turns it off.",
    }),
    STARTUP_TIMEOUT_SECONDS: int(1, 3600).default(60).meta({ description: 'A worker not ready by then is killed and counts as a failed start.' }),
    SHUTDOWN_TIMEOUT_SECONDS: int(1, 3600)
      .default(10)
      .meta({ description: 'On SIGINT/SIGTERM, how long workers may finish their requests before they are killed.' }),
    // The server's setting (its schema describes it); the primary serves it.
    METRICS_PORT: int(1, 65535).optional().meta({
      description: "The server's `METRICS_PORT` (above): under the launcher its primary process serves that port, summing its workers' metrics.",
    }),
  })
}

/**
 * The launcher's own settings, from the environment (the server's settings are validated by the server itself, in
 * each worker). zod is loaded here, on first use: a worker never loads it for the launcher.
 */
export function launcherSettings(env: Record<string, string | undefined> = process.env): LauncherSettings {
  const { z } = createRequire(import.meta.url)('zod') as typeof Zod
  const schema = launcherSettingsSchema(z)
  // Rafiki's AUTH_PORT is our PORT (rafiki-names.ts).
  const named = { ...env }
  const conflicts = applyLauncherAliases(named)
  const blankAsUnset = Object.fromEntries(Object.keys(schema.shape).map((k) => [k, named[k] === '' ? undefined : named[k]]))
  const parsed = schema.safeParse(blankAsUnset)
  if (!parsed.success || conflicts.length > 0) {
    const lines = [...conflicts, ...(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`))]
    throw new Error(`Invalid launcher setting:\n${lines.map((line) => `  ${line}`).join('\n')}`)
  }
  return parsed.data
}

/**
 * Where the launcher says the server is: AUTH_SERVER_URL as configured, the URL the server knows itself by (its
 * links, forms and cookies name that origin, so `localhost` and `127.0.0.1` are not interchangeable in a browser),
 * with the port and address it listens on; without AUTH_SERVER_URL, the address it listens on.
 */
export function announcedAddress(settings: Pick<LauncherSettings, 'PORT' | 'HOSTNAME'>, authServerUrl: string | undefined): string {
  const url = authServerUrl?.trim()
  if (!url) return `http://${settings.HOSTNAME ?? 'localhost'}:${settings.PORT}`
  return `${url} (listening on ${settings.HOSTNAME ?? 'every address'}, port ${settings.PORT})`
}

const log = (msg: string) => console.log(`[serve] ${msg}`)
const loud = (msg: string) => console.error(`[serve] !!! ${msg}`)

/** One slot per wanted worker: the current worker, whether it said ready, and its failure history. */
interface Slot {
  index: number
  worker: Worker | null
  ready: boolean
  startupFailures: number
  crashes: number[]
  timer: NodeJS.Timeout | null
}

/**
 * The primary's start: its settings checked (the process exits on a bad one or without a build), the cluster set up to
 * fork workers of this file, their environment, and one empty slot per wanted worker.
 */
function preparePrimary(env: Record<string, string | undefined>) {
  let settings: LauncherSettings
  try {
    settings = launcherSettings({ ...process.env, ...env })
  } catch (e) {
    loud((e as Error).message)
    process.exit(1)
  }
  // The workers' stop (SHUTDOWN_DELAY_SECONDS, then up to SHUTDOWN_GRACE_SECONDS) must end before the launcher's
  // timeout kills them mid-request (docs/protocol.md §2.19). The workers validate those two; here only their sum.
  const merged = { ...process.env, ...env }
  const seconds = (v: string | undefined, fallback: number) =>
    v === undefined || v.trim() === '' || !Number.isFinite(Number(v)) ? fallback : Number(v)
  const workerStop = seconds(merged.SHUTDOWN_DELAY_SECONDS, 0) + seconds(merged.SHUTDOWN_GRACE_SECONDS, 8)
  if (workerStop >= settings.SHUTDOWN_TIMEOUT_SECONDS) {
    loud(
      `SHUTDOWN_DELAY_SECONDS + SHUTDOWN_GRACE_SECONDS (${workerStop} s) reach SHUTDOWN_TIMEOUT_SECONDS (${settings.SHUTDOWN_TIMEOUT_SECONDS} s): ` +
        'a stop would kill workers with requests in flight; raise SHUTDOWN_TIMEOUT_SECONDS',
    )
  }
  if (!fs.existsSync(path.join(webDir, '.next', 'BUILD_ID'))) {
    loud('no production build in apps/web/.next: run `pnpm build` first')
    process.exit(1)
  }
  process.title = 'gnap-serve primary'
  const nodeOptions = env.NODE_OPTIONS ?? process.env.NODE_OPTIONS ?? ''
  const heapArgs = settings.WORKER_HEAP_MB > 0 && !/--max-old-space-size/.test(nodeOptions) ? [`--max-old-space-size=${settings.WORKER_HEAP_MB}`] : []
  cluster.setupPrimary({ exec: fileURLToPath(import.meta.url), args: [], cwd: webDir, execArgv: [...process.execArgv, ...heapArgs] })

  const host = settings.HOSTNAME
  const where = announcedAddress(settings, merged.AUTH_SERVER_URL)
  const workerEnv = {
    ...env,
    PORT: String(settings.PORT),
    ...(host ? { HOSTNAME: host } : {}),
    GNAP_SERVE_WORKER: '1',
    GNAP_TURN_BUDGET_MS: String(settings.TURN_BUDGET_MS),
    // The server stops itself on SIGTERM (docs/protocol.md §2.19: /readyz turns 503 while the requests in flight
    // finish); Next's own handler would close the port at once.
    NEXT_MANUAL_SIG_HANDLE: 'true',
  }
  const slots: Slot[] = Array.from({ length: settings.WEB_CONCURRENCY }, (_, i) => ({
    index: i,
    worker: null,
    ready: false,
    startupFailures: 0,
    crashes: [],
    timer: null,
  }))
  return { settings, heapArgs, where, workerEnv, slots }
}

/**
 * Runs the primary: forks the workers and supervises them until a signal stops it. `env` is added to every
 * worker's environment (on top of this process's). Returns nothing: the process exits when the server stops.
 */
export function serve(env: Record<string, string | undefined> = {}): void {
  const { settings, heapArgs, where, workerEnv, slots } = preparePrimary(env)
  let stopping = false
  let announced = false

  const fork = (slot: Slot): void => {
    slot.timer = null
    slot.ready = false
    const worker = cluster.fork(workerEnv)
    slot.worker = worker
    const startupTimer = setTimeout(() => {
      if (slot.worker === worker && !slot.ready) {
        loud(`worker ${slot.index + 1} (pid ${worker.process.pid}) not ready within ${settings.STARTUP_TIMEOUT_SECONDS} s: killing it`)
        worker.process.kill('SIGKILL')
      }
    }, settings.STARTUP_TIMEOUT_SECONDS * 1000)
    worker.on('message', (msg: { gnap?: unknown; id?: unknown } | null | undefined) => {
      if (msg?.gnap === 'metrics') return answerScrape(worker, msg.id)
      if (msg?.gnap !== 'ready' || slot.worker !== worker) return
      clearTimeout(startupTimer)
      slot.ready = true
      slot.startupFailures = 0
      if (!announced && slots.every((s) => s.ready)) {
        announced = true
        log(
          `ready: ${slots.length} worker${slots.length > 1 ? 's' : ''} on ${where}${heapArgs.length ? ` (heap limit ${settings.WORKER_HEAP_MB} MB each)` : ''}`,
        )
        // A parent that started us with an IPC channel (@gnap/test-support's instances) waits for this.
        process.send?.({ gnap: 'ready', workers: slots.length })
      }
    })
    worker.on('exit', (code: number | null, signal: string | null) => {
      clearTimeout(startupTimer)
      if (slot.worker === worker) slot.worker = null
      const how = signal ? `signal ${signal}` : `code ${code}`
      if (stopping) return onStopped()
      if (!slot.ready) {
        slot.startupFailures++
        if (slot.startupFailures >= MAX_STARTUP_FAILURES) {
          return giveUp(`worker ${slot.index + 1} failed to start ${slot.startupFailures} times in a row (last: ${how}); see its output above`)
        }
        const delay = Math.min(MAX_BACKOFF_MS, STARTUP_BACKOFF_MS * 2 ** (slot.startupFailures - 1))
        loud(`worker ${slot.index + 1} (pid ${worker.process.pid}) exited during start-up (${how}): retrying in ${delay} ms`)
        slot.timer = setTimeout(() => fork(slot), delay)
        return
      }
      const now = Date.now()
      slot.crashes = [...slot.crashes.filter((t) => now - t < CRASH_WINDOW_MS), now]
      const delay = slot.crashes.length <= 1 ? 0 : Math.min(MAX_BACKOFF_MS, STARTUP_BACKOFF_MS * 2 ** (slot.crashes.length - 2))
      loud(
        `worker ${slot.index + 1} (pid ${worker.process.pid}) died (${how}); ${slot.crashes.length} in the last minute: restarting${delay ? ` in ${delay} ms` : ''}`,
      )
      slot.timer = setTimeout(() => fork(slot), delay)
    })
  }

  // Metrics: every ready worker's registry, summed.
  const scrape = (): Promise<string> => scrapeWorkers(slots)
  const answerScrape = (worker: Worker, id: unknown): void => {
    scrape().then(
      (text) => worker.isConnected() && worker.send({ gnap: 'metrics', id, text }),
      (e: unknown) => worker.isConnected() && worker.send({ gnap: 'metrics', id, error: e instanceof Error ? e.message : String(e) }),
    )
  }
  if (settings.METRICS_PORT !== undefined) serveMetrics(settings.METRICS_PORT, scrape, (why) => giveUp(why))

  let exitCode = 0
  let killTimer: NodeJS.Timeout | null = null
  const live = () => slots.filter((s): s is Slot & { worker: Worker } => s.worker !== null)
  const onStopped = (): void => {
    if (live().length > 0) return
    if (killTimer) clearTimeout(killTimer)
    process.exit(exitCode)
  }
  const stop = (signal: NodeJS.Signals, code: number): void => {
    stopping = true
    exitCode = code
    for (const s of slots) {
      if (s.timer) clearTimeout(s.timer)
      s.timer = null
    }
    for (const s of live()) s.worker.process.kill(signal)
    killTimer = setTimeout(() => {
      const left = live()
      if (left.length === 0) return
      loud(`${left.length} worker(s) still running ${settings.SHUTDOWN_TIMEOUT_SECONDS} s after ${signal}: killing them`)
      exitCode = 1
      for (const s of left) s.worker.process.kill('SIGKILL')
    }, settings.SHUTDOWN_TIMEOUT_SECONDS * 1000)
    onStopped()
  }
  const giveUp = (why: string): void => {
    loud(`${why}; giving up, the server is not serving`)
    stop('SIGTERM', 1)
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (!stopping) {
        log(`${signal}: stopping ${live().length} worker(s) gracefully`)
        return stop(signal, 0)
      }
      // A second signal: no more waiting.
      exitCode = 1
      for (const s of live()) s.worker.process.kill('SIGKILL')
    })
  }
  // Started by a script with an IPC channel: this server lives as long as that script (a test runner that dies
  // leaves no server behind).
  if (process.send) process.once('disconnect', () => stopping || (log('parent gone: stopping'), stop('SIGTERM', 0)))
  log(`starting ${slots.length} worker${slots.length > 1 ? 's' : ''} of next start on ${where}`)
  for (const slot of slots) fork(slot)
}

/** Every ready worker's registry, summed (prom-client's AggregatorRegistry.aggregate). */
async function scrapeWorkers(slots: Slot[]): Promise<string> {
  const workers = slots.flatMap((s) => (s.ready && s.worker?.isConnected() ? [s.worker] : []))
  const parts = await Promise.all(workers.map(collectFrom))
  const { AggregatorRegistry } = createRequire(import.meta.url)('prom-client') as typeof PromClient
  return AggregatorRegistry.aggregate(
    parts.filter((p): p is PromClient.MetricObjectWithValues<PromClient.MetricValue<string>>[] => p !== null),
  ).metrics()
}

const COLLECT_TIMEOUT_MS = 5_000
let collections = 0

/** One worker's metrics (its registry as JSON, apps/web metrics.ts answers), or null when it does not answer in time. */
function collectFrom(worker: Worker): Promise<PromClient.MetricObjectWithValues<PromClient.MetricValue<string>>[] | null> {
  const id = ++collections
  return new Promise((resolve) => {
    const done = (value: PromClient.MetricObjectWithValues<PromClient.MetricValue<string>>[] | null) => {
      clearTimeout(timer)
      worker.off('message', onMessage)
      resolve(value)
    }
    const onMessage = (msg: { gnap?: unknown; id?: unknown; metrics?: unknown } | null) => {
      if (msg?.gnap === 'metrics-collected' && msg.id === id) done(Array.isArray(msg.metrics) ? (msg.metrics as never) : null)
    }
    const timer = setTimeout(() => done(null), COLLECT_TIMEOUT_MS)
    worker.on('message', onMessage)
    worker.send({ gnap: 'metrics-collect', id })
  })
}

/** GET /metrics on 127.0.0.1:`port`, no secret: loopback only, for an agent on the same machine. */
function serveMetrics(port: number, scrape: () => Promise<string>, fail: (why: string) => void): void {
  const server = new http.Server((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '/').split('?')[0] !== '/metrics') return void res.writeHead(404).end()
    scrape().then(
      (text) => res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' }).end(text),
      () => res.writeHead(503).end(),
    )
  })
  // A port that cannot be taken stops the launcher, like a bad setting.
  server.on('error', (e) => fail(`metrics port 127.0.0.1:${port}: ${e.message}`))
  server.listen(port, '127.0.0.1', () => log(`metrics on http://127.0.0.1:${port}/metrics`))
  server.unref()
}

/** A worker: Next's own CLI, `next start <apps/web> -p PORT [-H HOSTNAME]`, in this process. */
function runWorker(): void {
  const nextBin = webRequire.resolve('next/dist/bin/next')
  const args = ['start', webDir, '-p', process.env.PORT ?? '3000', ...(process.env.HOSTNAME ? ['-H', process.env.HOSTNAME] : [])]
  process.argv = [process.execPath, nextBin, ...args]
  // Short event-loop turns under load, so a busy worker still takes new connections (fair-turns.ts).
  installFairTurns({ budgetMs: Number(process.env.GNAP_TURN_BUDGET_MS) })
  webRequire(nextBin)
}

if (cluster.isWorker && process.env.GNAP_SERVE_WORKER === '1') runWorker()
else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  requireNodeRuntime('serve')
  serve()
}
