// Webhook delivery under load (docs/webhooks.md): how many events per second reach a receiver, and how long after
// the state change each arrives.
//
//   pnpm --filter @gnap/bench bench-webhooks [--seconds 20] [--concurrency 16] [--workers <cores>] [--burst 5000] [--no-endpoint]
//
// Starts the production build as `pnpm start` does (the launcher with --workers workers, each running its own
// delivery worker) on a fresh SQLite file in data/, a receiver on loopback (HTTPS, answering 200 at once) and an
// endpoint subscribed to every event type; then --concurrency clients loop for --seconds seconds over a
// non-interactive grant (grant.issued) and a rotation of its token (access_token.rotated), signed as the Open
// Payments SDK signs (lib/signer.ts). After the load it waits for the outbox to drain and prints: the events caused
// and delivered, the events delivered per second, the delay from each event's `timestamp` (the state change's
// time, in its transaction) to its arrival at the receiver at p50, p99 and max, and the duplicates received.
// Under that load the delivery keeps up with the grants, so the rate is the load's. The burst then measures how fast
// a backlog drains: --burst grants of one client (written straight into the database, as the grant use case leaves
// them) are revoked at once by blocking the client through the console's use case, which records a grant.revoked
// event for each in one transaction; it prints the time until the last arrived and the same figures.
// --no-endpoint runs the same load with no endpoint (no event has a delivery): what the webhooks cost the load.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { createLogger, noMetrics, openStore } from '@gnap/domain/kernel'
import { blockClient } from '@gnap/domain/operator'
import { generateClientKey, migrateFile, startWalletAddressServer, testConfig } from '@gnap/domain/testing'
import { addWebhookEndpoint, startWebhookReceiver } from '@gnap/test-support'
import { incomingGrantBody, type BenchClient } from './lib/prepare'
import { requireBuild, root, startGnap } from './lib/servers'
import { wholeOption as option } from './lib/options'
import { checkSigner, signFast } from './lib/signer'

const seconds = option('--seconds', 20)
const concurrency = option('--concurrency', 16)
const workers = option('--workers', os.availableParallelism())
const burst = process.argv.includes('--burst') ? Number(process.argv[process.argv.indexOf('--burst') + 1]) : 5_000
if (!Number.isInteger(burst) || burst < 0) throw new Error('--burst needs a whole number (0: no burst)')
const withEndpoint = !process.argv.includes('--no-endpoint')
/** How long the outbox may take to drain after the load before the run gives up waiting. */
const DRAIN_MS = 60_000
const CLIENTS = 8

requireBuild()
const log = (line: string) => console.log(`[bench-webhooks] ${line}`)

interface Arrival {
  id: string
  /** ms from the event's timestamp to its arrival */
  delay: number
  at: number
}

/** p50, p99 and max of the delays of each event's first arrival (what a receiver that deduplicates sees). */
function delays(arrivals: readonly Arrival[]): string {
  const first = new Map<string, number>()
  for (const a of arrivals) if (!first.has(a.id)) first.set(a.id, a.delay)
  const sorted = [...first.values()].sort((x, y) => x - y)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN
  return `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${sorted.at(-1)} ms`
}

/** Waits until `count` distinct events arrived (or DRAIN_MS passed); the number that did. */
async function drain(arrivals: readonly Arrival[], count: number, from: number): Promise<number> {
  const distinct = () => new Set(arrivals.map((a) => a.id)).size
  while (distinct() < count && Date.now() < from + DRAIN_MS) await new Promise((r) => setTimeout(r, 50))
  return distinct()
}

/** `count` issued grants of `client`, written as the grant use case leaves them, in one transaction. */
async function seedGrants(dbFile: string, client: string, count: number): Promise<void> {
  const store = await openStore(`file:${dbFile}`)
  try {
    const now = new Date()
    await store.sql.transaction(async (tx) => {
      for (let i = 0; i < count; i++) {
        const id = randomUUID()
        await tx.run(
          `INSERT INTO "Grant" ("id", "state", "finalizedReason", "client", "continueId", "continueTokenHash", "createdAt", "updatedAt", "finalizedAt")
           VALUES ($1, 'finalized', 'issued', $2, $3, $4, $5, $5, $5)`,
          [id, client, randomUUID(), randomUUID(), now],
        )
        await tx.run(`INSERT INTO "AccessItem" ("id", "grantId", "position", "type", "actions") VALUES ($1, $2, 0, 'incoming-payment', '["read"]')`, [
          randomUUID(),
          id,
        ])
      }
    })
  } finally {
    await store.close()
  }
}

/** Blocks `client` through the console's use case: its grants revoked, a grant.revoked event each, in one transaction. */
async function blockInOneTransaction(dbFile: string, base: string, client: string): Promise<void> {
  const store = await openStore(`file:${dbFile}`)
  try {
    const deps = {
      sql: store.sql,
      reads: store.reads,
      config: testConfig({ authServerUrl: base }),
      clock: () => new Date(),
      log: createLogger('silent'),
      walletAddresses: { getKey: () => Promise.resolve(null), getWalletAddress: () => Promise.reject(new Error('not in a benchmark')) },
      metrics: noMetrics,
    }
    const actor = { kind: 'admin' as const, id: 'bench', label: 'admin:bench@example.com', role: 'admin' as const, tenantId: null }
    await blockClient(deps, { walletAddress: client, reason: 'bench-webhooks burst', actor })
  } finally {
    await store.close()
  }
}

const dir = fs.mkdtempSync(path.join(root, 'data', 'bench-webhooks-'))
const receiver = await startWebhookReceiver()
const wallets = await startWalletAddressServer()
let stopServer: (() => Promise<void>) | null = null
try {
  const dbFile = path.join(dir, 'gnap.db')
  migrateFile(dbFile)
  let arrivals: Arrival[] = []
  receiver.answer = (hook) => {
    const { timestamp } = JSON.parse(hook.body) as { timestamp: string }
    arrivals.push({ id: hook.id, delay: hook.at - Date.parse(timestamp), at: hook.at })
    return 200
  }
  const server = await startGnap(
    dbFile,
    { LOG_LEVEL: 'warn', RATE_LIMIT_GRANTS_PER_MINUTE: '0', RATE_LIMIT_GRANTS_PER_MINUTE_PER_IP: '0', ...receiver.serverEnv },
    workers,
  )
  stopServer = server.stop
  const base = server.url
  const clients: BenchClient[] = Array.from({ length: CLIENTS }, (_, i) => {
    const key = generateClientKey(`bench-webhooks-${i}-key`)
    return {
      name: `webhooks-${i}`,
      key,
      walletAddress: wallets.addClient(`webhooks-${i}`, { publicName: `Bench ${i}`, keys: [key.jwk], authServer: base }),
    }
  })
  await checkSigner(clients[0]!.key, base)
  const burstClient = 'https://wallet.example/bench-webhooks-burst'
  if (burst > 0 && withEndpoint) await seedGrants(dbFile, burstClient, burst)
  if (withEndpoint) await addWebhookEndpoint(`file:${dbFile}`, receiver.url)
  log(
    `the launcher with ${workers} worker(s) on ${base}, ${withEndpoint ? `receiver ${receiver.url}` : 'no webhook endpoint'}; ${concurrency} clients for ${seconds} s`,
  )

  // Each loop: a grant (grant.issued), then a rotation of its token (access_token.rotated).
  const caused = { grants: 0, rotations: 0, failed: 0 }
  const started = Date.now()
  const until = started + seconds * 1000
  const loop = async (n: number) => {
    const client = clients[n % clients.length]!
    while (Date.now() < until) {
      const body = incomingGrantBody(client)
      const granted = await fetch(base, { method: 'POST', headers: signFast(client.key, { method: 'POST', url: base, body }), body })
      if (granted.status !== 200) {
        caused.failed++
        await granted.arrayBuffer()
        continue
      }
      caused.grants++
      const token = ((await granted.json()) as { access_token: { value: string; manage: string } }).access_token
      const rotated = await fetch(token.manage, {
        method: 'POST',
        headers: signFast(client.key, { method: 'POST', url: token.manage, authorization: `GNAP ${token.value}` }),
      })
      await rotated.arrayBuffer()
      if (rotated.status === 200) caused.rotations++
      else caused.failed++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, (_, n) => loop(n)))
  const loadEnded = Date.now()
  const events = caused.grants + caused.rotations
  const deliveredDuringLoad = new Set(arrivals.filter((a) => a.at <= loadEnded).map((a) => a.id)).size
  const delivered = withEndpoint ? await drain(arrivals, events, loadEnded) : 0
  const lastArrival = Math.max(...arrivals.map((a) => a.at))
  const loadSeconds = (loadEnded - started) / 1000
  const afterLoad = (lastArrival - loadEnded) / 1000

  log(
    `load: caused ${events.toLocaleString('en')} events in ${loadSeconds.toFixed(1)} s (${caused.grants.toLocaleString('en')} grants, ${caused.rotations.toLocaleString('en')} rotations, ${caused.failed} requests failed)`,
  )
  if (!withEndpoint) log('load: no endpoint, nothing delivered')
  else {
    log(
      `load: delivered ${delivered.toLocaleString('en')} of them${delivered < events ? ` (${events - delivered} still missing after ${DRAIN_MS / 1000} s)` : ''}, ` +
        (afterLoad > 0 ? `the last ${afterLoad.toFixed(2)} s after the load ended` : 'all before the load ended'),
    )
    log(
      `load: events delivered per second: ${(deliveredDuringLoad / loadSeconds).toFixed(0)} during the load, ` +
        `${(delivered / ((lastArrival - started) / 1000)).toFixed(0)} from its start to the last delivery`,
    )
    log(`load: delay from the event's timestamp to its arrival: ${delays(arrivals)}`)
    log(`load: duplicates received: ${arrivals.length - delivered}; attempts sent twice at once: ${receiver.overlaps.length}`)
  }

  if (burst > 0 && withEndpoint) {
    arrivals = []
    const overlapsBefore = receiver.overlaps.length
    const blockedAt = Date.now()
    await blockInOneTransaction(dbFile, base, burstClient)
    const count = burst + 1
    const got = await drain(arrivals, count, blockedAt)
    const took = (Math.max(...arrivals.map((a) => a.at)) - blockedAt) / 1000
    log(
      `burst: ${count.toLocaleString('en')} events (${burst.toLocaleString('en')} grant.revoked and client.blocked) in one transaction; ` +
        `${got.toLocaleString('en')} delivered in ${took.toFixed(2)} s: ${(got / took).toFixed(0)} events per second`,
    )
    log(`burst: delay from the event's timestamp to its arrival: ${delays(arrivals)}`)
    log(`burst: duplicates received: ${arrivals.length - got}; attempts sent twice at once: ${receiver.overlaps.length - overlapsBefore}`)
  }
} finally {
  await stopServer?.()
  await wallets.close()
  await receiver.close()
  fs.rmSync(dir, { recursive: true, force: true })
}
