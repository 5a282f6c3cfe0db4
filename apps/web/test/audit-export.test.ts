// The audit log's CSV export (docs/protocol.md §2.15), over plain HTTP against `next start`: who may export, the
// file's headers, the console's filters, RFC 4180 quoting, and cells a spreadsheet would run as formulas.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { noMetrics, ADMIN_COOKIE, createLogger, openStore, type Store } from '@gnap/domain/kernel'
import { walletAddressResolverFor, type Deps } from '@gnap/domain/protocol'
import { createAdmin, createApiKey, createOwner, signInAdmin, signInOwner } from '@gnap/domain/operator'
import { keyCreator, testConfig } from '@gnap/domain/testing'
import { startServer, type RunningServer } from '@gnap/test-support'

let server: RunningServer
let store: Store
let viewerCookie: string

const EXPORT = '/admin/audit/export.csv'

function depsOf(store: Store): Deps {
  const config = testConfig({ authServerUrl: server.url })
  return {
    sql: store.sql,
    reads: store.reads,
    config,
    clock: () => new Date(),
    log: createLogger('silent'),
    walletAddresses: walletAddressResolverFor(config),
    metrics: noMetrics,
  }
}

const entry = (actor: string, action: string, target: string, minute: number, detail: string | null = null) =>
  store.prisma.auditLog.create({
    data: { id: crypto.randomUUID(), actor, action, target, detail, createdAt: new Date(Date.UTC(2026, 0, 10, 9, minute)) },
  })

beforeAll(async () => {
  server = await startServer()
  store = await openStore(`file:${server.dbFile}`)
  const deps = depsOf(store)
  await createAdmin(store.sql, { email: 'viewer@example.com', password: 'a long viewer password', role: 'viewer' })
  const session = await signInAdmin(deps, { email: 'viewer@example.com', password: 'a long viewer password', ip: '192.0.2.1' })
  if (session?.step !== 'signed-in') throw new Error('sign-in failed')
  viewerCookie = `${ADMIN_COOKIE}=${session.value}`
  // Older than the viewer's own sign-in, which is entry number one of the log.
  await entry('ops@example.com', 'owner.create', 'owner:o1', 0, 'created "Bob, Jr."')
  await entry('ops@example.com', 'owner.edit', 'owner:o1', 1, '=HYPERLINK("https://evil.example","click")')
  await entry('ops@example.com', 'grant.revoke', 'grant:g1', 2)
  await entry('@evil', 'owner.disable', 'owner:o2', 3, '-2+3')
})

afterAll(async () => {
  await store?.close()
  await server?.stop()
})

const get = (query: string, cookie: string | null = viewerCookie) => fetch(`${server.url}${EXPORT}${query}`, { headers: cookie ? { cookie } : {} })

describe('GET /admin/audit/export.csv', () => {
  it('refuses a request without an admin session, and an owner session, with 401 and no data', async () => {
    const anonymous = await get('', null)
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await anonymous.json()).toEqual({ error: { code: 'unauthorized', description: 'sign in as an administrator' } })

    await createOwner(store.sql, {
      email: 'alice@example.com',
      name: 'Alice',
      password: 'alice password 123',
      walletAddresses: ['https://wallet.example/alice'],
    })
    const owner = await signInOwner(depsOf(store), { email: 'alice@example.com', password: 'alice password 123' })
    const asOwner = await get('', `${ADMIN_COOKIE}=${owner!.value}`)
    expect(asOwner.status).toBe(401)
    expect(await asOwner.text()).not.toContain('ops@example.com')
  })

  it('sends the filtered log as a dated CSV attachment, never cached, formula cells quoted', async () => {
    const res = await get('?actor=ops@example.com&action=owner.')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present')
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="audit-log-\d{8}T\d{6}Z\.csv"$/)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(await res.text()).toBe(
      [
        'time,actor,action,target,detail',
        `2026-01-10T09:01:00.000Z,ops@example.com,owner.edit,owner:o1,"'=HYPERLINK(""https://evil.example"",""click"")"`,
        '2026-01-10T09:00:00.000Z,ops@example.com,owner.create,owner:o1,"created ""Bob, Jr."""',
        '',
      ].join('\r\n'),
    )
  })

  it('takes the page’s other filters: target by prefix and a range of days, and quotes every formula start', async () => {
    const res = await get('?target=owner:&targetMatch=prefix&from=2026-01-10&to=2026-01-10')
    const lines = (await res.text()).split('\r\n')
    expect(lines).toEqual([
      'time,actor,action,target,detail',
      `2026-01-10T09:03:00.000Z,'@evil,owner.disable,owner:o2,'-2+3`,
      expect.stringMatching(/^2026-01-10T09:01:00.000Z,ops@example.com,owner.edit,/),
      expect.stringMatching(/^2026-01-10T09:00:00.000Z,ops@example.com,owner.create,/),
      '',
    ])
    // The viewer's own sign-in (today) is in the whole log, not in that day.
    expect(await (await get('')).text()).toContain('viewer@example.com,admin.sign-in,admin:viewer@example.com')
  })

  it.each([['?action=owner.explode'], ['?from=yesterday'], ['?actorMatch=contains&actor=x'], ['?from=2026-01-11&to=2026-01-10']])(
    'refuses filters it cannot read (%s) with 400 rather than exporting more than asked',
    async (query) => {
      const res = await get(query)
      expect(res.status).toBe(400)
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_request')
    },
  )
})

// Last: creating keys writes audit entries of its own.
describe('GET /admin/audit/export.csv with an API key (docs/protocol.md §2.18)', () => {
  const withKey = (key: string, extra: Record<string, string> = {}) =>
    fetch(`${server.url}${EXPORT}?actor=ops@example.com&action=owner.create`, { headers: { authorization: `Bearer ${key}`, ...extra } })

  it('exports for a viewer key, without a cookie or CSRF token', async () => {
    const { key } = await createApiKey(depsOf(store), { name: 'reports', role: 'viewer', actor: await keyCreator(store.sql) })
    const res = await withKey(key)
    expect(res.status).toBe(200)
    expect((await res.text()).split('\r\n')[1]).toBe('2026-01-10T09:00:00.000Z,ops@example.com,owner.create,owner:o1,"created ""Bob, Jr."""')
  })

  it('refuses an unknown key with 401, and a cookie with a key with 400, without data', async () => {
    const unknown = await withKey('gnap_ak_0123456789abcdef_' + 'A'.repeat(43))
    expect(unknown.status).toBe(401)
    expect(await unknown.text()).not.toContain('ops@example.com')
    const { key } = await createApiKey(depsOf(store), { name: 'both', role: 'viewer', actor: await keyCreator(store.sql) })
    const both = await withKey(key, { cookie: viewerCookie })
    expect(both.status).toBe(400)
    expect(await both.text()).not.toContain('ops@example.com')
  })
})
