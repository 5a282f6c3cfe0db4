// Grants prepared through the real flow before a load run: non-interactive incoming-payment grants (their tokens
// feed rotation chains and introspection), and interactive outgoing-payment grants approved through the
// identity-provider API (their interact_ref feeds continuation).
import { randomUUID } from 'node:crypto'
import type { ClientKey } from '@gnap/domain/testing'
import { IDP_SECRET } from '@gnap/test-support'
import { signFast } from './signer'

// The secrets `startServer` gives the server it starts.
export { IDP_SECRET, INTROSPECTION_SECRET } from '@gnap/test-support'

export interface BenchClient {
  name: string
  walletAddress: string
  key: ClientKey
}

export interface LiveToken {
  client: number
  managementId: string
  value: string
}

export interface ApprovedGrant {
  client: number
  continueId: string
  continueToken: string
  interactRef: string
}

export const OWNER_WALLET = 'https://wallet.example/alice'

const lastSegment = (url: string) => decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '')

export function incomingGrantBody(client: BenchClient): string {
  return JSON.stringify({
    access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'read', 'list'] }] },
    client: client.walletAddress,
  })
}

function outgoingGrantBody(client: BenchClient): string {
  return JSON.stringify({
    access_token: {
      access: [
        {
          type: 'outgoing-payment',
          actions: ['create', 'read'],
          identifier: OWNER_WALLET,
          limits: { debitAmount: { value: '2500', assetCode: 'USD', assetScale: 2 }, interval: 'R12/2026-12-01T00:00:00Z/P1M' },
        },
      ],
    },
    client: client.walletAddress,
    interact: { start: ['redirect'], finish: { method: 'redirect', uri: 'https://client.example/finish', nonce: randomUUID() } },
  })
}

async function expectStatus(res: Response, status: number, what: string): Promise<void> {
  if (res.status !== status) throw new Error(`${what} answered ${res.status}, expected ${status}: ${(await res.text()).slice(0, 300)}`)
}

/** Runs `fn(i)` for i in [0, n) with at most `concurrency` at once. */
export async function pool<T>(n: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) {
        const i = next++
        out[i] = await fn(i)
      }
    }),
  )
  return out
}

export async function requestIncomingGrant(baseUrl: string, clients: BenchClient[], i: number): Promise<LiveToken> {
  const clientNo = i % clients.length
  const client = clients[clientNo]!
  const body = incomingGrantBody(client)
  const res = await fetch(baseUrl, { method: 'POST', headers: signFast(client.key, { method: 'POST', url: baseUrl, body }), body })
  await expectStatus(res, 200, 'grant request')
  const json = (await res.json()) as { access_token: { value: string; manage: string } }
  return { client: clientNo, managementId: lastSegment(json.access_token.manage), value: json.access_token.value }
}

/** `n` live tokens from non-interactive grants, spread over the clients. */
export function prepareTokens(baseUrl: string, clients: BenchClient[], n: number, offset = 0): Promise<LiveToken[]> {
  return pool(n, 16, (i) => requestIncomingGrant(baseUrl, clients, offset + i))
}

/** One interactive grant carried through consent: request, interaction start, IdP accept, finish. */
async function approvedGrant(baseUrl: string, clients: BenchClient[], i: number): Promise<ApprovedGrant> {
  const clientNo = i % clients.length
  const client = clients[clientNo]!
  const body = outgoingGrantBody(client)
  const res = await fetch(baseUrl, { method: 'POST', headers: signFast(client.key, { method: 'POST', url: baseUrl, body }), body })
  await expectStatus(res, 200, 'interactive grant request')
  const grant = (await res.json()) as { interact: { redirect: string }; continue: { uri: string; access_token: { value: string } } }

  const start = await fetch(grant.interact.redirect, { redirect: 'manual' })
  await expectStatus(start, 302, 'interaction start')
  const idp = new URL(start.headers.get('location') ?? '')
  const interactId = idp.searchParams.get('interactId') ?? ''
  const nonce = idp.searchParams.get('nonce') ?? ''
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
  const accept = await fetch(`${baseUrl}grant/${interactId}/${nonce}/accept`, { method: 'POST', headers: { 'x-idp-secret': IDP_SECRET } })
  await expectStatus(accept, 202, 'identity-provider accept')
  const finish = await fetch(`${baseUrl}interact/${interactId}/${nonce}/finish`, { redirect: 'manual', headers: { cookie } })
  await expectStatus(finish, 302, 'interaction finish')
  const interactRef = new URL(finish.headers.get('location') ?? '').searchParams.get('interact_ref')
  if (!interactRef) throw new Error('the finish redirect carries no interact_ref')
  return { client: clientNo, continueId: lastSegment(grant.continue.uri), continueToken: grant.continue.access_token.value, interactRef }
}

/** `n` approved grants, each continuable once with its interact_ref once WAIT_SECONDS passed. */
export function prepareApproved(baseUrl: string, clients: BenchClient[], n: number, offset = 0): Promise<ApprovedGrant[]> {
  return pool(n, 16, (i) => approvedGrant(baseUrl, clients, offset + i))
}
