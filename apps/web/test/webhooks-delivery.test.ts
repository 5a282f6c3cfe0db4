// Webhook deliveries from the real server (docs/webhooks.md) to a receiver on loopback that verifies every request
// with the Standard Webhooks library's own verifier: a real client's lifecycle arrives signed and in order; a
// delivery cut by a SIGKILL of the server (its process group) between commit and delivery still arrives after the
// restart, with the same webhook-id, on SQLite and on PostgreSQL; two instances on one PostgreSQL database deliver a
// burst of 1,000 events, each once, never one event twice at once; and a production server refuses to deliver to
// loopback unless WEBHOOK_ALLOWED_NETWORKS allows it.
//
// The receiver speaks HTTPS, as a production endpoint off loopback must, with a certificate made for 127.0.0.1 that
// the server trusts through NODE_EXTRA_CA_CERTS (@gnap/test-support webhook-receiver.ts).
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Webhook } from 'standardwebhooks'
import { isFinalizedGrant } from '@interledger/open-payments'
import { openStore } from '@gnap/domain/kernel'
import { blockClient, sendTestEvent } from '@gnap/domain/operator'
import { generateClientKey, startWalletAddressServer } from '@gnap/domain/testing'
import {
  addWebhookEndpoint,
  freePort,
  startInstance,
  startInstances,
  startServer,
  startWebhookReceiver,
  testServerEnv,
  type Instance,
  type ReceivedWebhook,
  type WebhookReceiver,
} from '@gnap/test-support'
import { freshDatabase, pgAdminUrl, providers, type Provider, type TestDatabase } from './support/databases'
import { incomingAccess, signedFetch } from './support/raw-http'
import { serverDeps } from './support/server-deps'
import { sleep, startWorld, type World } from './support/world'

interface EventBody {
  id: string
  type: string
  timestamp: string
  data: { grant?: { id: string }; access_token?: { manage_id?: string }; previous_access_token?: { manage_id?: string } }
}

/** The body of a received webhook, after the library verified its signature (it throws otherwise). */
const verified = (hook: ReceivedWebhook, secret: string): EventBody => new Webhook(secret).verify(hook.body, hook.headers) as EventBody

/** A console administrator, as the management use cases take it. */
const ADMIN = { kind: 'admin' as const, id: 'webhooks-test', label: 'admin:webhooks@example.com', role: 'admin' as const, tenantId: null }

/** Every pending, delivered and failed delivery of the database, with its event's type. */
async function deliveries(databaseUrl: string) {
  const store = await openStore(databaseUrl)
  try {
    return await store.sql.all<{
      eventId: string
      type: string
      state: string
      attempts: number
      lastStatus: number | null
      lastError: string | null
    }>(
      `SELECT d."eventId", e."type", d."state", d."attempts", d."lastStatus", d."lastError" FROM "WebhookDelivery" d
       JOIN "WebhookEvent" e ON e."id" = d."eventId" ORDER BY d."createdAt", d."eventId"`,
    )
  } finally {
    await store.close()
  }
}

describe('a client lifecycle against the server', () => {
  let receiver: WebhookReceiver
  let w: World

  beforeAll(async () => {
    receiver = await startWebhookReceiver()
    w = await startWorld(receiver.serverEnv)
  }, 90_000)

  afterAll(async () => {
    await w?.stop()
    await receiver?.close()
  })

  it('delivers grant.issued, access_token.rotated and access_token.revoked in order, each verifying with the library', async () => {
    const { secret } = await addWebhookEndpoint(`file:${w.server.dbFile}`, receiver.url)
    const grant = await w.client.grant.request({ url: w.server.url }, { access_token: { access: [{ type: 'incoming-payment', actions: ['read'] }] } })
    if (!isFinalizedGrant(grant)) throw new Error('expected a grant issued at once')
    const first = grant.access_token!
    const rotated = (await w.client.token.rotate({ url: first.manage, accessToken: first.value })).access_token
    await w.client.token.revoke({ url: rotated.manage, accessToken: rotated.value })

    await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(3)
    // Nothing more is on its way.
    await sleep(1_000)
    const bodies = receiver.received.map((hook) => verified(hook, secret))
    expect(bodies.map((b) => b.type)).toEqual(['grant.issued', 'access_token.rotated', 'access_token.revoked'])
    const grantId = bodies[0]!.data.grant!.id
    for (const [i, b] of bodies.entries()) {
      expect(b.data.grant?.id).toBe(grantId)
      expect(receiver.received[i]!.id).toBe(b.id)
    }
    const manageId = (url: string) => url.split('/').pop()
    expect(bodies[0]!.data.access_token?.manage_id).toBe(manageId(first.manage))
    expect(bodies[1]!.data.previous_access_token?.manage_id).toBe(manageId(first.manage))
    expect(bodies[1]!.data.access_token?.manage_id).toBe(manageId(rotated.manage))
    // A body never carries a token value or a continuation token.
    for (const hook of receiver.received) {
      for (const value of [first.value, rotated.value, grant.continue.access_token.value]) expect(hook.body).not.toContain(value)
    }
    expect(receiver.overlaps).toEqual([])
    expect((await deliveries(`file:${w.server.dbFile}`)).map((d) => [d.type, d.state, d.attempts])).toEqual([
      ['grant.issued', 'delivered', 1],
      ['access_token.rotated', 'delivered', 1],
      ['access_token.revoked', 'delivered', 1],
    ])
  }, 30_000)
})

describe.each(providers)('a SIGKILL between commit and delivery on %s', (provider: Provider) => {
  let receiver: WebhookReceiver
  let db: TestDatabase
  let server: Instance | undefined
  let wallets: Awaited<ReturnType<typeof startWalletAddressServer>>

  beforeAll(async () => {
    receiver = await startWebhookReceiver()
    db = await freshDatabase(provider, 'webhook_kill')
    wallets = await startWalletAddressServer({})
  }, 60_000)

  afterAll(async () => {
    await server?.stop()
    await wallets?.close()
    await receiver?.close()
    await db?.drop()
  })

  it('delivers the event after the restart, with the same webhook-id, the cut attempt leaving no record', async () => {
    // The same port before and after, so the client's wallet address keeps naming this server.
    const port = await freePort()
    const start = () => startInstance({ port, env: testServerEnv({ DATABASE_URL: db.url, ...receiver.serverEnv }) })
    server = await start()
    const key = generateClientKey('kill-key')
    const walletAddress = wallets.addClient('kill', { publicName: 'Kill App', keys: [key.jwk], authServer: server.url })
    const { secret } = await addWebhookEndpoint(db.url, receiver.url, ['grant.issued'])

    // The receiver holds the first request open: the attempt is in flight when the server dies.
    let arrived!: () => void
    const firstArrived = new Promise<void>((resolve) => (arrived = resolve))
    receiver.answer = () => {
      arrived()
      return new Promise<number>(() => undefined)
    }
    const res = await signedFetch(key, { method: 'POST', url: server.url, body: { access_token: { access: incomingAccess }, client: walletAddress } })
    expect(res.status).toBe(200)
    await firstArrived
    await server.kill('SIGKILL')
    expect(receiver.received).toHaveLength(1)
    const cut = receiver.received[0]!

    receiver.answer = () => 200
    server = await start()
    // The dead worker's lease (LEASE_MS, 15 s from its claim) runs out first; then the restarted worker sends again.
    await expect.poll(() => receiver.received.length, { timeout: 40_000, interval: 250 }).toBe(2)
    const again = receiver.received[1]!
    expect(again.id).toBe(cut.id)
    expect(again.body).toBe(cut.body)
    expect(verified(again, secret)).toMatchObject({ id: cut.id, type: 'grant.issued' })
    // The attempt cut by the kill was never recorded; the one after the restart was. The worker records it after the
    // receiver has answered, so the row is waited for rather than read at once (CI once read it still pending).
    await expect
      .poll(async () => (await deliveries(db.url)).map((d) => [d.eventId, d.state, d.attempts, d.lastStatus]), { timeout: 10_000, interval: 100 })
      .toEqual([[cut.id, 'delivered', 1, 200]])
  }, 90_000)
})

describe('a graceful stop (SIGTERM)', () => {
  let receiver: WebhookReceiver
  let db: TestDatabase
  let server: Instance | undefined

  beforeAll(async () => {
    receiver = await startWebhookReceiver()
    db = await freshDatabase('sqlite', 'webhook_stop')
  })

  afterAll(async () => {
    await server?.stop()
    await receiver?.close()
    await db?.drop()
  })

  it('lets the attempt in flight finish and record its outcome before the process exits', async () => {
    server = await startInstance({ env: testServerEnv({ DATABASE_URL: db.url, ...receiver.serverEnv }) })
    const endpoint = await addWebhookEndpoint(db.url, receiver.url, [])
    // The receiver answers 200 two seconds after the stop began.
    let arrived!: () => void
    const firstArrived = new Promise<void>((resolve) => (arrived = resolve))
    receiver.answer = () => {
      arrived()
      return sleep(2_000).then(() => 200)
    }
    const store = await openStore(db.url)
    try {
      await sendTestEvent(serverDeps(store, server.url), { id: endpoint.id, actor: ADMIN })
    } finally {
      await store.close()
    }
    await firstArrived
    await server.kill('SIGTERM')
    expect(await server.exited).toBe(0)
    expect(server.logs()).not.toContain('grace period over')
    expect((await deliveries(db.url)).map((d) => [d.type, d.state, d.attempts, d.lastStatus])).toEqual([['webhook.test', 'delivered', 1, 200]])
    expect(receiver.received).toHaveLength(1)
  }, 60_000)
})

describe.skipIf(!pgAdminUrl)('two instances on one PostgreSQL database', () => {
  const GRANTS = 1_000
  let receiver: WebhookReceiver
  let db: TestDatabase
  let instances: Instance[] = []

  beforeAll(async () => {
    receiver = await startWebhookReceiver()
    db = await freshDatabase('postgresql', 'webhook_burst')
    // LOG_LEVEL debug: each instance logs the deliveries it made.
    instances = await startInstances({ databaseUrl: db.url, env: testServerEnv({ LOG_LEVEL: 'debug', ...receiver.serverEnv }) })
  }, 120_000)

  afterAll(async () => {
    await Promise.all(instances.map((i) => i.stop()))
    await receiver?.close()
    await db?.drop()
  })

  it('delivers each of a burst of 1,000 events once, never sending one twice at once', async () => {
    const [a, b] = instances as [Instance, Instance]
    // 1,000 issued grants of one client, written as the grant use case leaves them (issuing them over HTTP would
    // take most of this test's time and is not what it is about).
    const walletAddress = 'https://wallet.example/burst'
    const seeded = await openStore(db.url)
    try {
      const now = new Date()
      await seeded.sql.transaction(async (tx) => {
        for (let i = 0; i < GRANTS; i++) {
          const id = randomUUID()
          await tx.run(
            `INSERT INTO "Grant" ("id", "state", "finalizedReason", "client", "continueId", "continueTokenHash", "createdAt", "updatedAt", "finalizedAt")
             VALUES ($1, 'finalized', 'issued', $2, $3, $4, $5, $5, $5)`,
            [id, walletAddress, randomUUID(), randomUUID(), now],
          )
          await tx.run(
            `INSERT INTO "AccessItem" ("id", "grantId", "position", "type", "actions") VALUES ($1, $2, 0, 'incoming-payment', '["read"]')`,
            [randomUUID(), id],
          )
        }
      })
    } finally {
      await seeded.close()
    }

    // The burst: an endpoint, then blocking the client (the console's use case) revokes its 1,000 grants in one
    // transaction, which records a grant.revoked event for each and client.blocked. Both instances find them due.
    const { secret } = await addWebhookEndpoint(db.url, receiver.url, ['grant.revoked', 'client.blocked'])
    // The receiver takes a moment over each request, so attempts overlap in time, and one instance alone would need
    // more than a second (16 at a time): longer than the other's next look (POLL_MS).
    receiver.answer = () => sleep(25).then(() => 200)
    const store = await openStore(db.url)
    try {
      const blocked = await blockClient(serverDeps(store, a.url), { walletAddress, reason: 'a burst of events', actor: ADMIN })
      expect(blocked.revokedGrants).toBe(GRANTS)
    } finally {
      await store.close()
    }
    await expect.poll(() => receiver.received.length, { timeout: 60_000, interval: 250 }).toBeGreaterThanOrEqual(GRANTS + 1)
    await sleep(1_000)
    // Every event once: no attempt was sent twice, at once or after.
    expect(receiver.overlaps).toEqual([])
    expect(receiver.received).toHaveLength(GRANTS + 1)
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(GRANTS + 1)
    const types = receiver.received.map((hook) => verified(hook, secret).type)
    expect(types.filter((t) => t === 'grant.revoked')).toHaveLength(GRANTS)
    expect(types.filter((t) => t === 'client.blocked')).toHaveLength(1)
    const rows = await deliveries(db.url)
    expect(rows).toHaveLength(GRANTS + 1)
    expect(rows.every((r) => r.state === 'delivered' && r.attempts === 1)).toBe(true)
    // Both instances delivered.
    const delivered = (i: Instance) => (i.logs().match(/"msg":"webhook delivered"/g) ?? []).length
    expect(delivered(a)).toBeGreaterThan(0)
    expect(delivered(b)).toBeGreaterThan(0)
    expect(delivered(a) + delivered(b)).toBe(GRANTS + 1)
  }, 180_000)
})

describe('refused addresses in production', () => {
  let receiver: WebhookReceiver
  let server: Awaited<ReturnType<typeof startServer>>

  beforeAll(async () => {
    receiver = await startWebhookReceiver()
    // Production, WEBHOOK_ALLOWED_NETWORKS unset (none): the receiver's certificate is trusted, its address is not.
    server = await startServer({ NODE_EXTRA_CA_CERTS: receiver.serverEnv.NODE_EXTRA_CA_CERTS })
  }, 90_000)

  afterAll(async () => {
    await server?.stop()
    await receiver?.close()
  })

  it('does not deliver to loopback, by address or by a name resolving to it, and records why', async () => {
    // Saved when the setting allowed it, say: the worker checks every delivery again.
    const port = new URL(receiver.url).port
    const byAddress = await addWebhookEndpoint(`file:${server.dbFile}`, receiver.url, [])
    const byName = await addWebhookEndpoint(`file:${server.dbFile}`, `https://localhost:${port}/hooks`, [])
    const store = await openStore(`file:${server.dbFile}`)
    try {
      const deps = serverDeps(store, server.url)
      for (const id of [byAddress.id, byName.id]) await sendTestEvent(deps, { id, actor: ADMIN })
    } finally {
      await store.close()
    }
    await expect
      .poll(async () => (await deliveries(`file:${server.dbFile}`)).map((d) => [d.state, d.attempts, d.lastStatus, d.lastError]), { timeout: 10_000 })
      .toEqual([
        ['pending', 1, null, 'refused: the endpoint is not a public address nor in WEBHOOK_ALLOWED_NETWORKS'],
        ['pending', 1, null, 'refused: the endpoint is not a public address nor in WEBHOOK_ALLOWED_NETWORKS'],
      ])
    expect(receiver.received).toEqual([])
  }, 30_000)
})
