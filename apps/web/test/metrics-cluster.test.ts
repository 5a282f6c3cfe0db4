// Metrics under the launcher (packages/launcher serve.ts) with two workers: each worker counts its own requests,
// and a scrape, on METRICS_PORT (the primary's loopback port) or on the public port with METRICS_SECRET (a worker
// asks the primary), answers with both workers' counts summed; what both read from the one database (the webhook
// backlog) is reported once, not once per worker.
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStore } from '@gnap/domain/kernel'
import { freePort, INTROSPECTION_SECRET, migrateDatabase, startInstance, testServerEnv, type Instance } from '@gnap/test-support'

const METRICS_SECRET = 'test-metrics-secret-0123456789-abcdefghij'
const REQUESTS = 20

let dir: string
let databaseUrl: string
let server: Instance
let metricsPort: number

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-metrics-'))
  databaseUrl = `file:${path.join(dir, 'metrics.db')}`
  migrateDatabase(databaseUrl)
  metricsPort = await freePort()
  server = await startInstance({
    workers: 2,
    env: testServerEnv({ DATABASE_URL: databaseUrl, METRICS_SECRET, METRICS_PORT: String(metricsPort), LOG_LEVEL: 'warn' }),
  })
}, 120_000)

afterAll(async () => {
  await server?.stop()
  if (dir) fs.rmSync(dir, { recursive: true, force: true })
})

/** One introspection over a connection of its own: the primary hands each new connection to the next worker. */
function introspectOnce(): Promise<number> {
  const body = JSON.stringify({ access_token: 'no-such-token' })
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: server.port,
        method: 'POST',
        path: '/introspect',
        agent: false,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${INTROSPECTION_SECRET}`, connection: 'close' },
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

const count = (text: string, line: RegExp): number => Number(line.exec(text)?.[1] ?? 0)
const INTROSPECTIONS = /^gnap_http_requests_total\{route="\/introspect",method="POST",status="200"\} (\d+)$/m
const INACTIVE = /^gnap_introspections_total\{result="inactive"\} (\d+)$/m
const PROCESSES = /^gnap_processes (\d+)$/m

describe('metrics over the launcher’s workers', () => {
  it('sums the counts of both workers, on METRICS_PORT and on the public /metrics', async () => {
    const statuses: number[] = []
    for (let i = 0; i < REQUESTS; i++) statuses.push(await introspectOnce())
    expect(statuses.every((s) => s === 200)).toBe(true)

    const onPort = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
    expect(onPort.status).toBe(200)
    const portText = await onPort.text()
    expect(count(portText, INTROSPECTIONS)).toBe(REQUESTS)
    expect(count(portText, INACTIVE)).toBe(REQUESTS)
    // Both workers answered the scrape.
    expect(count(portText, PROCESSES)).toBe(2)

    // Through a worker that asks the primary: the same sums.
    const viaWorker = await fetch(`${server.url}metrics`, { headers: { authorization: `Bearer ${METRICS_SECRET}` } })
    expect(viaWorker.status).toBe(200)
    const workerText = await viaWorker.text()
    expect(count(workerText, INTROSPECTIONS)).toBe(REQUESTS)
    expect(count(workerText, INACTIVE)).toBe(REQUESTS)
    expect(count(workerText, PROCESSES)).toBe(2)
    // The secret is still needed on the public port.
    expect((await fetch(`${server.url}metrics`)).status).toBe(401)
  })

  it('reports the undelivered webhooks of the database once, not once per worker', async () => {
    // Three deliveries two minutes old for a disabled endpoint: they stay pending.
    const store = await openStore(databaseUrl)
    try {
      const at = new Date(Date.now() - 120_000)
      await store.sql.run(
        `INSERT INTO "WebhookEndpoint" ("id", "url", "secret", "createdBy", "createdAt", "updatedAt", "disabledAt") VALUES ('ep', 'https://hooks.example/in', 'whsec_dGVzdA==', 'test', $1, $1, $1)`,
        [at],
      )
      for (const n of [1, 2, 3]) {
        await store.sql.run(`INSERT INTO "WebhookEvent" ("id", "type", "payload", "createdAt") VALUES ($1, 'webhook.test', '{}', $2)`, [`ev${n}`, at])
        await store.sql.run(
          `INSERT INTO "WebhookDelivery" ("id", "eventId", "endpointId", "orderKey", "state", "attempts", "nextAttemptAt", "giveUpAt", "createdAt")
           VALUES ($1, $2, 'ep', $2, 'pending', 0, $3, $4, $3)`,
          [`d${n}`, `ev${n}`, at, new Date(at.getTime() + 86_400_000)],
        )
      }
    } finally {
      await store.close()
    }
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
    expect(count(text, PROCESSES)).toBe(2)
    expect(count(text, /^gnap_webhook_undelivered (\d+)$/m)).toBe(3)
    const age = Number(/^gnap_webhook_oldest_undelivered_age_seconds (\S+)$/m.exec(text)?.[1])
    expect(age).toBeGreaterThanOrEqual(120)
    expect(age).toBeLessThan(180)
  })

  it('serves only GET /metrics on the metrics port', async () => {
    expect((await fetch(`http://127.0.0.1:${metricsPort}/`)).status).toBe(404)
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { method: 'POST' })).status).toBe(404)
  })
})
