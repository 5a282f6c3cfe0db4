import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { compileErrors, validate } from '@readme/openapi-parser'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { issueNonInteractiveGrant, type TestDeps } from '@gnap/domain/testing'
import { handleRestRequest, openApiDocument, REST_OPERATIONS } from '../src/rest'
import { TEST_CLIENT } from '@gnap/domain/testing'
import { adminCaller, apiKeyCaller, apiTestDeps, expectTrpcError, signedInAdmin } from './support'
import { MINIMUM_ROLE, PEOPLE_ONLY, routerPaths, type ProcedurePath } from './procedures'

// The REST form of the operator procedures (docs/protocol.md §2.18): the document validates as OpenAPI 3.1, every
// answer matches it, and the calls go through the procedures' own role checks, rate limit and audit.
let t: TestDeps
beforeEach(async () => {
  t = await apiTestDeps()
})
afterEach(async () => {
  await t.cleanup()
})

const BASE = 'http://localhost/api/v1'
const doc = openApiDocument(BASE)

async function rest(method: 'GET' | 'POST', path: string, opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers = new Headers(opts.headers)
  if (opts.key) headers.set('authorization', `Bearer ${opts.key}`)
  const body = opts.body === undefined ? null : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body)
  const res = await handleRestRequest(new Request(BASE + path, { method, headers }), { deps: t.deps, basePath: '/api/v1', ip: null, body })
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> }
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void
const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats(ajv)
ajv.addSchema({ ...doc, $id: 'operator-api' })

/** Throws unless `body` is what the document promises for this operation and status. */
function assertDocumented(path: string, method: string, status: number, body: unknown) {
  const pointer = `operator-api#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`
  const check = ajv.getSchema(pointer)
  if (!check) throw new Error(`not documented: ${method} ${path} ${status}`)
  if (!check(body)) throw new Error(`${method} ${path} ${status}: ${ajv.errorsText(check.errors)}`)
}

describe('the OpenAPI document', () => {
  it('validates as OpenAPI 3.1', async () => {
    const result = await validate(structuredClone(doc) as never)
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true)
  })

  it('serves every procedure an API key may call, with the role the matrix declares, and none that only people may call', () => {
    const served = REST_OPERATIONS.map((o) => o.procedure).sort()
    expect(served).toEqual(routerPaths().filter((p) => !PEOPLE_ONLY(p as ProcedurePath)))
    for (const op of REST_OPERATIONS) expect(op.role, op.procedure).toBe(MINIMUM_ROLE[op.procedure as ProcedurePath])
    const paths = doc.paths as Record<string, Record<string, { operationId: string; 'x-role': string }>>
    const roles = Object.values(paths).flatMap((methods) => Object.values(methods).map((o) => [o.operationId, o['x-role']]))
    expect(Object.fromEntries(roles)).toMatchObject({
      clients_block: 'operator',
      clients_unblock: 'operator',
      grants_list: 'viewer',
      owners_create: 'admin',
    })
    expect(roles).toHaveLength(REST_OPERATIONS.length)
  })
})

describe('REST calls', () => {
  it('reads and revokes a grant with an operator key, each answer as documented, audited under the key', async () => {
    await issueNonInteractiveGrant(t)
    const { key } = await apiKeyCaller(t, 'operator', 'sync')
    const search = await rest('POST', '/grants/search', {
      key,
      body: { filters: { createdFrom: new Date(t.clock.now.getTime() - 60_000).toISOString() }, limit: 10 },
    })
    expect(search.status).toBe(200)
    assertDocumented('/grants/search', 'POST', 200, search.body)
    const [grant] = search.body.items as { id: string }[]
    const id = grant!.id
    const one = await rest('GET', `/grants/${id}`, { key })
    assertDocumented('/grants/{id}', 'GET', 200, one.body)
    const chain = await rest('GET', `/grants/${id}/tokens`, { key })
    assertDocumented('/grants/{grantId}/tokens', 'GET', 200, chain.body)
    const revoked = await rest('POST', `/grants/${id}/revoke`, { key })
    expect(revoked).toMatchObject({ status: 200, body: { grantId: id, revokedTokens: 1 } })
    assertDocumented('/grants/{id}/revoke', 'POST', 200, revoked.body)
    const again = await rest('POST', `/grants/${id}/revoke`, { key })
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT', message: 'the grant was already revoked' } } })
    assertDocumented('/grants/{id}/revoke', 'POST', 409, again.body)
    for (const [path, body] of [
      ['/clients/search', {}],
      ['/owners/search', {}],
      ['/audit/search', { limit: 5 }],
      ['/stats/overview', { from: new Date(t.clock.now.getTime() - 86_400_000).toISOString(), to: t.clock.now.toISOString() }],
    ] as const) {
      const res = await rest('POST', path, { key, body })
      expect(res.status, path).toBe(200)
      assertDocumented(path, 'POST', 200, res.body)
    }
    expect(await t.db.auditLog.findMany({ where: { action: 'grant.revoke' } })).toMatchObject([{ actor: 'api key "sync"' }])
  })

  it('answers 401 with a challenge without a key, with a bad one and with a session cookie alone', async () => {
    const session = await signedInAdmin(t)
    for (const headers of [
      {},
      { authorization: 'Bearer gnap_ak_0123456789abcdef_' + 'A'.repeat(43) },
      { cookie: `gnap_admin=${session.value}` },
    ] as Record<string, string>[]) {
      const res = await rest('POST', '/clients/search', { headers, body: {} })
      expect(res.status).toBe(401)
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/)
      assertDocumented('/clients/search', 'POST', 401, res.body)
    }
  })

  it('answers 403 to a viewer key revoking, and changes nothing', async () => {
    await issueNonInteractiveGrant(t)
    const id = (await t.db.grant.findFirstOrThrow()).id
    const { key } = await apiKeyCaller(t, 'viewer')
    const res = await rest('POST', `/grants/${id}/revoke`, { key })
    expect(res).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } })
    expect((await t.db.grant.findUniqueOrThrow({ where: { id } })).finalizedReason).toBe('issued')
  })

  it('answers 429 with Retry-After over the key’s limit', async () => {
    await t.cleanup()
    t = await apiTestDeps({ apiKeyCallsPerMinute: 2 })
    const { key } = await apiKeyCaller(t, 'viewer')
    expect((await rest('POST', '/clients/search', { key })).status).toBe(200)
    expect((await rest('POST', '/clients/search', { key })).status).toBe(200)
    const res = await rest('POST', '/clients/search', { key })
    expect(res.status).toBe(429)
    expect(res.headers.get('retry-after')).toBe('60')
    assertDocumented('/clients/search', 'POST', 429, res.body)
  })

  it('answers bad input, unknown paths and wrong methods in JSON', async () => {
    const { key } = await apiKeyCaller(t, 'viewer')
    expect(await rest('POST', '/grants/search', { key, body: '{' })).toMatchObject({ status: 400, body: { error: { code: 'BAD_REQUEST' } } })
    expect(await rest('POST', '/grants/search', { key, body: { limit: 1000 } })).toMatchObject({
      status: 400,
      body: { error: { code: 'BAD_REQUEST', message: expect.stringContaining('limit') } },
    })
    expect(await rest('GET', '/grants/not-a-grant', { key })).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } })
    expect(await rest('GET', '/nothing', { key })).toMatchObject({ status: 404 })
    const method = await rest('GET', '/clients/search', { key })
    expect(method).toMatchObject({ status: 405 })
    expect(method.headers.get('allow')).toBe('POST')
  })

  it('blocks and unblocks a client with an operator key, each answer as documented, audited under the key; a viewer key is refused', async () => {
    const g = await issueNonInteractiveGrant(t)
    const viewer = (await apiKeyCaller(t, 'viewer', 'dashboard')).key
    const refused = await rest('POST', '/clients/block', { key: viewer, body: { walletAddress: TEST_CLIENT, reason: 'its key leaked' } })
    expect(refused).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } })
    assertDocumented('/clients/block', 'POST', 403, refused.body)
    expect(await t.db.clientBlock.count()).toBe(0)

    const { key } = await apiKeyCaller(t, 'operator', 'sync')
    const blocked = await rest('POST', '/clients/block', { key, body: { walletAddress: TEST_CLIENT, reason: 'its key leaked' } })
    expect(blocked).toMatchObject({ status: 200, body: { walletAddress: TEST_CLIENT, revokedGrants: 1, revokedTokens: 1 } })
    assertDocumented('/clients/block', 'POST', 200, blocked.body)
    expect((await t.db.grant.findUniqueOrThrow({ where: { continueId: g.continueId } })).finalizedReason).toBe('revoked')
    const list = await rest('GET', '/clients/blocked', { key: viewer })
    expect(list).toMatchObject({
      status: 200,
      body: { items: [{ walletAddress: TEST_CLIENT, reason: 'its key leaked', blockedBy: 'api key "sync"' }] },
    })
    assertDocumented('/clients/blocked', 'GET', 200, list.body)
    const again = await rest('POST', '/clients/block', { key, body: { walletAddress: TEST_CLIENT, reason: 'twice' } })
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT' } } })
    // The body goes through the procedure's input schema: no reason, no block, in the words the console's field shows.
    expect(await rest('POST', '/clients/block', { key, body: { walletAddress: 'https://wallet.example/x', reason: ' ' } })).toMatchObject({
      status: 400,
      body: { error: { code: 'BAD_REQUEST', message: expect.stringContaining('reason: give a reason before blocking') } },
    })

    expect(await rest('POST', '/clients/unblock', { key: viewer, body: { walletAddress: TEST_CLIENT } })).toMatchObject({ status: 403 })
    const unblocked = await rest('POST', '/clients/unblock', { key, body: { walletAddress: TEST_CLIENT } })
    expect(unblocked).toMatchObject({ status: 200, body: { walletAddress: TEST_CLIENT } })
    assertDocumented('/clients/unblock', 'POST', 200, unblocked.body)
    expect(await t.db.clientBlock.count()).toBe(0)
    expect(
      (await t.db.auditLog.findMany({ where: { action: { in: ['client.block', 'client.unblock'] } }, orderBy: { action: 'asc' } })).map((a) => [
        a.action,
        a.actor,
      ]),
    ).toEqual([
      ['client.block', 'api key "sync"'],
      ['client.unblock', 'api key "sync"'],
    ])
  })

  it('refuses an API key on what only people may call: FORBIDDEN over tRPC, no such operation over REST', async () => {
    const { key, caller } = await apiKeyCaller(t, 'admin', 'root')
    await expectTrpcError(caller.apiKeys.create({ name: 'minted', role: 'admin' }), 'FORBIDDEN')
    await expectTrpcError(caller.account.sessions(), 'FORBIDDEN')
    await expectTrpcError(caller.admins.invite({ email: 'new@example.com', role: 'admin' }), 'FORBIDDEN')
    expect(await t.db.apiKey.count()).toBe(1)
    for (const [method, path] of [
      ['POST', '/api-keys'],
      ['GET', '/api-keys'],
      ['POST', '/admins'],
      ['GET', '/account/sessions'],
      ['POST', '/auth/sign-in'],
    ] as const) {
      expect(await rest(method, path, { key, body: method === 'POST' ? { name: 'minted', role: 'admin' } : undefined }), path).toMatchObject({
        status: path === '/admins' ? 405 : 404,
      })
    }
    expect(await t.db.apiKey.count()).toBe(1)
    expect(JSON.stringify(doc.paths)).not.toMatch(/apiKeys_|account_|auth_|admins_(?!list)/)
  })
})

describe('a key answers to its creator over REST', () => {
  const owner = (n: number) => ({ email: `o${n}@example.com`, name: `Owner ${n}`, walletAddresses: [`https://wallet.example/o${n}`] })

  it('acts at most with its creator’s current role, and answers 401 like an unknown key while its creator is disabled or once deleted', async () => {
    const { caller: root } = await adminCaller(t)
    const { key, apiKey } = await apiKeyCaller(t, 'admin', 'sync')
    const creatorId = (await t.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } })).createdById!
    const unknown = await rest('POST', '/owners', { key: 'gnap_ak_0123456789abcdef_' + 'A'.repeat(43), body: owner(0) })
    expect(unknown.status).toBe(401)
    expect((await rest('POST', '/owners', { key, body: owner(1) })).status).toBe(200)

    // Demoted to viewer: the admin key reads, and an admin operation is refused.
    await root.admins.changeRole({ adminId: creatorId, role: 'viewer' })
    const capped = await rest('POST', '/owners', { key, body: owner(2) })
    expect(capped).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN', message: expect.stringContaining('admin') } } })
    assertDocumented('/owners', 'POST', 403, capped.body)
    expect((await rest('POST', '/owners/search', { key, body: {} })).status).toBe(200)
    await root.admins.changeRole({ adminId: creatorId, role: 'admin' })
    expect((await rest('POST', '/owners', { key, body: owner(3) })).status).toBe(200)

    // Disabled: the same answer as an unknown key; enabled again: the key works again.
    await root.admins.disable({ adminId: creatorId })
    const refused = await rest('POST', '/owners/search', { key, body: {} })
    expect(refused.status).toBe(401)
    expect(refused.body).toEqual(unknown.body)
    expect(refused.headers.get('www-authenticate')).toBe(unknown.headers.get('www-authenticate'))
    await root.admins.enable({ adminId: creatorId })
    expect((await rest('POST', '/owners/search', { key, body: {} })).status).toBe(200)

    // Deleted: 401 too.
    await t.db.admin.delete({ where: { id: creatorId } })
    expect(await rest('POST', '/owners/search', { key, body: {} })).toMatchObject({ status: 401, body: unknown.body })
    expect(await t.db.owner.count()).toBe(2)
  })

  it('disabling the creator with revokeKeys revokes their keys for good, audited per key', async () => {
    const { caller: root } = await adminCaller(t)
    const { key, apiKey } = await apiKeyCaller(t, 'viewer', 'dashboard')
    const creatorId = (await t.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } })).createdById!
    expect((await root.admins.list()).find((a) => a.id === creatorId)).toMatchObject({ liveApiKeys: 1 })
    await expect(root.admins.disable({ adminId: creatorId, revokeKeys: true })).resolves.toEqual({ id: creatorId, endedSessions: 0, revokedKeys: 1 })
    expect(await t.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } })).toMatchObject({ revokedAt: expect.any(Date) })
    expect(await t.db.auditLog.findMany({ where: { action: 'api-key.revoke' } })).toMatchObject([
      { actor: 'ops@example.com', target: `api-key:${apiKey.id}`, detail: 'api key "dashboard"; its creator setup@example.com was disabled' },
    ])
    await root.admins.enable({ adminId: creatorId })
    expect((await rest('POST', '/owners/search', { key, body: {} })).status).toBe(401)
    expect((await root.apiKeys.list()).items).toMatchObject([{ name: 'dashboard', status: 'revoked', creatorStatus: 'active', actsAs: null }])
  })
})
