// `pnpm bench`: the REST hot paths of the production build under load. Run `pnpm build` first.
//
// For each database size (a fresh file, then one seeded with BENCH_SCALE access tokens), it starts the server on the
// file as `pnpm start` does (the launcher, @gnap/launcher's compiled serve, with BENCH_WORKERS workers of `next start`), prepares grants through the real flow with N loopback test clients, and drives rotation chains,
// introspection (through Next's /introspect and through the introspection listener), continuation with interact_ref and grant requests with autocannon at each concurrency, after a
// warm-up. On the fresh file it also measures the floor (a bare node:http server doing the same SQLite and Ed25519
// work), the ceiling (a minimal Next app answering constant JSON) and our own app shell (a 405 from our handler after
// routing). It prints a table per size, the slowdown at scale, the ratios to floor and ceiling, and the hot queries'
// plans, and writes everything to bench/results/<time>.json. Every SQLite server has a metrics port, scraped right
// before and right after each measured run for the transactions committed per flush (txn/flush). On a new fresh file,
// a second server that differs only in SQLITE_SYNCHRONOUS runs the write operations again: the cost of durability
// (FULL beside NORMAL). With BENCH_DATABASE_URL (a PostgreSQL server), it also runs one instance on a PostgreSQL
// database, then two instances on another with the load split across both, beside one instance on SQLite.
//
// Settings (environment):
//   BENCH_SECONDS=10            measured seconds per run          BENCH_WARMUP_SECONDS=2   warm-up before each run
//   BENCH_SERVER_WARMUP_SECONDS=3  every operation once at 32 connections after the server starts, unmeasured
//   BENCH_CONCURRENCY=1,32,256  connections per run
//   BENCH_OPS=rotate,introspect,introspect-listener,continue,grant   introspect-listener: the same introspections
//                               sent to the introspection listener (INTROSPECTION_PORT, POST /) of the same server
//   BENCH_SCALE=10k             seeded sizes after the fresh one: 10k, 1m, 10k,1m, or none
//   BENCH_CLIENTS=16            test clients (wallet addresses with a key each)
//   BENCH_BASELINES=1           floor, ceiling and app shell (0: skip)
//   BENCH_CONTINUE_MAX=20000    most interactive grants prepared for one continuation run (it stops early when used up)
//   BENCH_SERVER_ENV='K=V …'    extra settings for the server (e.g. NODE_OPTIONS=--max-old-space-size=160);
//                               SQLITE_SYNCHRONOUS=normal makes NORMAL the main servers' mode (FULL by default)
//   BENCH_SYNC_COMPARE=1        rotate, continue and grant once more on a fresh file under the other SQLITE_SYNCHRONOUS
//                               (NORMAL beside the default FULL), same build and workers (0: skip)
//   BENCH_WORKERS=<cores>       worker processes of the server (WEB_CONCURRENCY of the launcher)
//   BENCH_DATABASE_URL=postgresql://user:password@host/db   a PostgreSQL server on which the bench creates (and drops)
//                               a database for one instance, then one for two instances; unset: no PostgreSQL run
//   BENCH_PG_WORKERS=1          worker processes of each PostgreSQL instance
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { openStore } from '@gnap/domain/kernel'
import { adminQuery, databaseUrl, generateClientKey, migrateFile, startWalletAddressServer } from '@gnap/domain/testing'
import { checkSigner } from './lib/signer'
import { INTROSPECTION_SECRET, type BenchClient } from './lib/prepare'
import {
  constantScenario,
  continuationScenario,
  grantScenario,
  introspectionScenario,
  rotationScenario,
  runLoad,
  runSplit,
  type Scenario,
  type Target,
} from './lib/load'
import { sampleRss } from './lib/rss'
import { seedTokens, type SeedResult } from './lib/seed'
import { hotQueryPlans, type QueryPlan } from './lib/plans'
import { cellsOf, loudFailures, resultTable, table, type Row } from './lib/report'
import { BATCHED_TRANSACTIONS, COMMIT_BATCHES, batchDelta, scrapeBatches, txnPerFlushCell } from './lib/metrics'
import { freePort, requireBuild, root, startCeiling, startFloor, startGnap, startGnapInstances } from './lib/servers'

const num = (name: string, fallback: number) => {
  const v = process.env[name]
  if (v === undefined || v === '') return fallback
  const n = Number(v)
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number`)
  return n
}
const list = (name: string, fallback: string) =>
  (process.env[name] || fallback)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)

const SCALES: Record<string, number> = { '10k': 10_000, '100k': 100_000, '1m': 1_000_000 }

const pgUrl = process.env.BENCH_DATABASE_URL || undefined
if (pgUrl && !/^postgres(ql)?:\/\/[^/]+/.test(pgUrl)) throw new Error('BENCH_DATABASE_URL must be a postgresql:// URL')
/** The PostgreSQL URL without its password, for printing and the results file. */
const redacted = (url: string) => {
  const u = new URL(url)
  if (u.password) u.password = '***'
  return u.toString()
}

const settings = {
  seconds: num('BENCH_SECONDS', 10),
  warmupSeconds: num('BENCH_WARMUP_SECONDS', 2),
  serverWarmupSeconds: num('BENCH_SERVER_WARMUP_SECONDS', 3),
  concurrency: list('BENCH_CONCURRENCY', '1,32,256').map(Number),
  ops: list('BENCH_OPS', 'rotate,introspect,introspect-listener,continue,grant'),
  scales: list('BENCH_SCALE', '10k').filter((s) => s !== 'none' && s !== '0'),
  clients: num('BENCH_CLIENTS', 16),
  baselines: process.env.BENCH_BASELINES !== '0',
  syncCompare: process.env.BENCH_SYNC_COMPARE !== '0',
  continueMax: num('BENCH_CONTINUE_MAX', 20_000),
  workers: Math.max(1, num('BENCH_WORKERS', os.availableParallelism())),
  postgres: pgUrl ? { url: redacted(pgUrl), instances: [1, 2], workers: Math.max(1, num('BENCH_PG_WORKERS', 1)) } : null,
}

/** The server's settings: production, quiet logs, limits out of the way, tokens outliving the whole run. */
const SERVER_ENV: Record<string, string> = {
  LOG_LEVEL: 'warn',
  WAIT_SECONDS: '1',
  RATE_LIMIT_GRANTS_PER_MINUTE: '1000000',
  RATE_LIMIT_GRANTS_PER_MINUTE_PER_IP: '1000000',
  ACCESS_TOKEN_EXPIRY_SECONDS: '7200',
  ...Object.fromEntries(
    (process.env.BENCH_SERVER_ENV ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  ),
}

/**
 * The SQLite servers' SQLITE_SYNCHRONOUS, named explicitly: `full` (the server's default: every commit flushed to disk
 * before it is answered) unless BENCH_SERVER_ENV sets it. The durability comparison runs the other one.
 */
const SYNC = ((v: string) => {
  if (v !== 'full' && v !== 'normal') throw new Error(`BENCH_SERVER_ENV: SQLITE_SYNCHRONOUS must be full or normal, got ${v}`)
  return v
})((SERVER_ENV.SQLITE_SYNCHRONOUS ?? 'full').toLowerCase())
SERVER_ENV.SQLITE_SYNCHRONOUS = SYNC
const OTHER_SYNC = SYNC === 'full' ? 'normal' : 'full'
/** The operations that commit a write (a flush under FULL), measured again by the durability comparison. */
const WRITE_OPS = ['rotate', 'continue', 'grant']

interface SizeReport {
  label: string
  tokensSeeded: number
  seed?: Omit<SeedResult, 'sample'>
  rows: Row[]
  plans: QueryPlan[]
}

const log = (s: string) => console.log(`[bench] ${s}`)

/**
 * Runs `scenario` at each concurrency against `targets` (several: the load split across them at the same time) and
 * samples the memory and CPU of the processes under `pids`. With `metricsPort` (a SQLite server's), the server's
 * write-batch counters are scraped right before and right after each measured run (outside the CPU sampled).
 */
async function measure(
  pids: number | number[],
  targets: Target | Target[],
  scenario: Scenario,
  rows: Row[],
  opts: { prepareWith?: Target; name?: string; metricsPort?: number } = {},
): Promise<void> {
  const list = Array.isArray(targets) ? targets : [targets]
  const name = opts.name ?? list[0]!.name
  const load = (connections: number, seconds: number) =>
    list.length === 1 ? runLoad(list[0]!, scenario, connections, seconds) : runSplit(name, list, scenario, connections, seconds)
  const rss = sampleRss(pids)
  try {
    for (const connections of settings.concurrency) {
      await scenario.prepare(opts.prepareWith ?? list[0]!, connections, settings.warmupSeconds + settings.seconds)
      if (settings.warmupSeconds > 0) {
        const warm = await load(connections, settings.warmupSeconds)
        if (warm.errors + warm.failures > 0)
          log(
            `warm-up of ${name} ${scenario.op} @${connections}: ${warm.errors} errors, ${warm.failures} unexpected ${JSON.stringify(warm.statuses)} ${warm.samples[0] ?? ''}`,
          )
      }
      const port = opts.metricsPort
      const before = port === undefined ? null : await scrapeBatches(port)
      rss.reset()
      const clientCpu = process.cpuUsage()
      const result = await load(connections, settings.seconds)
      const peak = rss.peek()
      const { user, system } = process.cpuUsage(clientCpu)
      const after = port === undefined ? null : await scrapeBatches(port)
      const perRequest = (ms: number) => (result.requests > 0 ? Math.round((ms / result.requests) * 1000) / 1000 : 0)
      const row: Row = {
        ...result,
        rssTreeMb: peak.treeMb,
        rssProcessMb: peak.processMb,
        serverCpuMsPerRequest: perRequest(peak.cpuMs),
        clientCpuMsPerRequest: perRequest((user + system) / 1000),
        ...(port === undefined ? {} : { batches: batchDelta(before, after) }),
      }
      rows.push(row)
      if ('setRate' in scenario && typeof scenario.setRate === 'function') scenario.setRate(result.rps)
      const flag = row.errors + row.failures > 0 ? `   !!! ${row.errors} errors, ${row.failures} unexpected ${JSON.stringify(row.statuses)}` : ''
      const split = 'split' in result ? ` (${(result.split as number[]).join('+')})` : ''
      const batches = port === undefined ? '' : `  txn/flush ${txnPerFlushCell(row.batches)}`
      log(
        `${name.padEnd(8)} ${scenario.op.padEnd(10)} @${String(connections).padEnd(3)} ${String(row.rps).padStart(6)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms  max ${row.max} ms  RSS ${row.rssProcessMb} MB/proc ${row.rssTreeMb} MB sum  CPU ${row.serverCpuMsPerRequest} ms/req (load generator ${row.clientCpuMsPerRequest})${batches}${split}${row.stoppedEarly ? `  (${row.stoppedEarly})` : ''}${flag}`,
      )
    }
  } finally {
    rss.stop()
  }
}

/** Introspection sent to the introspection listener: the target's `connect` is the listener's address. */
const LISTENER_OP = 'introspect-listener'

/** The operations, each with its own pools (the two introspections share theirs); `sample` adds seeded token values to introspection's. */
function scenariosFor(clients: BenchClient[], sample: string[]) {
  const rotation = rotationScenario(clients)
  const introspection = introspectionScenario(
    clients,
    2_000,
    sample.map((value) => ({ client: 0, managementId: '', value })),
  )
  const all: Record<string, Scenario> = {
    rotate: rotation,
    introspect: introspection,
    [LISTENER_OP]: introspection.through(LISTENER_OP, ''),
    continue: continuationScenario(clients, { ratePerSecond: 300, max: settings.continueMax, waitSeconds: 1 }),
    grant: grantScenario(clients),
  }
  const chosen = settings.ops.map((op) => {
    const scenario = all[op]
    if (!scenario) throw new Error(`BENCH_OPS: unknown operation ${op}`)
    return scenario
  })
  return { rotation, introspection, chosen }
}

/**
 * Every operation once before any is measured, so the first one measured does not pay for the JIT compiling code
 * the others share (Prisma, Next's request handling).
 */
async function warmServer(targets: Target[], chosen: Scenario[], targetFor: (s: Scenario) => Target = () => targets[0]!): Promise<void> {
  if (settings.serverWarmupSeconds <= 0) return
  for (const scenario of chosen) {
    await scenario.prepare(targets[0]!, 32, settings.serverWarmupSeconds)
    if (targets.length === 1) await runLoad(targetFor(scenario), scenario, 32, settings.serverWarmupSeconds)
    else await runSplit('warm-up', targets, scenario, 32, settings.serverWarmupSeconds)
  }
  log(`server warmed up: every operation for ${settings.serverWarmupSeconds} s at 32 connections`)
}

type Wallets = Awaited<ReturnType<typeof startWalletAddressServer>>

/** Every test client's wallet address now names `authServer` (each server on its own port is another URL). */
function pointClients(clients: BenchClient[], wallets: Wallets, authServer: string): void {
  for (const c of clients) c.walletAddress = wallets.addClient(c.name, { publicName: `Bench ${c.name}`, keys: [c.key.jwk], authServer })
}

/** The PostgreSQL runs' name in tables and rows: `pg-<instances>x<workers each>`. */
const pgName = (instances: number) => `pg-${instances}x${settings.postgres?.workers ?? 1}`

/**
 * PostgreSQL's synchronous_commit as a session of BENCH_DATABASE_URL's role sees it (the servers connect as that role
 * to databases made fresh, so with no settings of their own). `on` flushes every commit before it is answered, as
 * SQLite's FULL does; anything else is said loudly, since the comparison with SQLite would not be like for like.
 */
async function checkSynchronousCommit(): Promise<string> {
  const store = await openStore(pgUrl!)
  let value: string
  try {
    const [row] = await store.sql.all<{ synchronous_commit: string }>('SHOW synchronous_commit')
    value = row?.synchronous_commit ?? 'unknown'
  } finally {
    await store.close()
  }
  if (value === 'on') log('postgresql: synchronous_commit = on (every commit flushed to disk before it is answered, as SQLite FULL)')
  else console.log(`\n${pgSyncWarning(value)}\n`)
  return value
}

const pgSyncWarning = (value: string) => {
  const bar = '!'.repeat(78)
  return (
    `${bar}\n!!! PostgreSQL synchronous_commit = ${value}, not on: its commits are not (all) flushed to disk before they\n` +
    `!!! are answered, so its figures do not compare with SQLite's synchronous=FULL. Set it to on (postgresql.conf,\n` +
    `!!! ALTER SYSTEM, or ALTER ROLE) for a fair comparison.\n${bar}`
  )
}

/**
 * `count` instances (launchers with BENCH_PG_WORKERS workers each) on one fresh PostgreSQL database that the bench
 * creates on the server of BENCH_DATABASE_URL and drops afterwards; several answer for one public URL, as behind a
 * proxy, with the load split across them.
 */
async function measurePostgres(clients: BenchClient[], wallets: Wallets, rows: Row[], count: number): Promise<void> {
  const pg = settings.postgres!
  const dbName = `gnap_bench_${randomBytes(5).toString('hex')}`
  await adminQuery(pgUrl!, `CREATE DATABASE "${dbName}"`)
  try {
    // Metrics counted as on the SQLite servers (which have a metrics port), so both pay for the counting alike; the
    // instances share one environment, so a secret rather than a port each.
    const env = { ...SERVER_ENV, METRICS_SECRET: randomBytes(24).toString('hex') }
    const servers = await startGnapInstances(databaseUrl(pgUrl!, dbName), env, { count, workers: pg.workers })
    try {
      pointClients(clients, wallets, servers.url)
      log(
        `postgresql: ${count} instance(s) of ${pg.workers} worker(s) on database ${dbName} at ${servers.instances.map((i) => i.url).join(' and ')}, public URL ${servers.url}`,
      )
      // One instance's runs are named as a whole (pg-1x1); several are split runs, named by measure.
      const targets: Target[] = servers.instances.map((i) => ({ name: count === 1 ? pgName(1) : `pg-${i.name}`, url: servers.url, connect: i.url }))
      // The PostgreSQL instances run without the listener: their introspection goes through Next.
      const chosen = scenariosFor(clients, []).chosen.filter((s) => s.op !== LISTENER_OP)
      await warmServer(targets, chosen)
      for (const scenario of chosen) await measure(servers.pids, targets, scenario, rows, { name: pgName(count) })
    } finally {
      await servers.stop()
    }
  } finally {
    await adminQuery(pgUrl!, `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch((e: unknown) =>
      log(`could not drop ${dbName}: ${e instanceof Error ? e.message : String(e)}`),
    )
  }
}

/**
 * Our server on a migrated SQLite file as every SQLite run starts it: the launcher with BENCH_WORKERS workers, the
 * introspection listener and the metrics port (served by the launcher's primary, summing its workers) on free ports.
 */
async function startSqliteServer(dbFile: string, env: Record<string, string> = {}) {
  const listenerPort = await freePort()
  let metricsPort = await freePort()
  while (metricsPort === listenerPort) metricsPort = await freePort()
  const server = await startGnap(
    dbFile,
    { ...SERVER_ENV, ...env, INTROSPECTION_PORT: String(listenerPort), METRICS_PORT: String(metricsPort) },
    settings.workers,
  )
  // Said once per server: whether its metrics port answers and has the write-batch counters (else txn/flush is "-").
  const probe = await scrapeBatches(metricsPort)
  if (!probe) log(`!!! the metrics port ${metricsPort} did not answer: no txn/flush figures for this server`)
  else if (probe.batches === null || probe.transactions === null)
    log(`metrics port ${metricsPort}: no ${COMMIT_BATCHES} / ${BATCHED_TRANSACTIONS} on this build, txn/flush shows "-"`)
  return { server, listenerPort, metricsPort }
}

/**
 * The cost of durability: the write operations among BENCH_OPS again, on a new fresh file, on a server that differs
 * from the main one only in SQLITE_SYNCHRONOUS (NORMAL beside the default FULL), at the same concurrencies.
 */
async function measureSyncCompare(clients: BenchClient[], wallets: Wallets, rows: Row[]): Promise<void> {
  const chosen = scenariosFor(clients, []).chosen.filter((s) => WRITE_OPS.includes(s.op))
  if (chosen.length === 0) return log(`no write operation (${WRITE_OPS.join(', ')}) in BENCH_OPS: no synchronous comparison`)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-bench-'))
  const dbFile = path.join(dir, 'bench.db')
  try {
    migrateFile(dbFile)
    const { server, metricsPort } = await startSqliteServer(dbFile, { SQLITE_SYNCHRONOUS: OTHER_SYNC })
    try {
      pointClients(clients, wallets, server.url)
      log(
        `fresh, synchronous=${OTHER_SYNC.toUpperCase()}: a second server (${settings.workers} worker(s), metrics port ${metricsPort}) on a new fresh file at ${server.url} (pid ${server.pid})`,
      )
      const target: Target = { name: `next-${OTHER_SYNC}`, url: server.url }
      await warmServer([target], chosen)
      for (const scenario of chosen) await measure(server.pid, target, scenario, rows, { metricsPort })
    } finally {
      await server.stop()
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** One database size: seed it, start the server on it, measure every scenario, and on the fresh database the baselines. */
async function measureSize(
  size: { label: string; tokens: number },
  report: SizeReport,
  clients: BenchClient[],
  wallets: Wallets,
  baselineRows: Row[],
): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-bench-'))
  const dbFile = path.join(dir, 'bench.db')
  try {
    migrateFile(dbFile)
    let sample: string[] = []
    if (size.tokens > 0) {
      log(`seeding ${size.tokens.toLocaleString('en')} access tokens into ${dbFile}`)
      const seeded = seedTokens(dbFile, size.tokens)
      sample = seeded.sample
      report.seed = { tokens: seeded.tokens, grants: seeded.grants, seconds: seeded.seconds }
      log(`seeded ${seeded.tokens.toLocaleString('en')} tokens in ${seeded.grants.toLocaleString('en')} grants in ${seeded.seconds} s`)
      report.plans = await hotQueryPlans(dbFile, sample[0]!)
    }

    const { server, listenerPort, metricsPort } = await startSqliteServer(dbFile)
    const target: Target = { name: 'next', url: server.url }
    // The same server's introspection listener: requests go to its port, tokens are made through the app.
    const listenerTarget: Target = { name: 'next', url: server.url, connect: `http://127.0.0.1:${listenerPort}/` }
    const targetFor = (scenario: Scenario) => (scenario.op === LISTENER_OP ? listenerTarget : target)
    pointClients(clients, wallets, server.url)
    log(
      `${size.label}: the launcher with ${settings.workers} worker(s) of next start on ${server.url}, synchronous=${SYNC.toUpperCase()}, introspection listener on port ${listenerPort}, metrics port ${metricsPort} (pid ${server.pid})`,
    )

    const { rotation, introspection, chosen } = scenariosFor(clients, sample)
    let stopped = false
    try {
      await warmServer([target], chosen, targetFor)
      for (const scenario of chosen) await measure(server.pid, targetFor(scenario), scenario, report.rows, { metricsPort })
      if (size.tokens === 0 && settings.baselines) {
        await measureBaselines(server.pid, target, { rotation, introspection }, dbFile, baselineRows, async () => {
          await server.stop()
          stopped = true
        })
      }
    } finally {
      if (!stopped) await server.stop()
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The baselines beside our figures, on the fresh database: our app's shell, the floor (bare node:http on the same file)
 * and the ceiling (constant JSON under next start). Stops our server before the floor starts.
 */
async function measureBaselines(
  pid: number,
  target: Target,
  { rotation, introspection }: Pick<ReturnType<typeof scenariosFor>, 'rotation' | 'introspection'>,
  dbFile: string,
  baselineRows: Row[],
  stopServer: () => Promise<void>,
): Promise<void> {
  // Our app's shell: Next's routing and our handler, no database: GET on a POST-only route is a 405 (the GNAP
  // endpoints skip the proxy and set the security headers themselves).
  await measure(pid, target, constantScenario('app-shell', '/introspect', 405), baselineRows)
  // The floor serves the same file: enough live chains and tokens for it, prepared now, then Next stops.
  const most = Math.max(...settings.concurrency)
  await rotation.ensure(target, settings.concurrency.reduce((a, c) => a + 2 * c, 0) + most + 8)
  await introspection.prepare(target, most, settings.seconds)
  await stopServer()
  const floor = await startFloor(dbFile, INTROSPECTION_SECRET)
  try {
    const floorTarget: Target = { name: 'floor', url: floor.url }
    await measure(floor.pid, floorTarget, rotation, baselineRows, { prepareWith: target })
    await measure(floor.pid, floorTarget, introspection, baselineRows, { prepareWith: target })
  } finally {
    await floor.stop()
  }
  const ceiling = await startCeiling()
  try {
    await measure(ceiling.pid, { name: 'ceiling', url: ceiling.url }, constantScenario('constant', '/ping', 200), baselineRows)
  } finally {
    await ceiling.stop()
  }
}

const findRow = (rows: Row[], op: string, c: number, target = 'next') => rows.find((r) => r.op === op && r.connections === c && r.target === target)
const rpsOf = (rows: Row[], op: string, c: number, target = 'next') => findRow(rows, op, c, target)?.rps

/** How much each size slows each operation against the fresh database; printed, and returned for the results file. */
function reportSlowdowns(reports: SizeReport[]) {
  const fresh = reports[0]!
  const slowdowns: {
    size: string
    op: string
    connections: number
    freshRps: number
    rps: number
    slowdownPct: number
    /** Change of the server's CPU time per request: the figure other load on the machine disturbs least. */
    cpuPerRequestChangePct: number
  }[] = []
  const pct = (x: number) => Math.round(x * 1000) / 10
  for (const r of reports.slice(1)) {
    for (const row of r.rows) {
      const base = findRow(fresh.rows, row.op, row.connections)
      if (!base?.rps) continue
      slowdowns.push({
        size: r.label,
        op: row.op,
        connections: row.connections,
        freshRps: base.rps,
        rps: row.rps,
        slowdownPct: pct(1 - row.rps / base.rps),
        cpuPerRequestChangePct: base.serverCpuMsPerRequest > 0 ? pct(row.serverCpuMsPerRequest / base.serverCpuMsPerRequest - 1) : 0,
      })
    }
  }
  if (slowdowns.length > 0) {
    console.log('== slowdown vs. the fresh database (target: at most 20%); CPU/req is the change of the server CPU time per request')
    console.log(
      table(
        ['size', 'operation', 'conc', 'fresh req/s', 'req/s', 'slowdown', 'CPU/req'],
        slowdowns.map((s) => [
          s.size,
          s.op,
          s.connections,
          s.freshRps,
          s.rps,
          `${s.slowdownPct}%${s.slowdownPct > 20 ? '  !!! over 20%' : ''}`,
          `${s.cpuPerRequestChangePct > 0 ? '+' : ''}${s.cpuPerRequestChangePct}%`,
        ]),
      ),
    )
    console.log('')
  }
  return slowdowns
}

/** Our figures on the fresh database as ratios of the floor and the ceiling; printed, and returned for the results file. */
function reportRatios(fresh: SizeReport, baselineRows: Row[]) {
  const ratios: { op: string; connections: number; rps: number; floorRps?: number; ofFloor?: number; ceilingRps?: number; ofCeiling?: number }[] = []
  if (baselineRows.length > 0) {
    for (const row of fresh.rows) {
      // The floor's introspection is the same work as either of ours.
      const floorRps = rpsOf(baselineRows, row.op === LISTENER_OP ? 'introspect' : row.op, row.connections, 'floor')
      const ceilingRps = rpsOf(baselineRows, 'constant', row.connections, 'ceiling')
      ratios.push({
        op: row.op,
        connections: row.connections,
        rps: row.rps,
        ...(floorRps ? { floorRps, ofFloor: Math.round((row.rps / floorRps) * 1000) / 1000 } : {}),
        ...(ceilingRps ? { ceilingRps, ofCeiling: Math.round((row.rps / ceilingRps) * 1000) / 1000 } : {}),
      })
    }
    console.log(
      `== our figures (${settings.workers} worker(s)) as ratios of the floor (same work, bare node:http) and the ceiling (constant JSON under next start), each one process`,
    )
    console.log(
      table(
        ['operation', 'conc', 'req/s', 'floor req/s', 'of floor', 'ceiling req/s', 'of ceiling'],
        ratios.map((r) => [r.op, r.connections, r.rps, r.floorRps ?? '-', r.ofFloor ?? '-', r.ceilingRps ?? '-', r.ofCeiling ?? '-']),
      ),
    )
    console.log('')
  }
  return ratios
}

/** What the PostgreSQL part measured: its synchronous_commit, one instance's runs and two instances' runs. */
interface PgMeasured {
  synchronousCommit: string
  one: Row[]
  two: Row[]
}

const ratioOf = (a: number | undefined, b: number | undefined) => (a && b ? Math.round((a / b) * 100) / 100 : null)
/** A ratio's table cell: two decimals, or "-". */
const ratioCell = (r: number | null) => (r === null ? '-' : r.toFixed(2))

/** The write operations under both SQLITE_SYNCHRONOUS modes, fresh databases; printed, and returned for the results file. */
function reportDurability(fresh: SizeReport, syncRows: Row[]) {
  if (syncRows.length === 0) return []
  const figures = (r: Row | undefined) =>
    r ? { rps: r.rps, p99: r.p99, cpuMsPerRequest: r.serverCpuMsPerRequest, txnPerFlush: r.batches?.txnPerFlush ?? null } : null
  const compared = syncRows.map((other) => {
    const main = findRow(fresh.rows, other.op, other.connections)
    const [full, normal] = SYNC === 'full' ? [main, other] : [other, main]
    return {
      op: other.op,
      connections: other.connections,
      full: figures(full),
      normal: figures(normal),
      fullOfNormal: ratioOf(full?.rps, normal?.rps),
    }
  })
  console.log(`== fresh database, synchronous=${OTHER_SYNC.toUpperCase()} (a second server on a new fresh file, same build and workers)`)
  console.log(resultTable(syncRows))
  console.log('')
  console.log('== the cost of durability (fresh database): synchronous=FULL beside NORMAL')
  console.log(
    table(
      ['operation', 'conc', 'FULL req/s', 'p99 ms', 'CPU ms/req', 'NORMAL req/s', 'p99 ms', 'CPU ms/req', 'FULL/NORMAL'],
      compared.map((c) => [
        c.op,
        c.connections,
        ...cellsOf(c.full, 'rps', 'p99', 'cpuMsPerRequest'),
        ...cellsOf(c.normal, 'rps', 'p99', 'cpuMsPerRequest'),
        ratioCell(c.fullOfNormal),
      ]),
    ),
  )
  console.log(
    `   ${SYNC.toUpperCase()}: the main server's runs above; ${OTHER_SYNC.toUpperCase()}: the second server's. FULL/NORMAL is the ratio of requests per second.`,
  )
  console.log('')
  return compared
}

/** The PostgreSQL instances' figures, one instance and two, each beside one instance on SQLite. */
function reportPostgres(fresh: SizeReport, pg: PgMeasured | null): void {
  if (!pg) return
  const { workers } = settings.postgres!
  const two = pgName(2)
  console.log(`== PostgreSQL synchronous_commit = ${pg.synchronousCommit}`)
  if (pg.synchronousCommit !== 'on') console.log(pgSyncWarning(pg.synchronousCommit))
  console.log('')
  console.log(`== PostgreSQL: one instance (${workers} worker(s)) on a database of its own (${pgName(1)})`)
  console.log(resultTable(pg.one))
  console.log('')
  console.log(`== PostgreSQL: 2 instances (${workers} worker(s) each) on one database (${two})`)
  console.log(resultTable(pg.two))
  console.log('')
  console.log(`== ${two} beside one instance on SQLite (${settings.workers} worker(s)), fresh databases`)
  console.log(
    table(
      ['operation', 'conc', 'sqlite req/s', 'p50', 'p99', 'pg req/s', 'p50', 'p99', 'errors', 'non-2xx', 'pg/sqlite'],
      pg.two.map((r) => {
        const lite = findRow(fresh.rows, r.op, r.connections)
        return [
          r.op,
          r.connections,
          lite?.rps ?? '-',
          lite?.p50 ?? '-',
          lite?.p99 ?? '-',
          r.rps,
          r.p50,
          r.p99,
          r.errors,
          r.failures,
          ratioOf(r.rps, lite?.rps) ?? '-',
        ]
      }),
    ),
  )
  console.log(
    `   ${two}: each run is 2 autocannon runs at the same time, one per instance, with the connections split\n` +
      '   ceil/floor between them (at 1 connection only the first instance gets load); req/s, errors and non-2xx are\n' +
      '   summed; p50, p99 and max are taken over the merged response times of every 2xx answer of both runs (not\n' +
      "   averaged). CPU ms/req counts our processes only, not PostgreSQL's.",
  )
  console.log('')
}

/** SQLite (fresh), one PostgreSQL instance and two, side by side; printed, and returned for the results file. */
function reportPgSideBySide(fresh: SizeReport, pg: PgMeasured | null) {
  if (!pg) return []
  const keys = new Map([...pg.one, ...pg.two].map((r) => [`${r.op}@${r.connections}`, { op: r.op, connections: r.connections }]))
  const sideBySide = [...keys.values()].map(({ op, connections }) => {
    const [lite, one, two] = [
      findRow(fresh.rows, op, connections),
      findRow(pg.one, op, connections, pgName(1)),
      findRow(pg.two, op, connections, pgName(2)),
    ]
    const figures = (r: Row | undefined) => (r ? { rps: r.rps, p99: r.p99 } : null)
    return {
      op,
      connections,
      sqlite: figures(lite),
      pgOne: figures(one),
      pgTwo: figures(two),
      pgOneOfSqlite: ratioOf(one?.rps, lite?.rps),
      pgTwoOfPgOne: ratioOf(two?.rps, one?.rps),
    }
  })
  console.log(
    `== SQLite (fresh, synchronous=${SYNC.toUpperCase()}, one instance of ${settings.workers} worker(s)) beside PostgreSQL (synchronous_commit=${pg.synchronousCommit}): ` +
      `one instance (pg-1) and two (pg-2) of ${settings.postgres!.workers} worker(s) each`,
  )
  console.log(
    table(
      ['operation', 'conc', 'sqlite req/s', 'p99 ms', 'pg-1 req/s', 'p99 ms', 'pg-2 req/s', 'p99 ms', 'pg-1/sqlite', 'pg-2/pg-1'],
      sideBySide.map((r) => [
        r.op,
        r.connections,
        ...cellsOf(r.sqlite, 'rps', 'p99'),
        ...cellsOf(r.pgOne, 'rps', 'p99'),
        ...cellsOf(r.pgTwo, 'rps', 'p99'),
        ratioCell(r.pgOneOfSqlite),
        ratioCell(r.pgTwoOfPgOne),
      ]),
    ),
  )
  console.log('   The PostgreSQL instances run without the introspection listener: their introspection goes through Next.')
  console.log('')
  return sideBySide
}

/** The query plans of the hot queries, per seeded size. */
function reportPlans(reports: SizeReport[]): void {
  for (const r of reports.filter((x) => x.plans.length > 0)) {
    console.log(
      `== query plans of the hot queries (${r.tokensSeeded.toLocaleString('en')} tokens seeded; EXPLAIN QUERY PLAN of the SQL the server sends)`,
    )
    for (const p of r.plans) {
      console.log(`${p.indexedOnly ? '  ' : '!!'} ${p.operation}: ${p.sql.replace(/\s+/g, ' ').slice(0, 160)}${p.sql.length > 160 ? '…' : ''}`)
      for (const line of p.plan) console.log(`       ${line}`)
    }
    console.log('')
  }
}

/** The machine, the settings and every figure, as JSON under bench/results/. */
function writeResults(startedAt: Date, loadBefore: number[], figures: Record<string, unknown>): void {
  const outDir = path.join(root, 'bench', 'results')
  fs.mkdirSync(outDir, { recursive: true })
  const outFile = path.join(outDir, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`)
  const json = {
    startedAt,
    finishedAt: new Date(),
    machine: {
      cpus: os.cpus().length,
      model: os.cpus()[0]?.model,
      memoryMb: Math.round(os.totalmem() / 2 ** 20),
      node: process.version,
      loadBefore,
      loadAfter: os.loadavg(),
    },
    settings,
    serverEnv: SERVER_ENV,
    ...figures,
  }
  fs.writeFileSync(outFile, JSON.stringify(json, null, 2) + '\n')
  log(`results written to ${path.relative(root, outFile)}`)
}

/** Everything measured in one run, in the order it ran. */
interface Measured {
  reports: SizeReport[]
  baselineRows: Row[]
  /** The durability comparison's runs: the write operations under the other SQLITE_SYNCHRONOUS. */
  syncRows: Row[]
  pg: PgMeasured | null
}

/** Every database size on SQLite (the durability comparison right after the fresh one), then PostgreSQL. */
async function measureAll(clients: BenchClient[], wallets: Wallets): Promise<Measured> {
  const sizes = [
    { label: 'fresh', tokens: 0 },
    ...settings.scales.map((s) => {
      const tokens = SCALES[s.toLowerCase()]
      if (tokens === undefined) throw new Error(`BENCH_SCALE: unknown size ${s} (10k, 100k, 1m)`)
      return { label: s, tokens }
    }),
  ]
  const measured: Measured = { reports: [], baselineRows: [], syncRows: [], pg: null }
  for (const size of sizes) {
    const report: SizeReport = { label: size.label, tokensSeeded: size.tokens, rows: [], plans: [] }
    measured.reports.push(report)
    await measureSize(size, report, clients, wallets, measured.baselineRows)
    if (size.tokens === 0 && settings.syncCompare) await measureSyncCompare(clients, wallets, measured.syncRows)
  }
  if (settings.postgres) {
    const pg: PgMeasured = { synchronousCommit: await checkSynchronousCommit(), one: [], two: [] }
    measured.pg = pg
    await measurePostgres(clients, wallets, pg.one, 1)
    await measurePostgres(clients, wallets, pg.two, 2)
  }
  return measured
}

/** Prints every table; returns the figures for the results file. */
function report({ reports, baselineRows, syncRows, pg }: Measured) {
  console.log('')
  // The server's workers run on this very node (the launcher is started with process.execPath).
  console.log(
    `== node ${process.version} · ${os.cpus().length} CPUs · ${settings.workers} worker process${settings.workers > 1 ? 'es' : ''} · SQLite synchronous=${SYNC.toUpperCase()}`,
  )
  for (const r of reports) {
    console.log(
      `== ${r.label === 'fresh' ? 'fresh database' : `${r.tokensSeeded.toLocaleString('en')} access tokens seeded`} (synchronous=${SYNC.toUpperCase()})`,
    )
    console.log(resultTable(r.rows))
    console.log('')
  }
  if (baselineRows.length > 0) {
    console.log(
      '== baselines (fresh database): app shell = our GET /introspect 405; floor = bare node:http + better-sqlite3; ceiling = constant JSON under next start',
    )
    console.log(resultTable(baselineRows))
    console.log('')
  }
  const fresh = reports[0]!
  const durability = reportDurability(fresh, syncRows)
  const slowdowns = reportSlowdowns(reports)
  const ratios = reportRatios(fresh, baselineRows)
  reportPostgres(fresh, pg)
  const postgresSideBySide = reportPgSideBySide(fresh, pg)
  reportPlans(reports)
  const pgRows = [...(pg?.one ?? []), ...(pg?.two ?? [])]
  const allRows = [...reports.flatMap((r) => r.rows), ...syncRows, ...baselineRows, ...pgRows]
  const ours = allRows.filter((r) => r.target === 'next' || r.target === `next-${OTHER_SYNC}`)
  const peak = Math.max(...ours.map((r) => r.rssProcessMb))
  const peakSum = Math.max(...ours.map((r) => r.rssTreeMb))
  console.log(
    `peak RSS per worker process: ${peak} MB (the largest of ${settings.workers} worker(s); target: under 400 MB per process); ` +
      `all processes of the server together (launcher included): ${peakSum} MB`,
  )
  for (const [count, rows] of pg
    ? ([
        [1, pg.one],
        [2, pg.two],
      ] as const)
    : []) {
    if (rows.length === 0) continue
    console.log(
      `peak RSS per worker process of ${pgName(count)}: ${Math.max(...rows.map((r) => r.rssProcessMb))} MB; ${count > 1 ? 'all instances' : 'the instance'} together: ${Math.max(...rows.map((r) => r.rssTreeMb))} MB`,
    )
  }
  const loud = loudFailures(allRows)
  if (loud) console.log(`\n${loud}\n`)
  return {
    sizes: reports,
    baselines: baselineRows,
    durability: { synchronous: SYNC, other: OTHER_SYNC, rows: syncRows, compared: durability },
    slowdowns,
    ratios,
    postgres: pg?.two ?? [],
    postgresOneInstance: pg?.one ?? [],
    postgresSynchronousCommit: pg?.synchronousCommit ?? null,
    postgresSideBySide,
    peakRssMb: peak,
    peakRssSumMb: peakSum,
    failures: loud !== null,
  }
}

async function main() {
  requireBuild()
  const startedAt = new Date()
  const loadBefore = os.loadavg()
  log(`${os.cpus().length} CPUs, load ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, node ${process.version}`)
  log(`settings ${JSON.stringify(settings)}`)
  log(`the server runs as the launcher with ${settings.workers} worker process${settings.workers > 1 ? 'es' : ''} (BENCH_WORKERS)`)
  log(
    `SQLite servers run with SQLITE_SYNCHRONOUS=${SYNC}${SYNC === 'full' ? ' (every commit flushed to disk before it is answered)' : ' (set by BENCH_SERVER_ENV: flushed only at checkpoints)'}` +
      (settings.syncCompare ? `; the write operations run again under ${OTHER_SYNC} on a fresh file (BENCH_SYNC_COMPARE=0 skips that)` : ''),
  )
  if (loadBefore[0]! > 0.5) log('the machine is not idle: other processes compete for the CPUs and lower every figure')

  const wallets = await startWalletAddressServer()
  const clients: BenchClient[] = Array.from({ length: settings.clients }, (_, i) => ({
    name: `bench-${i}`,
    walletAddress: '',
    key: generateClientKey(`bench-${i}-key`),
  }))
  await checkSigner(clients[0]!.key, 'http://127.0.0.1:3000/')
  let measured: Measured
  try {
    measured = await measureAll(clients, wallets)
  } finally {
    await wallets.close()
  }
  const figures = report(measured)
  writeResults(startedAt, loadBefore, figures)
  if (figures.failures) process.exitCode = 1
}

main().catch((e: unknown) => {
  console.error('[bench] failed:', e instanceof Error ? (e.stack ?? e.message) : e)
  process.exit(1)
})
