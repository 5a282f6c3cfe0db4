// The service API (docs/protocol.md §2.21) called as the Rafiki backend's auth-service client calls it: JSON bodies
// with `Content-Type: application/json`, no credentials, success read from `response.ok`, the error details from the
// JSON body. The listener's handler runs in this process on a loopback port, over a test database of its own
// (SQLite, or PostgreSQL under TEST_DATABASE_URL); no build is needed.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildTestDeps, type TestDeps } from '@gnap/domain/testing'
import type { GnapConfig } from '@gnap/domain/kernel'
import { serviceApiHandler } from '../src/server/edge/service-api-listener'

const A = '6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
const UNKNOWN = '11111111-2222-4333-8444-555555555555'

let t: TestDeps
let server: http.Server
let base: string

async function start(config: Partial<GnapConfig> = {}): Promise<void> {
  t = await buildTestDeps({ config })
  server = new http.Server(serviceApiHandler(t.deps))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

beforeEach(() => start())

afterEach(async () => {
  await new Promise((resolve) => server.close(resolve))
  await t.cleanup()
})

/** One call as the backend's client makes it; the status, and the JSON body when there is one. */
async function call(method: string, path: string, data?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    ...(data === undefined ? {} : { body: typeof data === 'string' ? data : JSON.stringify(data) }),
  })
  const text = await response.text()
  return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) }
}

const tenant = { id: A, apiSecret: 'api-secret-a-0123456789', idpConsentUrl: 'https://idp-a.example/consent', idpSecret: 'idp-secret-a-0123456789' }
const row = () => t.db.tenant.findUnique({ where: { id: A } })
const error = (code: string) => ({ error: { code, description: expect.any(String) } })

describe('the service API as the backend calls it', () => {
  it('GET /healthz answers 200', async () => {
    expect(await call('GET', '/healthz')).toMatchObject({ status: 200 })
  })

  it('creates (204), and a repeat of the same create is 204 again', async () => {
    expect(await call('POST', '/tenant', tenant)).toEqual({ status: 204, body: null })
    expect(await call('POST', '/tenant', tenant)).toEqual({ status: 204, body: null })
    expect(await row()).toMatchObject({ idpConsentUrl: tenant.idpConsentUrl, apiSecret: tenant.apiSecret, deletedAt: null })
    expect(await t.db.tenant.count()).toBe(1)
  })

  it('creates without an identity provider, as the backend sends undefined fields (left out)', async () => {
    expect(await call('POST', '/tenant', { id: A, apiSecret: tenant.apiSecret, idpConsentUrl: undefined, idpSecret: undefined })).toMatchObject({
      status: 204,
    })
    expect(await row()).toMatchObject({ idpConsentUrl: null, idpSecretHash: null })
  })

  it.each([
    ['a body that is no JSON', '{"id":'],
    ['an id that is no UUID', { ...tenant, id: 'tenant-a' }],
    ['no apiSecret', { id: A }],
  ])('refuses a create with %s: 400 invalid_request, nothing written', async (_name, body) => {
    expect(await call('POST', '/tenant', body)).toEqual({ status: 400, body: error('invalid_request') })
    expect(await t.db.tenant.count()).toBe(0)
  })

  it('updates (204) only what is sent; an unknown tenant is 404', async () => {
    await call('POST', '/tenant', tenant)
    expect(await call('PATCH', `/tenant/${A}`, { apiSecret: 'api-secret-a-rotated-0123', idpConsentUrl: undefined })).toEqual({
      status: 204,
      body: null,
    })
    expect(await row()).toMatchObject({ apiSecret: 'api-secret-a-rotated-0123', idpConsentUrl: tenant.idpConsentUrl })
    expect(await call('PATCH', `/tenant/${UNKNOWN}`, { apiSecret: 'whatever-0123456789' })).toEqual({ status: 404, body: error('invalid_request') })
    expect(await call('PATCH', '/tenant/not-a-tenant', { apiSecret: 'whatever-0123456789' })).toEqual({ status: 404, body: error('invalid_request') })
  })

  it('deletes with the date the backend sends (204); a repeat, an unknown id and a later update are 404; a bad date is 400', async () => {
    await call('POST', '/tenant', tenant)
    expect(await call('DELETE', `/tenant/${A}`, { deletedAt: 'not a date' })).toEqual({ status: 400, body: error('invalid_request') })
    expect(await call('DELETE', `/tenant/${A}`, {})).toEqual({ status: 400, body: error('invalid_request') })
    expect((await row())?.deletedAt).toBeNull()
    const deletedAt = new Date('2025-01-15T12:00:00.000Z')
    expect(await call('DELETE', `/tenant/${A}`, { deletedAt })).toEqual({ status: 204, body: null })
    expect((await row())?.deletedAt?.toISOString()).toBe(deletedAt.toISOString())
    expect(await call('DELETE', `/tenant/${A}`, { deletedAt })).toEqual({ status: 404, body: error('invalid_request') })
    expect(await call('DELETE', `/tenant/${UNKNOWN}`, { deletedAt })).toEqual({ status: 404, body: error('invalid_request') })
    expect(await call('PATCH', `/tenant/${A}`, { apiSecret: 'whatever-0123456789' })).toEqual({ status: 404, body: error('invalid_request') })
    // A deleted id is never given to a new tenant.
    expect(await call('POST', '/tenant', tenant)).toEqual({ status: 409, body: error('invalid_request') })
  })

  it('answers 404 for other paths and 405 for other methods', async () => {
    expect(await call('GET', '/tenants')).toEqual({ status: 404, body: error('invalid_request') })
    expect(await call('GET', '/tenant')).toMatchObject({ status: 405 })
    expect(await call('GET', `/tenant/${A}`)).toMatchObject({ status: 405 })
  })
})

describe('the service API with SERVICE_API_SECRET', () => {
  beforeEach(async () => {
    await new Promise((resolve) => server.close(resolve))
    await t.cleanup()
    await start({ serviceApi: { port: 0, host: '127.0.0.1', secrets: ['service-api-secret-0123456789'] } })
  })

  it('refuses a call without the bearer secret (401, nothing written) and serves one with it', async () => {
    expect(await call('POST', '/tenant', tenant)).toEqual({ status: 401, body: error('invalid_client') })
    expect(await call('POST', '/tenant', tenant, { authorization: 'Bearer wrong-secret-0123456789' })).toMatchObject({ status: 401 })
    expect(await t.db.tenant.count()).toBe(0)
    expect(await call('POST', '/tenant', tenant, { authorization: 'Bearer service-api-secret-0123456789' })).toMatchObject({ status: 204 })
    expect(await call('GET', '/healthz')).toMatchObject({ status: 200 })
  })
})
