// Webhook delivery under load (docs/webhooks.md): how many events per second reach a receiver, and how long after
// the state change each arrives.
//
//   pnpm --filter @gnap/bench bench-webhooks [--seconds 20] [--concurrency 16] [--workers <cores>]
//
// Starts the production build as `pnpm start` does (the launcher with --workers workers, each running its own
// delivery worker) on a fresh SQLite file in data/, a receiver on loopback (HTTPS, answering 200 at once) and an
// endpoint subscribed to every event type; then --concurrency clients loop for --seconds seconds over a
// non-interactive grant (grant.issued) and a rotation of its token (access_token.rotated), signed as the Open
// Payments SDK signs (lib/signer.ts). After the load it waits for the outbox to drain and prints: the events caused
// and delivered, the events delivered per second, the delay from each event's `timestamp` (the state change's
// time, in its transaction) to its arrival at the receiver at p50, p99 and max, and the duplicates received.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { generateClientKey, migrateFile, startWalletAddressServer } from '@gnap/domain/testing'
import { addWebhookEndpoint, startWebhookReceiver } from '@gnap/test-support'
import { incomingGrantBody, type BenchClient } from './lib/prepare'
import { requireBuild, root, startGnap } from './lib/servers'
import { checkSigner, signFast } from './lib/signer'

const option = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name)
  const value = i > 0 ? Number(process.argv[i + 1]) : fallback
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} needs a whole number above 0`)
  return value
}
const seconds = option('--seconds', 20)
const concurrency = option('--concurrency', 16)
const workers = option('--workers', os.availableParallelism())
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

const dir = fs.mkdtempSync(path.join(root, 'data', 'bench-webhooks-'))
const receiver = await startWebhookReceiver()
const wallets = await startWalletAddressServer()
let stopServer: (() => Promise<void>) | null = null
try {
  const dbFile = path.join(dir, 'gnap.db')
  migrateFile(dbFile)
  const arrivals: Arrival[] = []
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
  await addWebhookEndpoint(`file:${dbFile}`, receiver.url)
  log(`the launcher with ${workers} worker(s) on ${base}, receiver ${receiver.url}; ${concurrency} clients for ${seconds} s`)

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

  const distinct = () => new Set(arrivals.map((a) => a.id)).size
  while (distinct() < events && Date.now() < loadEnded + DRAIN_MS) await new Promise((r) => setTimeout(r, 100))
  const lastArrival = Math.max(...arrivals.map((a) => a.at))
  const delivered = distinct()

  // The first arrival of each event: what a receiver that deduplicates sees.
  const first = new Map<string, number>()
  for (const a of arrivals) if (!first.has(a.id)) first.set(a.id, a.delay)
  const delays = [...first.values()].sort((x, y) => x - y)
  const at = (q: number) => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))] ?? NaN
  const loadSeconds = (loadEnded - started) / 1000

  log(
    `caused ${events.toLocaleString('en')} events in ${loadSeconds.toFixed(1)} s (${caused.grants.toLocaleString('en')} grants, ${caused.rotations.toLocaleString('en')} rotations, ${caused.failed} requests failed)`,
  )
  log(
    `delivered ${delivered.toLocaleString('en')} of them${delivered < events ? ` (${events - delivered} still missing after ${DRAIN_MS / 1000} s)` : ''}; ` +
      `the last ${((lastArrival - loadEnded) / 1000).toFixed(2)} s after the load ended`,
  )
  log(
    `events delivered per second: ${(deliveredDuringLoad / loadSeconds).toFixed(0)} during the load, ` +
      `${(delivered / ((lastArrival - started) / 1000)).toFixed(0)} from its start to the last delivery`,
  )
  log(`delay from the event's timestamp to its arrival: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${delays.at(-1)} ms`)
  log(`duplicates received: ${arrivals.length - delivered}; attempts sent twice at once: ${receiver.overlaps.length}`)
} finally {
  await stopServer?.()
  await wallets.close()
  await receiver.close()
  fs.rmSync(dir, { recursive: true, force: true })
}
