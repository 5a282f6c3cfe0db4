import { createHash, randomUUID } from 'node:crypto'
import {
  createAuthenticatedClient,
  isFinalizedGrant,
  isPendingGrant,
  OpenPaymentsClientError,
  type AuthenticatedClient,
} from '@interledger/open-payments'
import { generateClientKey, startWalletAddressServer } from '@gnap/domain/testing'
import { IDP_SECRET, INTROSPECTION_SECRET, startServer, type RunningServer } from '@gnap/test-support'
import type { LeasedServer } from './server-pool'
import { checkEveryResponse } from './spec'

export type ClientKey = Awaited<ReturnType<typeof generateClientKey>>

/**
 * A server with the default test settings from the HTTP suite's pool (support/server-pool.ts), leased until `stop()`;
 * null outside that suite (Playwright, a script), where the caller starts its own.
 */
async function leaseFromPool(): Promise<RunningServer | null> {
  const pool = process.env.GNAP_TEST_SERVER_POOL
  if (!pool) return null
  const res = await fetch(`${pool}lease`, { method: 'POST' })
  if (res.status !== 200) throw new Error(`the server pool could not start a server: ${await res.text()}`)
  const leased = (await res.json()) as LeasedServer
  const refuse = () => Promise.reject(new Error('a pooled server is shared by the files after this one: use startWorld({ … }) for one of your own'))
  return {
    ...leased,
    logs: () => `(a pooled server: its log is at GET ${pool}logs/${leased.port})`,
    kill: refuse,
    stop: async () => {
      await fetch(`${pool}release/${leased.port}`, { method: 'POST' })
    },
  }
}

/**
 * A running server, a wallet-address server on loopback, and an SDK client whose keys it publishes. Without `env`,
 * in the HTTP suite, the server is the pool's (one started per file running at once, not one per file).
 */
export async function startWorld(env: Record<string, string | undefined> = {}) {
  const server = (Object.keys(env).length === 0 ? await leaseFromPool() : null) ?? (await startServer(env))
  const wallets = await startWalletAddressServer({})
  const key = await generateClientKey('key-1')
  const walletAddress = wallets.addClient('app', { publicName: 'Test App', keys: [key.jwk], authServer: server.url })
  const client = await createAuthenticatedClient({ walletAddressUrl: walletAddress, privateKey: key.privateKey, keyId: key.kid })
  const spec = checkEveryResponse(server.url)
  return {
    server,
    wallets,
    key,
    walletAddress,
    client,
    spec,
    /** Another client instance with its own wallet address and key. */
    async newClient(name: string): Promise<{ client: AuthenticatedClient; key: ClientKey; walletAddress: string }> {
      const k = await generateClientKey(`${name}-key`)
      const wa = wallets.addClient(name, { publicName: `${name} app`, keys: [k.jwk], authServer: server.url })
      return { client: await createAuthenticatedClient({ walletAddressUrl: wa, privateKey: k.privateKey, keyId: k.kid }), key: k, walletAddress: wa }
    },
    async stop() {
      spec.restore()
      await wallets.close()
      await server.stop()
    },
  }
}

export type World = Awaited<ReturnType<typeof startWorld>>

/**
 * Plays the owner's browser and the identity provider: follows interact.redirect, records the choice through
 * the identity-provider API, and comes back to the finish URL. Returns the finish URL's answer.
 */
export async function consent(server: Pick<RunningServer, 'url'>, redirect: string, choice: 'accept' | 'reject' = 'accept') {
  const start = await fetch(redirect, { redirect: 'manual' })
  if (start.status !== 302) throw new Error(`interaction start answered ${start.status}`)
  const idp = new URL(start.headers.get('location') ?? '')
  const interactId = idp.searchParams.get('interactId') ?? ''
  const nonce = idp.searchParams.get('nonce') ?? ''
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
  const lookup = await fetch(`${server.url}grant/${interactId}/${nonce}`, { headers: { 'x-idp-secret': IDP_SECRET } })
  if (lookup.status !== 200) throw new Error(`grant lookup answered ${lookup.status}`)
  const chosen = await fetch(`${server.url}grant/${interactId}/${nonce}/${choice}`, { method: 'POST', headers: { 'x-idp-secret': IDP_SECRET } })
  if (chosen.status !== 202) throw new Error(`choice answered ${chosen.status}`)
  const finishUrl = `${server.url}interact/${interactId}/${nonce}/finish`
  const finish = await fetch(finishUrl, { redirect: 'manual', headers: { cookie } })
  return { finish, finishUrl, cookie, idp, interactId, nonce, lookup: (await lookup.json()) as { grantId: string; state: string } }
}

/** The finish hash as an Open Payments client computes it (standard base64, docs/protocol.md §5). */
export function expectedHash(clientNonce: string, asNonce: string, interactRef: string, authServer: string): string {
  return createHash('sha256').update([clientNonce, asNonce, interactRef, authServer].join('\n')).digest('base64')
}

export async function introspect(server: RunningServer, token: string, access?: unknown[]) {
  const res = await fetch(`${server.url}introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${INTROSPECTION_SECRET}` },
    body: JSON.stringify(access ? { access_token: token, access } : { access_token: token }),
  })
  return {
    status: res.status,
    body: (await res.json()) as { active: boolean; grant?: string; access?: unknown[]; client?: { walletAddress: string } },
  }
}

/** The SDK's error for a call that must be refused (its status, code and description). */
export async function rejection(p: Promise<unknown>): Promise<OpenPaymentsClientError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  )
  if (!(e instanceof OpenPaymentsClientError)) throw new Error(`expected the client to reject, got ${String(e)}`)
  return e
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * The server's rate limits count in fixed windows on the clock (`fixedWindow`, packages/domain rate-limit.ts): a test
 * that fills one and expects the next request refused waits for a fresh window when fewer than `seconds` are left in
 * this one, or its requests could straddle two windows and never be refused. The wait counts toward the test's time:
 * the files that call it run in the `http-alone` project, whose tests have 90 s (vitest.config.ts).
 */
export async function atLeastLeftInWindow(seconds: number, windowSeconds = 60): Promise<void> {
  const left = windowSeconds - ((Date.now() / 1000) % windowSeconds)
  if (left < seconds) await sleep(left * 1000 + 100)
}

export const outgoingAccess = (identifier: string) => ({
  type: 'outgoing-payment' as const,
  actions: ['create' as const, 'read' as const],
  identifier,
  limits: {
    debitAmount: { value: '2500', assetCode: 'USD', assetScale: 2 },
    interval: 'R12/2026-12-01T00:00:00Z/P1M',
  },
})

export const finishParams = () => ({ method: 'redirect' as const, uri: 'https://client.example/finish', nonce: randomUUID() })

/**
 * The real client's outgoing-payment grant on `identifier`: requested, approved by the owner through the
 * identity-provider API, and continued to its token once `wait` has passed.
 */
export async function approvedOutgoingGrant(world: Pick<World, 'client' | 'server'>, identifier: string) {
  const pending = await world.client.grant.request(
    { url: world.server.url },
    { access_token: { access: [outgoingAccess(identifier)] }, interact: { start: ['redirect'], finish: finishParams() } },
  )
  if (!isPendingGrant(pending)) throw new Error('expected a pending grant')
  const { finish, lookup } = await consent(world.server, pending.interact.redirect)
  const interactRef = new URL(finish.headers.get('location') ?? '').searchParams.get('interact_ref') ?? ''
  await sleep((pending.continue.wait ?? 0) * 1000)
  const issued = await world.client.grant.continue(
    { url: pending.continue.uri, accessToken: pending.continue.access_token.value },
    { interact_ref: interactRef },
  )
  if (!isFinalizedGrant(issued) || !issued.access_token) throw new Error('expected an issued grant')
  return { pending, lookup, token: issued.access_token }
}
