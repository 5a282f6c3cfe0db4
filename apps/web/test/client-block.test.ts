// Blocking a client (docs/protocol.md §2.16) seen by the real Open Payments client and by a resource server, on two
// instances sharing one database: an operator blocks the client in the console's API on instance a; the client's
// token introspects inactive on both instances at once, and its rotation, continuation, token revocation and grant
// requests are refused with 401 invalid_client on both. Unblocking lets it request grants again. On one SQLite file,
// and on one PostgreSQL database when MULTI_INSTANCE_PG_URL or TEST_DATABASE_URL names a server.
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createAuthenticatedClient,
  isFinalizedGrant,
  isPendingGrant,
  type OpenPaymentsClientError,
  type AuthenticatedClient,
} from '@interledger/open-payments'
import { openStore } from '@gnap/domain/kernel'
import { createAdmin } from '@gnap/domain/operator'
import { adminQuery, databaseUrl, generateClientKey, startWalletAddressServer } from '@gnap/domain/testing'
import { INTROSPECTION_SECRET, startInstances, testServerEnv, type Instance } from '@gnap/test-support'
import { finishParams, outgoingAccess, rejection } from './support/world'
import { signedRequest, type GnapErrorJson } from './support/raw-http'

const pgAdmin = process.env.MULTI_INSTANCE_PG_URL ?? process.env.TEST_DATABASE_URL
const OPERATOR = { email: 'operator@example.com', password: 'an operator password of some length', role: 'operator' as const }
const incoming = [{ type: 'incoming-payment' as const, actions: ['read' as const] }]

const pgName = `gnap_block_${randomBytes(5).toString('hex')}`
let sqliteDir = ''
const stores = [
  {
    label: 'one SQLite file',
    skip: false,
    create: () => {
      sqliteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-block-'))
      return Promise.resolve(`file:${path.join(sqliteDir, 'gnap.db')}`)
    },
    drop: () => Promise.resolve(fs.rmSync(sqliteDir, { recursive: true, force: true })),
  },
  {
    label: 'one PostgreSQL database',
    skip: !pgAdmin,
    create: async () => {
      await adminQuery(pgAdmin!, `CREATE DATABASE "${pgName}"`)
      return databaseUrl(pgAdmin!, pgName)
    },
    drop: () => adminQuery(pgAdmin!, `DROP DATABASE IF EXISTS "${pgName}" WITH (FORCE)`).then(() => undefined),
  },
]

describe.each(stores.filter((s) => !s.skip))('blocking a client, two instances on $label', (store) => {
  let a: Instance
  let b: Instance
  let wallets: Awaited<ReturnType<typeof startWalletAddressServer>>
  const key = generateClientKey('block-key')
  const otherKey = generateClientKey('other-key')
  let walletAddress: string
  let client: AuthenticatedClient
  let other: AuthenticatedClient
  let base: string

  beforeAll(async () => {
    const dbUrl = await store.create()
    ;[a, b] = (await startInstances({ databaseUrl: dbUrl, env: testServerEnv() })) as [Instance, Instance]
    base = a.url
    const db = await openStore(dbUrl)
    try {
      await createAdmin(db.sql, OPERATOR)
    } finally {
      await db.close()
    }
    wallets = await startWalletAddressServer({})
    walletAddress = wallets.addClient('leaky', { publicName: 'Leaky App', keys: [key.jwk], authServer: base })
    const otherAddress = wallets.addClient('fine', { publicName: 'Fine App', keys: [otherKey.jwk], authServer: base })
    client = await createAuthenticatedClient({ walletAddressUrl: walletAddress, privateKey: key.privateKey, keyId: key.kid })
    other = await createAuthenticatedClient({ walletAddressUrl: otherAddress, privateKey: otherKey.privateKey, keyId: otherKey.kid })
  })

  afterAll(async () => {
    await a?.stop()
    await b?.stop()
    await wallets?.close()
    await store.drop().catch(() => undefined)
  })

  /** A request signed for the public URL, delivered to instance b (as a proxy in front would). */
  const onB = async (input: Parameters<typeof signedRequest>[1]) => fetch(input.url.replace(base, b.url), await signedRequest(key, input))

  async function introspect(server: Instance, value: string): Promise<boolean> {
    const res = await fetch(`${server.url}introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${INTROSPECTION_SECRET}` },
      body: JSON.stringify({ access_token: value }),
    })
    return ((await res.json()) as { active: boolean }).active
  }

  /** The operator signs in to the console's API on `server` and calls one mutation there, as the console page does. */
  async function asOperator(server: Instance, procedure: string, input: unknown): Promise<{ status: number; body: unknown }> {
    const signIn = await fetch(`${server.url}api/trpc/auth.signIn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ json: { email: OPERATOR.email, password: OPERATOR.password } }),
    })
    expect(signIn.status).toBe(200)
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!
    const { result } = (await signIn.json()) as { result: { data: { json: { csrfToken: string } } } }
    const res = await fetch(`${server.url}api/trpc/${procedure}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': result.data.json.csrfToken },
      body: JSON.stringify({ json: input }),
    })
    return { status: res.status, body: await res.json() }
  }

  const expectBlocked = (e: OpenPaymentsClientError) => {
    expect([e.status, e.code]).toEqual([401, 'invalid_client'])
    expect(e.description).toMatch(/blocked/)
  }

  async function expectBlockedAnswer(res: Response) {
    const body = (await res.json()) as GnapErrorJson
    expect([res.status, body.error.code]).toEqual([401, 'invalid_client'])
    expect(body.error.description).toMatch(/blocked/)
  }

  it('refuses the blocked client on every endpoint of both instances, its token inactive at once on both; unblocking lets it in again', async () => {
    // Before: a live token, a grant waiting for consent, and another client's token.
    const issued = await client.grant.request({ url: base }, { access_token: { access: incoming } })
    if (!isFinalizedGrant(issued) || !issued.access_token) throw new Error('expected an issued grant')
    const token = issued.access_token
    const pending = await client.grant.request(
      { url: base },
      { access_token: { access: [outgoingAccess('https://wallet.example/alice')] }, interact: { start: ['redirect'], finish: finishParams() } },
    )
    if (!isPendingGrant(pending)) throw new Error('expected a pending grant')
    const others = await other.grant.request({ url: base }, { access_token: { access: incoming } })
    if (!isFinalizedGrant(others) || !others.access_token) throw new Error('expected an issued grant')
    expect(await introspect(b, token.value)).toBe(true)

    const blocked = await asOperator(a, 'clients.block', { walletAddress, reason: 'its signing key was published by mistake' })
    expect(blocked.status).toBe(200)
    expect(blocked.body).toMatchObject({ result: { data: { json: { walletAddress, revokedGrants: 2, revokedTokens: 1 } } } })

    // The resource server asks either instance: inactive on both, at once; the other client's token is untouched.
    expect(await introspect(b, token.value)).toBe(false)
    expect(await introspect(a, token.value)).toBe(false)
    expect(await introspect(b, others.access_token.value)).toBe(true)

    // The real client, through the public address.
    expectBlocked(await rejection(client.token.rotate({ url: token.manage, accessToken: token.value })))
    expectBlocked(await rejection(client.grant.continue({ url: pending.continue.uri, accessToken: pending.continue.access_token.value })))
    expectBlocked(await rejection(client.token.revoke({ url: token.manage, accessToken: token.value })))
    expectBlocked(await rejection(client.grant.request({ url: base }, { access_token: { access: incoming } })))

    // The same requests delivered to instance b.
    await expectBlockedAnswer(await onB({ method: 'POST', url: token.manage, token: token.value }))
    await expectBlockedAnswer(await onB({ method: 'POST', url: pending.continue.uri, token: pending.continue.access_token.value, body: {} }))
    await expectBlockedAnswer(await onB({ method: 'DELETE', url: token.manage, token: token.value }))
    await expectBlockedAnswer(await onB({ method: 'POST', url: base, body: { access_token: { access: incoming }, client: walletAddress } }))

    // Unblocked on instance b: the client may ask again; its old token stays dead.
    expect((await asOperator(b, 'clients.unblock', { walletAddress })).status).toBe(200)
    const again = await client.grant.request({ url: base }, { access_token: { access: incoming } })
    if (!isFinalizedGrant(again) || !again.access_token) throw new Error('expected an issued grant')
    expect(await introspect(b, again.access_token.value)).toBe(true)
    expect(await introspect(b, token.value)).toBe(false)
  })
})
