import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { randomUUID } from 'node:crypto'
import { isPendingGrant, type PendingGrant } from '@interledger/open-payments'
import { openStore } from '@gnap/domain/kernel'
import { DEMO_OWNER, createOwner } from '@gnap/domain/operator'
import { outgoingAccess, startWorld, type World } from '../../test/support/world'

// The world of the browser tests: the production build serving the built-in consent screen (no
// IDENTITY_SERVER_URL), the SDK client of test/support/world.ts, the owners a person signs in as, and the
// client's finish endpoint on loopback, so the browser really lands back at the client.

export const ALICE = { ...DEMO_OWNER, walletAddresses: [...DEMO_OWNER.walletAddresses] }
export const ALICE_WALLET = DEMO_OWNER.walletAddresses[0]
export const BOB = { email: 'bob@example.com', name: 'Bob Second', password: 'bob-second-password', walletAddresses: ['https://wallet.example/bob'] }

/** The demo grant of the consent screen: up to 25.00 USD a month, for 12 months from 1 December 2026. */
export const outgoingGrantAccess = (identifier: string) => {
  const access = outgoingAccess(identifier)
  return { ...access, limits: { ...access.limits, interval: 'R11/2026-12-01T00:00:00Z/P1M' } }
}

/** Seeds owners the way `prisma/seed.ts` does (createOwner), into the server's own SQLite file. */
export async function seedOwners(dbFile: string, owners: Parameters<typeof createOwner>[1][]): Promise<void> {
  const store = await openStore(`file:${dbFile}`)
  try {
    for (const owner of owners) await createOwner(store.sql, owner)
  } finally {
    await store.close()
  }
}

/** When the interaction behind an `interact.redirect` link expires, as the server stored it. */
export async function interactionExpiry(dbFile: string, redirect: string): Promise<Date> {
  const [, , id] = new URL(redirect).pathname.split('/')
  const store = await openStore(`file:${dbFile}`)
  try {
    const row = await store.prisma.interaction.findUniqueOrThrow({ where: { id: id ?? '' } })
    return row.expiresAt
  } finally {
    await store.close()
  }
}

export interface FinishEndpoint {
  /** The finish URI clients put in `interact.finish.uri`. */
  uri: string
  /** Every URL the browser landed on, in order. */
  hits: URL[]
  close(): Promise<void>
}

/** The client's finish endpoint: a page that says the browser is back at the client. */
export async function startFinishEndpoint(): Promise<FinishEndpoint> {
  const hits: URL[] = []
  let base = ''
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', base)
    if (url.pathname !== '/finish') {
      res.writeHead(404).end()
      return
    }
    hits.push(url)
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        '<!doctype html><html lang="en"><head><title>Back at the client</title></head><body><main><h1>Back at the client</h1></main></body></html>',
      )
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    uri: `${base}/finish`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export interface ConsentWorld extends World {
  finish: FinishEndpoint
  /** An interactive outgoing-payment grant request by the SDK client; `finish: false` leaves out interact.finish. */
  requestGrant(opts?: { identifier?: string; finish?: boolean }): Promise<{ pending: PendingGrant; clientNonce: string }>
}

/** Starts the server with the built-in consent screen, seeds Alice (the demo owner) and Bob, and the finish endpoint. */
export async function startConsentWorld(env: Record<string, string | undefined> = {}): Promise<ConsentWorld> {
  const world = await startWorld({ IDENTITY_SERVER_URL: undefined, ...env })
  const finish = await startFinishEndpoint()
  await seedOwners(world.server.dbFile, [ALICE, BOB])
  return {
    ...world,
    finish,
    async requestGrant({ identifier = ALICE_WALLET, finish: withFinish = true } = {}) {
      const clientNonce = randomUUID()
      const grant = await world.client.grant.request(
        { url: world.server.url },
        {
          access_token: { access: [outgoingGrantAccess(identifier)] },
          interact: withFinish
            ? { start: ['redirect'], finish: { method: 'redirect', uri: finish.uri, nonce: clientNonce } }
            : { start: ['redirect'] },
        },
      )
      if (!isPendingGrant(grant)) throw new Error('expected a pending grant')
      return { pending: grant, clientNonce }
    },
    async stop() {
      await finish.close()
      await world.stop()
    },
  }
}
