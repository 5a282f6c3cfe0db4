// A webhook receiver on loopback for the tests and the benchmark (docs/webhooks.md): HTTPS, as a production endpoint
// off loopback must be, with a certificate made for 127.0.0.1 at start (the whole TLS path of a delivery is
// exercised). The server trusts it through NODE_EXTRA_CA_CERTS and reaches loopback through WEBHOOK_ALLOWED_NETWORKS:
// `receiver.serverEnv` carries both. It records every request as it arrived and answers
// what the test says; it also notes when one `webhook-id` arrives while an earlier request for it is still open.
import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { openStore } from '@gnap/domain/kernel'
import { WEBHOOK_EVENT_TYPES } from '@gnap/domain/protocol'
import { newWebhookSecret } from '@gnap/domain/operator'

export interface ReceivedWebhook {
  /** The `webhook-id` header: the event's id. */
  id: string
  /** The request's path and query (`/hooks?…`): one receiver can stand for several endpoints. */
  path: string
  /** Every header, lower-case names (what Standard Webhooks' verify takes). */
  headers: Record<string, string>
  body: string
  /** When the body had arrived (ms since the epoch). */
  at: number
}

/** The status to answer (awaited: hold the request open by not resolving yet). */
export type WebhookAnswer = (hook: ReceivedWebhook) => number | Promise<number>

export interface WebhookReceiver {
  /** `https://127.0.0.1:<port>/hooks` */
  url: string
  /** What a server needs to deliver here: NODE_EXTRA_CA_CERTS (read at its start) and WEBHOOK_ALLOWED_NETWORKS. */
  serverEnv: Record<string, string>
  /** Every request received, in order of arrival. */
  received: ReceivedWebhook[]
  /** Ids received while an earlier request with the same id was still open: an attempt sent twice at once. */
  overlaps: string[]
  /** How requests are answered; 200 by default. */
  answer: WebhookAnswer
  close(): Promise<void>
}

/**
 * A certificate and key for 127.0.0.1, made with the openssl command (EC P-256, valid two days): the paths of
 * `cert.pem` and `key.pem` written into `dir`. A server trusts it through NODE_EXTRA_CA_CERTS=<cert>.
 */
export function loopbackCertificate(dir: string): { cert: string; key: string } {
  const cert = path.join(dir, 'cert.pem')
  const key = path.join(dir, 'key.pem')
  const run = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { encoding: 'utf8' },
  )
  if (run.status !== 0) throw new Error(`openssl could not make a certificate for 127.0.0.1: ${run.stderr || run.error?.message}`)
  return { cert, key }
}

/** Starts a receiver on 127.0.0.1 (a free port). */
export async function startWebhookReceiver(answer: WebhookAnswer = () => 200): Promise<WebhookReceiver> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-webhook-receiver-'))
  const { cert, key } = loopbackCertificate(dir)
  const open = new Map<string, number>()
  const receiver: Omit<WebhookReceiver, 'url' | 'close'> = { serverEnv: {}, received: [], overlaps: [], answer }
  const server = https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key), keepAliveTimeout: 30_000 }, (req, res) => {
    const id = String(req.headers['webhook-id'] ?? '')
    const now = (open.get(id) ?? 0) + 1
    open.set(id, now)
    if (now > 1) receiver.overlaps.push(id)
    res.once('close', () => {
      const left = (open.get(id) ?? 1) - 1
      if (left > 0) open.set(id, left)
      else open.delete(id)
    })
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value
      const hook: ReceivedWebhook = { id, path: req.url ?? '/', headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() }
      receiver.received.push(hook)
      Promise.resolve(receiver.answer(hook)).then(
        (status) => res.writeHead(status).end(),
        () => res.writeHead(500).end(),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  receiver.serverEnv = { NODE_EXTRA_CA_CERTS: cert, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' }
  return Object.assign(receiver, {
    url: `https://127.0.0.1:${port}/hooks`,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      fs.rmSync(dir, { recursive: true, force: true })
    },
  })
}

/**
 * An enabled endpoint for `url` receiving `eventTypes` (every type by default), written straight into the server's
 * database as the console would leave it; its signing secret is returned. The server's workers see it at their next
 * look (half a second at most).
 */
export async function addWebhookEndpoint(
  databaseUrl: string,
  url: string,
  eventTypes: readonly string[] = WEBHOOK_EVENT_TYPES,
): Promise<{ id: string; secret: string }> {
  const store = await openStore(databaseUrl)
  try {
    const id = randomUUID()
    const secret = newWebhookSecret()
    const now = new Date()
    await store.sql.transaction(async (tx) => {
      await tx.run(
        `INSERT INTO "WebhookEndpoint" ("id", "url", "description", "secret", "createdBy", "createdAt", "updatedAt") VALUES ($1, $2, 'test receiver', $3, 'test', $4, $4)`,
        [id, url, secret, now],
      )
      for (const type of eventTypes) await tx.run(`INSERT INTO "WebhookSubscription" ("endpointId", "eventType") VALUES ($1, $2)`, [id, type])
    })
    return { id, secret }
  } finally {
    await store.close()
  }
}
