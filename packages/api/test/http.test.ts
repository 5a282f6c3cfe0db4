import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import superjson from 'superjson'
import { fetchRequestHandler } from '@trpc/server/adapters/fetch'
import { ADMIN_COOKIE, adminCookieJar, readCookie } from '@gnap/domain/kernel'
import { ADMIN_SESSION_SECONDS, createAdmin } from '@gnap/domain/operator'
import { issueNonInteractiveGrant, type TestDeps } from '@gnap/domain/testing'
import { appRouter } from '../src/root'
import { CSRF_HEADER, createContext } from '../src/context'
import { batchOptions } from '../src/batching'
import { publicProcedure, router } from '../src/trpc'
import { ADMIN, apiTestDeps } from './support'

// The router behind tRPC's fetch adapter, as the Next route /api/trpc mounts it: status codes, error bodies,
// cookies and the CSRF header over HTTP.

let t: TestDeps
beforeEach(async () => {
  t = await apiTestDeps()
  await createAdmin(t.sql, ADMIN)
})
afterEach(async () => {
  await t.cleanup()
})

const ENDPOINT = '/api/trpc'

function handle(req: Request, r = appRouter) {
  return fetchRequestHandler({
    endpoint: ENDPOINT,
    req,
    router: r,
    ...batchOptions(req, ENDPOINT),
    // As the route builds it (apps/web api/trpc): the app's cookie reader and Set-Cookie builder.
    createContext: ({ req, resHeaders }) =>
      createContext({
        deps: t.deps,
        sessionValue: readCookie(req.headers.get('cookie'), ADMIN_COOKIE),
        csrfToken: req.headers.get(CSRF_HEADER),
        ip: null,
        cookies: adminCookieJar(t.deps, resHeaders),
      }),
  })
}

const mutation = (path: string, input: unknown, headers: Record<string, string> = {}) =>
  new Request(`https://auth.example${ENDPOINT}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(superjson.serialize(input)),
  })

const query = (path: string, input: unknown, headers: Record<string, string> = {}) =>
  new Request(`https://auth.example${ENDPOINT}/${path}?input=${encodeURIComponent(JSON.stringify(superjson.serialize(input)))}`, { headers })

interface ErrorBody {
  error: {
    json: {
      message: string
      code: number
      data: { code: string; httpStatus: number; path: string; gnapCode: string | null; retryAfterSeconds: number | null; stack?: string }
    }
  }
}

async function signIn(): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const res = await handle(mutation('auth.signIn', ADMIN))
  expect(res.status).toBe(200)
  const setCookie = res.headers.get('set-cookie') ?? ''
  const body = (await res.json()) as { result: { data: Parameters<typeof superjson.deserialize>[0] } }
  const out = superjson.deserialize<{ csrfToken: string; expiresAt: Date }>(body.result.data)
  expect(out.expiresAt).toBeInstanceOf(Date)
  return { cookie: setCookie.split(';')[0]!, csrf: out.csrfToken, setCookie }
}

describe('over HTTP (fetch adapter)', () => {
  it('signs in with an httpOnly, SameSite=Strict, Secure cookie for / lasting the session, never in the body', async () => {
    const { cookie, setCookie } = await signIn()
    expect(setCookie).toMatch(
      new RegExp(`^${ADMIN_COOKIE}=[0-9A-F]{48}; Path=/; Max-Age=${ADMIN_SESSION_SECONDS}; HttpOnly; SameSite=Strict; Secure$`),
    )
    const res = await handle(query('auth.session', undefined, { cookie }))
    expect(res.status).toBe(200)
    expect(await res.text()).not.toContain(cookie.split('=')[1])
  })

  it('answers 401 UNAUTHORIZED without a session, with no stack', async () => {
    const res = await handle(query('grants.list', {}))
    expect(res.status).toBe(401)
    const body = (await res.json()) as ErrorBody
    expect(body.error.json.message).toBe('sign in as an administrator')
    expect(body.error.json.data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401, path: 'grants.list', gnapCode: null })
    expect(body.error.json.data.stack).toBeUndefined()
  })

  it('answers 403 for a mutation without the CSRF header and runs it with the header', async () => {
    const { cookie, csrf } = await signIn()
    const g = await issueNonInteractiveGrant(t)
    const without = await handle(mutation('tokens.revoke', { managementId: g.managementId }, { cookie }))
    expect(without.status).toBe(403)
    const withHeader = await handle(mutation('tokens.revoke', { managementId: g.managementId }, { cookie, [CSRF_HEADER]: csrf }))
    expect(withHeader.status).toBe(200)
  })

  it('maps a GnapError to the HTTP status of its code and names the GNAP code', async () => {
    const { cookie, csrf } = await signIn()
    const g = await issueNonInteractiveGrant(t)
    await handle(mutation('tokens.revoke', { managementId: g.managementId }, { cookie, [CSRF_HEADER]: csrf }))
    const conflict = await handle(mutation('tokens.revoke', { managementId: g.managementId }, { cookie, [CSRF_HEADER]: csrf }))
    expect(conflict.status).toBe(409)
    expect(((await conflict.json()) as ErrorBody).error.json).toMatchObject({
      message: 'the token was already revoked',
      data: { code: 'CONFLICT', gnapCode: null },
    })
    const missing = await handle(query('grants.byId', { id: crypto.randomUUID() }, { cookie }))
    expect(missing.status).toBe(404)
    expect(((await missing.json()) as ErrorBody).error.json.data).toMatchObject({ code: 'NOT_FOUND', gnapCode: null })
  })

  it('answers 429 with the seconds to wait after too many failed sign-ins', async () => {
    // The caller's address is unknown here: after 10 failures the account's next attempt is released 1 s into the window.
    for (let i = 0; i < 10; i++) await handle(mutation('auth.signIn', { ...ADMIN, password: `wrong ${i}` }))
    const res = await handle(mutation('auth.signIn', ADMIN))
    expect(res.status).toBe(429)
    expect(((await res.json()) as ErrorBody).error.json.data).toMatchObject({
      code: 'TOO_MANY_REQUESTS',
      gnapCode: 'request_denied',
      retryAfterSeconds: 1,
    })
  })

  it('refuses a batch of sign-ins with 400 before checking any password: forty wrong guesses and the right one open no session', async () => {
    const inputs = [...Array.from({ length: 40 }, (_, i) => ({ ...ADMIN, password: `wrong ${i}` })), ADMIN]
    const batch = (paths: string) =>
      new Request(`https://auth.example${ENDPOINT}/${paths}?batch=1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(Object.fromEntries(inputs.map((input, i) => [i, superjson.serialize(input)]))),
      })
    for (const paths of [inputs.map(() => 'auth.signIn').join(','), 'auth.signIn', `grants.list,${encodeURIComponent('auth.signIn')}`]) {
      const res = await handle(batch(paths))
      expect(res.status).toBe(400)
      expect(res.headers.get('set-cookie')).toBeNull()
      expect(JSON.stringify(await res.json())).toContain('"httpStatus":400')
    }
    expect(await t.db.session.count()).toBe(0)
    // No password was checked: the attempts were never counted.
    expect(await t.db.rateLimit.count()).toBe(0)
  })

  it('takes batches of other procedures up to 10 and refuses larger ones with 400', async () => {
    const { cookie } = await signIn()
    const batch = (n: number) =>
      handle(
        new Request(
          `https://auth.example${ENDPOINT}/${Array<string>(n).fill('grants.list').join(',')}?batch=1&input=${encodeURIComponent(
            JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, superjson.serialize({})]))),
          )}`,
          { headers: { cookie } },
        ),
      )
    expect((await batch(10)).status).toBe(200)
    const refused = await batch(11)
    expect(refused.status).toBe(400)
    expect(JSON.stringify(await refused.json())).toContain('"httpStatus":400')
  })

  it('describes refused input by its first issue', async () => {
    const { cookie } = await signIn()
    const res = await handle(query('grants.list', { limit: 1000 }, { cookie }))
    expect(res.status).toBe(400)
    expect(((await res.json()) as ErrorBody).error.json.message).toMatch(/^limit: /)
  })

  it('never shows an internal error’s message (it may quote SQL or a value)', async () => {
    const failing = router({
      boom: publicProcedure.query(() => {
        throw new Error('SQLITE_ERROR near "SELECT": secret-value-123')
      }),
    })
    const res = await handle(query('boom', undefined), failing as unknown as typeof appRouter)
    expect(res.status).toBe(500)
    const text = await res.text()
    expect(text).not.toContain('secret-value-123')
    expect((JSON.parse(text) as ErrorBody).error.json).toMatchObject({ message: 'internal error', data: { code: 'INTERNAL_SERVER_ERROR' } })
  })
})
