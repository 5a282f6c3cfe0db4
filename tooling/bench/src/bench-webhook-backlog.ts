// The webhook backlog under a failing receiver (docs/webhooks.md, "Coalescing" and "Delivery guarantees"): what a
// backlog costs the delivery worker's claim, and what a client rotating in a loop costs everyone else.
//
//   pnpm --filter @gnap/bench bench-webhook-backlog [--held 20000] [--claims 200] [--seconds 15] [--no-server]
//
// 1. The claim: a fresh database (SQLite, or PostgreSQL when TEST_DATABASE_URL names a server) with one endpoint,
//    200 grants whose first event waits for a retry an hour away and --held deliveries held behind them: nothing is
//    due. It times --claims delivery passes (each one claim, finding nothing), and prints p50, p99 and max; then the
//    same with the held rows' queues empty (the heads alone), for comparison.
// 2. An unrelated grant request's latency (needs `pnpm build`; skipped with --no-server): the production build under
//    the launcher (one worker) on a fresh SQLite file, a receiver on loopback that answers 503 to everything, and an
//    endpoint subscribed to every event type. A probe client requests a non-interactive grant every 50 ms for
//    --seconds seconds, alone, then again while another client rotates its token in a loop (each rotation with the
//    token the last one gave). It prints the probe's p50, p99 and max both times, the rotations made, and the
//    deliveries pending at the end.
import fs from 'node:fs'
import path from 'node:path'
import { createLogger, noMetrics, openStore } from '@gnap/domain/kernel'
import { undeliveredSummary, type Deps } from '@gnap/domain/protocol'
import { runDeliveryPass } from '@gnap/domain/operator'
import { createTestDb, generateClientKey, migrateFile, startWalletAddressServer, testConfig } from '@gnap/domain/testing'
import { addWebhookEndpoint, startWebhookReceiver } from '@gnap/test-support'
import { incomingGrantBody, type BenchClient } from './lib/prepare'
import { requireBuild, root, startGnap } from './lib/servers'
import { wholeOption as option } from './lib/options'
import { checkSigner, signFast } from './lib/signer'

const held = option('--held', 20_000)
const claims = option('--claims', 200)
const seconds = option('--seconds', 15)
const withServer = !process.argv.includes('--no-server')
const QUEUES = 200
const log = (line: string) => console.log(`[bench-webhook-backlog] ${line}`)

function figures(ms: readonly number[]): string {
  const sorted = [...ms].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN
  const f = (n: number) => n.toFixed(2)
  return `p50 ${f(at(0.5))} ms, p99 ${f(at(0.99))} ms, max ${f(sorted.at(-1) ?? NaN)} ms (${sorted.length} samples)`
}

/** The time of `count` delivery passes that find nothing due: each is one claim. */
async function timeClaims(deps: Deps, count: number): Promise<number[]> {
  const fetchNothing = () => Promise.reject(new Error('nothing is due: no delivery may be sent'))
  const times: number[] = []
  for (let i = 0; i < count; i++) {
    const started = performance.now()
    const pass = await runDeliveryPass(deps, { fetch: fetchNothing, owner: 'bench' })
    times.push(performance.now() - started)
    if (pass.claimed !== 0) throw new Error('a delivery was due: the backlog is not as seeded')
  }
  return times
}

async function benchClaim(): Promise<void> {
  const db = await createTestDb()
  try {
    const sql = db.store.sql
    const now = new Date()
    const deps: Deps = {
      sql,
      reads: db.store.reads,
      config: testConfig({}),
      clock: () => now,
      log: createLogger('silent'),
      walletAddresses: { getKey: () => Promise.resolve(null), getWalletAddress: () => Promise.reject(new Error('not in a benchmark')) },
      metrics: noMetrics,
    }
    await sql.run(
      `INSERT INTO "WebhookEndpoint" ("id", "url", "description", "secret", "createdBy", "createdAt", "updatedAt")
       VALUES ('bench', 'https://hooks.example/bench', 'bench', 'whsec_bench', 'bench', $1, $1)`,
      [now],
    )
    // The 200 heads: each grant's first event, waiting for a retry an hour from now; then the held rows behind them.
    const seed = async (name: string, count: number, state: { held: number; next: Date; attempts: number; at: Date }) => {
      await sql.run(
        `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $1)
         INSERT INTO "WebhookEvent" ("id", "type", "grantId", "payload", "createdAt")
         SELECT $2 || CAST(i AS TEXT), 'grant.revoked', 'grant-' || CAST(i % ${QUEUES} AS TEXT), '{}', $3 FROM n`,
        [count - 1, name, state.at],
      )
      await sql.run(
        `INSERT INTO "WebhookDelivery" ("id", "eventId", "endpointId", "orderKey", "state", "attempts", "nextAttemptAt", "giveUpAt", "createdAt", "held")
         SELECT 'd-' || e."id", e."id", 'bench', 'grant:' || e."grantId", 'pending', $1, $2, $3, $4, $5 FROM "WebhookEvent" e WHERE e."id" LIKE $6`,
        [state.attempts, state.next, new Date(now.getTime() + 86_400_000), state.at, state.held, `${name}%`],
      )
    }
    await seed('evt_head_', QUEUES, { held: 0, next: new Date(now.getTime() + 3_600_000), attempts: 1, at: new Date(now.getTime() - 2_000) })
    if (sql.dialect === 'postgresql') await sql.run(`ANALYZE "WebhookDelivery"`)
    await timeClaims(deps, 20)
    const headsOnly = await timeClaims(deps, claims)
    await seed('evt_held_', held, { held: 1, next: new Date(now.getTime() - 1_000), attempts: 0, at: new Date(now.getTime() - 1_000) })
    if (sql.dialect === 'postgresql') await sql.run(`ANALYZE "WebhookDelivery"`)
    const pending = (await undeliveredSummary(sql)).count
    await timeClaims(deps, 20)
    const withBacklog = await timeClaims(deps, claims)
    log(`claim on ${sql.dialect}: ${QUEUES} heads waiting for a retry, nothing due`)
    log(`claim: heads only:                                ${figures(headsOnly)}`)
    log(`claim: with ${held.toLocaleString('en')} held behind them (${pending.toLocaleString('en')} pending): ${figures(withBacklog)}`)
  } finally {
    await db.cleanup()
  }
}

/** Grants requested by `client` one after another, `gapMs` apart, until `until`: each request's time in ms. */
async function probe(base: string, client: BenchClient, until: number, gapMs: number): Promise<number[]> {
  const times: number[] = []
  while (Date.now() < until) {
    const body = incomingGrantBody(client)
    const started = performance.now()
    const res = await fetch(base, { method: 'POST', headers: signFast(client.key, { method: 'POST', url: base, body }), body })
    await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`the probe's grant request answered ${res.status}`)
    times.push(performance.now() - started)
    await new Promise((r) => setTimeout(r, gapMs))
  }
  return times
}

/** One client rotating its token in a loop until `until`, each time with the token the last rotation gave; how many. */
async function rotateInLoop(base: string, client: BenchClient, until: number): Promise<number> {
  const body = incomingGrantBody(client)
  const granted = await fetch(base, { method: 'POST', headers: signFast(client.key, { method: 'POST', url: base, body }), body })
  let token = ((await granted.json()) as { access_token: { value: string; manage: string } }).access_token
  let rotations = 0
  while (Date.now() < until) {
    const res = await fetch(token.manage, {
      method: 'POST',
      headers: signFast(client.key, { method: 'POST', url: token.manage, authorization: `GNAP ${token.value}` }),
    })
    if (res.status !== 200) throw new Error(`a rotation answered ${res.status}`)
    token = ((await res.json()) as { access_token: { value: string; manage: string } }).access_token
    rotations++
  }
  return rotations
}

async function benchLatency(): Promise<void> {
  requireBuild()
  const dir = fs.mkdtempSync(path.join(root, 'data', 'bench-webhook-backlog-'))
  const receiver = await startWebhookReceiver(() => 503)
  const wallets = await startWalletAddressServer()
  let stop: (() => Promise<void>) | null = null
  try {
    const dbFile = path.join(dir, 'gnap.db')
    migrateFile(dbFile)
    const server = await startGnap(
      dbFile,
      { LOG_LEVEL: 'warn', RATE_LIMIT_GRANTS_PER_MINUTE: '0', RATE_LIMIT_GRANTS_PER_MINUTE_PER_IP: '0', ...receiver.serverEnv },
      1,
    )
    stop = server.stop
    const base = server.url
    const client = (name: string): BenchClient => {
      const key = generateClientKey(`${name}-key`)
      return { name, key, walletAddress: wallets.addClient(name, { publicName: name, keys: [key.jwk], authServer: base }) }
    }
    const prober = client('backlog-probe')
    const rotator = client('backlog-rotator')
    await checkSigner(prober.key, base)
    await addWebhookEndpoint(`file:${dbFile}`, receiver.url)
    log(`latency: the launcher with 1 worker on ${base}, a receiver answering 503 to everything`)

    // Warm-up: the first requests fetch the wallet addresses and compile the server's paths.
    await probe(base, prober, Date.now() + 2_000, 50)
    await probe(base, rotator, Date.now() + 500, 50)
    const alone = await probe(base, prober, Date.now() + seconds * 1000, 50)
    const until = Date.now() + seconds * 1000
    const [loaded, rotations] = await Promise.all([probe(base, prober, until, 50), rotateInLoop(base, rotator, until)])
    const store = await openStore(`file:${dbFile}`)
    const pending = await store.sql
      .all<{ type: string; n: number | string }>(
        `SELECT ev."type", COUNT(*) AS "n" FROM "WebhookDelivery" d JOIN "WebhookEvent" ev ON ev."id" = d."eventId" WHERE d."state" = 'pending' GROUP BY ev."type"`,
      )
      .finally(() => store.close())
    const count = (type: string) => Number(pending.find((p) => p.type === type)?.n ?? 0)
    log(`latency: a grant request alone:                     ${figures(alone)}`)
    log(`latency: while one client rotates in a loop:        ${figures(loaded)}`)
    log(
      `latency: ${rotations.toLocaleString('en')} rotations in ${seconds} s; pending at the end: ${count('access_token.rotated')} access_token.rotated, ` +
        `${count('grant.issued')} grant.issued (one per grant: the probe's and the rotating client's)`,
    )
  } finally {
    await stop?.()
    await wallets.close()
    await receiver.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

await benchClaim()
if (withServer) await benchLatency()
