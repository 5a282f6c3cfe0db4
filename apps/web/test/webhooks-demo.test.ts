// Done when "a receiver built with the Standard Webhooks library verifies every event that `pnpm demo` causes"
// (docs/webhooks.md): the production build serves the built-in consent screen, an endpoint subscribed to every type
// points at examples/webhook-receiver.mjs, `pnpm demo` runs its whole lifecycle against the server, and the receiver
// must have verified each event the demo wrote to the outbox, and refused none. The server requires https and
// refuses private addresses (production), so the receiver is reached through a TLS front on loopback with the
// self-signed certificate of @gnap/test-support's webhook receiver (loopbackCertificate) that the server trusts
// (NODE_EXTRA_CA_CERTS) and WEBHOOK_ALLOWED_NETWORKS=127.0.0.0/8; behind it the example receives the bytes as sent.
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import tls from 'node:tls'
import { promisify } from 'node:util'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStore, type Store } from '@gnap/domain/kernel'
import { WEBHOOK_EVENT_TYPES } from '@gnap/domain/protocol'
import { DEMO_OWNER, createOwner, createWebhookEndpoint } from '@gnap/domain/operator'
import { INTROSPECTION_SECRET, loopbackCertificate, root, startServer, type RunningServer } from '@gnap/test-support'
import { WEBHOOK_SCHEMA_FILE } from '../scripts/webhook-docs'
import { serverDeps } from './support/server-deps'

const run = promisify(execFile)
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void

interface Receiver {
  port: number
  lines: string[]
  stop(): Promise<void>
}

/** examples/webhook-receiver.mjs as a person runs it, with the endpoint's secret; resolves once it listens. */
async function startReceiver(secret: string): Promise<Receiver> {
  const child: ChildProcess = spawn(process.execPath, ['examples/webhook-receiver.mjs'], {
    cwd: root,
    env: { PATH: process.env.PATH, WEBHOOK_SECRET: secret, PORT: '0' } as Record<string, string | undefined> as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  let output = ''
  const port = await new Promise<number>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d.toString()
      for (;;) {
        const end = output.indexOf('\n')
        if (end < 0) break
        const line = output.slice(0, end)
        output = output.slice(end + 1)
        lines.push(line)
        const listening = /^listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(line)
        if (listening) resolve(Number(listening[1]))
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code) => reject(new Error(`the receiver exited (${code}):\n${lines.join('\n')}${output}`)))
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return {
    port,
    lines,
    async stop() {
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** TLS on a loopback port, each connection piped to the receiver's plain port once `target` is set. */
async function startTlsFront(certFile: string, keyFile: string) {
  const sockets = new Set<net.Socket>()
  const front = { target: 0 }
  const server = tls.createServer({ cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) }, (client) => {
    const upstream = net.connect(front.target, '127.0.0.1')
    sockets.add(client).add(upstream)
    const end = () => {
      client.destroy()
      upstream.destroy()
    }
    for (const side of [client, upstream]) side.on('error', end).on('close', end)
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    front,
    url: `https://127.0.0.1:${(server.address() as net.AddressInfo).port}/gnap-events`,
    close: () => {
      for (const s of sockets) s.destroy()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-webhooks-demo-'))
let server: RunningServer
let store: Store
let front: Awaited<ReturnType<typeof startTlsFront>>
let receiver: Receiver

beforeAll(async () => {
  const { cert: certFile, key: keyFile } = loopbackCertificate(dir)
  // The demo plays the owner on the built-in consent screen (IDENTITY_SERVER_URL unset), as `pnpm start` serves it.
  server = await startServer({ IDENTITY_SERVER_URL: undefined, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', NODE_EXTRA_CA_CERTS: certFile })
  store = await openStore(`file:${server.dbFile}`)
  await createOwner(store.sql, { ...DEMO_OWNER, walletAddresses: [...DEMO_OWNER.walletAddresses] })
  front = await startTlsFront(certFile, keyFile)
  // Created as an administrator does in the console, under the server's own address rules.
  const deps = serverDeps(store, server.url, { webhookAllowedNetworks: ['127.0.0.0/8'], webhookAllowHttp: false })
  const actor = { kind: 'admin', id: 'demo-test-admin', label: 'ops@example.com', role: 'admin', tenantId: null } as const
  const { secret } = await createWebhookEndpoint(deps, {
    url: front.url,
    description: 'the README receiver',
    eventTypes: [...WEBHOOK_EVENT_TYPES],
    actor,
  })
  receiver = await startReceiver(secret)
  front.front.target = receiver.port
}, 120_000)

afterAll(async () => {
  await receiver?.stop()
  await front?.close()
  await store?.close()
  await server?.stop()
  fs.rmSync(dir, { recursive: true, force: true })
})

interface StoredEvent {
  id: string
  type: string
  payload: string
}

describe('pnpm demo with the example receiver', () => {
  it('every event the demo causes reaches the receiver and verifies with the Standard Webhooks library', async () => {
    const demo = await run(process.execPath, [path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'apps/web/scripts/demo.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, AUTH_SERVER_URL: server.url, INTROSPECTION_SECRET } as Record<
        string,
        string | undefined
      > as NodeJS.ProcessEnv,
      timeout: 60_000,
    })
    expect(demo.stdout).toContain('The whole lifecycle completed.')

    const events = await store.sql.all<StoredEvent>(`SELECT "id", "type", "payload" FROM "WebhookEvent" ORDER BY "createdAt", "id"`)
    // The demo's lifecycle: a grant issued at once, a grant approved on the consent screen and issued on continue,
    // and that token rotated.
    expect(events.map((e) => e.type).sort()).toEqual(['access_token.rotated', 'grant.approved', 'grant.issued', 'grant.issued'])

    const verified = () => receiver.lines.filter((l) => l.startsWith('verified '))
    const deadline = Date.now() + 20_000
    while (verified().length < events.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect(new Set(verified())).toEqual(new Set(events.map((e) => `verified ${e.type} ${e.id}`)))
    expect(receiver.lines.filter((l) => l.startsWith('refused '))).toEqual([])

    // Each body the receiver got is one the published JSON Schema accepts.
    const ajv = new Ajv2020({ strict: true, allErrors: true })
    addFormats(ajv)
    const validate = ajv.compile(JSON.parse(fs.readFileSync(WEBHOOK_SCHEMA_FILE, 'utf8')) as object)
    for (const e of events) {
      expect(validate(JSON.parse(e.payload)), `${e.type}: ${JSON.stringify(validate.errors)}`).toBe(true)
    }
    const deliveries = await store.sql.all<{ state: string }>(`SELECT "state" FROM "WebhookDelivery"`)
    expect(deliveries.map((d) => d.state)).toEqual(events.map(() => 'delivered'))
  }, 90_000)

  it('the receiver refuses a request whose signature does not verify, with 400', async () => {
    const before = receiver.lines.length
    const res = await fetch(`http://127.0.0.1:${receiver.port}/`, {
      method: 'POST',
      headers: { 'webhook-id': 'evt_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
      body: '{"type":"grant.revoked"}',
    })
    expect(res.status).toBe(400)
    await new Promise((r) => setTimeout(r, 100))
    expect(receiver.lines.slice(before)).toEqual(['refused No matching signature found'])
  })
})
