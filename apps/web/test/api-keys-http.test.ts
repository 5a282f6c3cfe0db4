// API keys over HTTP against `next start` (docs/protocol.md §2.18): the tRPC endpoint with a bearer key, the REST
// form and its OpenAPI document, and both example scripts run against the started server.
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { validate, compileErrors } from '@readme/openapi-parser'
import { openStore, type Store } from '@gnap/domain/kernel'
import { type Deps } from '@gnap/domain/protocol'
import { changeAdminRole, createApiKey, createAdmin, disableAdmin, enableAdmin, signInAdmin, type ConsoleActor } from '@gnap/domain/operator'
import { keyCreator } from '@gnap/domain/testing'
import { atLeastLeftInWindow, startWorld, type World } from './support/world'
import { serverDeps } from './support/server-deps'

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, '../../..')
const ALICE = 'https://wallet.example/alice'

let w: World
let store: Store
let deps: Deps

beforeAll(async () => {
  w = await startWorld({ RATE_LIMIT_API_KEY_CALLS_PER_MINUTE: '40' })
  store = await openStore(`file:${w.server.dbFile}`)
  deps = serverDeps(store, w.server.url, { apiKeyCallsPerMinute: 40 })
})

afterAll(async () => {
  await store?.close()
  await w?.stop()
})

const newKey = async (role: 'viewer' | 'operator' | 'admin', name: string, actor?: ConsoleActor) =>
  (await createApiKey(deps, { name, role, actor: actor ?? (await keyCreator(store.sql)) })).key

/** A non-interactive grant of the SDK client whose access names `identifier`. */
async function grantOn(identifier: string): Promise<void> {
  await w.client.grant.request(
    { url: w.server.url },
    { access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'read'], identifier }] } },
  )
}

const rest = (method: 'GET' | 'POST', p: string, opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
  fetch(`${w.server.url}api/v1${p}`, {
    method,
    headers: {
      ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}),
      ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...opts.headers,
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  })

describe('the REST form', () => {
  it('serves an OpenAPI 3.1 document that validates', async () => {
    const res = await fetch(`${w.server.url}api/v1/openapi.json`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    const doc = (await res.json()) as { openapi: string; servers: { url: string }[] }
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.servers).toEqual([{ url: `${w.server.url}api/v1` }])
    const result = await validate(doc as never)
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true)
  })

  it('answers 401 in JSON without a key, with a bad key, and to a browser session cookie', async () => {
    await createAdmin(store.sql, { email: 'ops@example.com', password: 'a long admin password' })
    const session = await signInAdmin(deps, { email: 'ops@example.com', password: 'a long admin password', ip: null })
    if (session?.step !== 'signed-in') throw new Error('sign-in failed')
    for (const headers of [
      {},
      { authorization: 'Bearer gnap_ak_0123456789abcdef_' + 'A'.repeat(43) },
      { cookie: `gnap_admin=${session.value}` },
    ] as Record<string, string>[]) {
      const res = await rest('POST', '/clients/search', { headers, body: {} })
      expect(res.status).toBe(401)
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /)
      expect(await res.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } })
    }
  })

  it('revokes with an operator key (200, audited under its name) and refuses a viewer key (403)', async () => {
    await grantOn('https://wallet.example/rest-case')
    const viewer = await newKey('viewer', 'rest-viewer')
    const operator = await newKey('operator', 'rest-operator')
    const search = await rest('POST', '/grants/search', { key: viewer, body: { filters: { walletAddress: 'https://wallet.example/rest-case' } } })
    expect(search.status).toBe(200)
    const [grant] = ((await search.json()) as { items: { id: string }[] }).items
    const refused = await rest('POST', `/grants/${grant!.id}/revoke`, { key: viewer })
    expect(refused.status).toBe(403)
    expect(await refused.json()).toMatchObject({ error: { code: 'FORBIDDEN', message: expect.stringContaining('operator') } })
    const ok = await rest('POST', `/grants/${grant!.id}/revoke`, { key: operator })
    expect(ok.status).toBe(200)
    expect(await ok.json()).toEqual({ grantId: grant!.id, revokedTokens: 1 })
    expect(await store.prisma.auditLog.findFirst({ where: { target: `grant:${grant!.id}` } })).toMatchObject({ actor: 'api key "rest-operator"' })
  })

  it('answers 429 with Retry-After over the key’s per-minute limit', async () => {
    await atLeastLeftInWindow(15)
    const key = await newKey('viewer', 'busy')
    for (let i = 0; i < 40; i++) expect((await rest('POST', '/clients/search', { key, body: {} })).status).toBe(200)
    const refused = await rest('POST', '/clients/search', { key, body: {} })
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(await refused.json()).toMatchObject({ error: { code: 'TOO_MANY_REQUESTS', message: expect.stringContaining('API key') } })
    // Another key has its own counter.
    expect((await rest('POST', '/clients/search', { key: await newKey('viewer', 'calm'), body: {} })).status).toBe(200)
  }, 60_000)
})

describe('a key answers to its creator (docs/security.md)', () => {
  it('acts at most with its creator’s current role, and answers 401 like an unknown key while the creator is disabled or once deleted', async () => {
    const root = await keyCreator(store.sql, 'root@example.com')
    const creator = await keyCreator(store.sql, 'creator@example.com')
    const key = await newKey('admin', 'creator-admin', creator)
    const owner = (n: number) => ({
      email: `creator-o${n}@example.com`,
      name: `Owner ${n}`,
      walletAddresses: [`https://wallet.example/creator-o${n}`],
    })
    const unknown = await rest('POST', '/owners/search', { key: 'gnap_ak_0123456789abcdef_' + 'B'.repeat(43), body: {} })
    expect(unknown.status).toBe(401)
    const unknownBody = await unknown.json()
    expect((await rest('POST', '/owners', { key, body: owner(1) })).status).toBe(200)

    await changeAdminRole(deps, { change: { adminId: creator.id, role: 'viewer' }, actor: root })
    const capped = await rest('POST', '/owners', { key, body: owner(2) })
    expect(capped.status).toBe(403)
    expect(await capped.json()).toMatchObject({ error: { code: 'FORBIDDEN' } })
    expect((await rest('POST', '/owners/search', { key, body: {} })).status).toBe(200)

    await disableAdmin(deps, { change: { adminId: creator.id }, actor: root })
    const refused = await rest('POST', '/owners/search', { key, body: {} })
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toBe(unknown.headers.get('www-authenticate'))
    expect(await refused.json()).toEqual(unknownBody)

    await enableAdmin(deps, { change: { adminId: creator.id }, actor: root })
    await changeAdminRole(deps, { change: { adminId: creator.id, role: 'admin' }, actor: root })
    expect((await rest('POST', '/owners', { key, body: owner(3) })).status).toBe(200)

    await store.prisma.admin.delete({ where: { id: creator.id } })
    const gone = await rest('POST', '/owners/search', { key, body: {} })
    expect(gone.status).toBe(401)
    expect(await gone.json()).toEqual(unknownBody)
  })

  it('disabling the creator with revokeKeys revokes the key for good, audited', async () => {
    const root = await keyCreator(store.sql, 'root@example.com')
    const creator = await keyCreator(store.sql, 'leaver@example.com', 'viewer')
    const key = await newKey('viewer', 'leaver-key', creator)
    expect((await rest('POST', '/clients/search', { key, body: {} })).status).toBe(200)
    expect(await disableAdmin(deps, { change: { adminId: creator.id, revokeKeys: true }, actor: root })).toMatchObject({ revokedKeys: 1 })
    await enableAdmin(deps, { change: { adminId: creator.id }, actor: root })
    expect((await rest('POST', '/clients/search', { key, body: {} })).status).toBe(401)
    expect(await store.prisma.auditLog.findFirst({ where: { action: 'api-key.revoke', detail: { contains: 'leaver@example.com' } } })).toMatchObject({
      actor: 'root@example.com',
    })
  })
})

describe('the tRPC endpoint with a bearer key', () => {
  it('reads with a key and no cookie, and refuses a request that also carries a cookie', async () => {
    const key = await newKey('viewer', 'trpc-viewer')
    const url = `${w.server.url}api/trpc/clients.list?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`
    expect((await fetch(url, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200)
    const both = await fetch(url, { headers: { authorization: `Bearer ${key}`, cookie: 'gnap_admin=ABCDEF' } })
    expect(both.status).toBe(400)
  })
})

describe('the example scripts', () => {
  it('revoke every grant naming a wallet address: the typed tRPC one and the curl one', async () => {
    await grantOn(ALICE)
    await grantOn(ALICE)
    await grantOn('https://wallet.example/bob')
    const env = { ...process.env, GNAP_URL: w.server.url, GNAP_API_KEY: await newKey('operator', 'examples') }
    const ts = await run('npx', ['tsx', 'examples/revoke-by-wallet-address.ts', ALICE], { cwd: root, env })
    expect(ts.stdout).toContain(`2 grant(s) naming ${ALICE} revoked`)
    const liveOn = (identifier: string) => store.prisma.grant.count({ where: { finalizedReason: 'issued', accessItems: { some: { identifier } } } })
    expect(await liveOn(ALICE)).toBe(0)
    expect(await liveOn('https://wallet.example/bob')).toBe(1)

    const hasTool = async (tool: string) =>
      run(tool, ['--version']).then(
        () => true,
        () => false,
      )
    if (!(await hasTool('curl')) || !(await hasTool('jq'))) return
    await grantOn(ALICE)
    expect(fs.existsSync(path.join(root, 'examples/revoke-by-wallet-address.sh'))).toBe(true)
    const sh = await run('sh', ['examples/revoke-by-wallet-address.sh', ALICE], { cwd: root, env })
    expect(sh.stdout).toContain(`1 grant(s) naming ${ALICE} revoked`)
    expect(await liveOn(ALICE)).toBe(0)
    expect(await liveOn('https://wallet.example/bob')).toBe(1)
  })
})
