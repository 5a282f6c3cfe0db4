import { createSession, csrfTokenFor } from '@gnap/domain/kernel'
import { createAdmin, createApiKey, createOwner, signInAdmin, signInOwner, type AdminRole } from '@gnap/domain/operator'
import { buildTestDeps, keyCreator, type TestDeps } from '@gnap/domain/testing'
import { TRPCError } from '@trpc/server'
import { expect } from 'vitest'
import { createContext, type SessionCookieJar } from '../src/context'
import { createCaller } from '../src/root'

export const ADMIN = { email: 'ops@example.com', password: 'correct horse battery staple' }

/** Test deps whose grant requests are never rate limited (tests make many in one fake minute). */
export function apiTestDeps(config: Partial<TestDeps['deps']['config']> = {}): Promise<TestDeps> {
  return buildTestDeps({ config: { grantRequestsPerMinutePerClient: 0, grantRequestsPerMinutePerIp: 0, ...config } })
}

export interface RecordingJar extends SessionCookieJar {
  events: ({ kind: 'set'; value: string; expiresAt: Date } | { kind: 'clear' })[]
}

export function recordingJar(): RecordingJar {
  const events: RecordingJar['events'] = []
  return {
    events,
    set: (value, expiresAt) => events.push({ kind: 'set', value, expiresAt }),
    clear: () => events.push({ kind: 'clear' }),
  }
}

/** An administrator account and a live session of theirs, with its CSRF token. */
export async function signedInAdmin(t: TestDeps, admin: { email: string; password: string; role?: AdminRole } = ADMIN) {
  await createAdmin(t.sql, admin)
  const session = await signInAdmin(t.deps, { ...admin, ip: '192.0.2.10' })
  if (session?.step !== 'signed-in') throw new Error('sign-in failed')
  return { ...session, csrf: csrfTokenFor(session.value) }
}

/** A caller as a browser with this cookie value and CSRF header would be. */
export async function callerWith(
  t: TestDeps,
  opts: { session?: string | null; csrf?: string | null; authorization?: string | null; ip?: string | null; jar?: RecordingJar } = {},
) {
  const ctx = await createContext({
    deps: t.deps,
    sessionValue: opts.session ?? null,
    authorization: opts.authorization ?? null,
    csrfToken: opts.csrf ?? null,
    ip: opts.ip ?? null,
    cookies: opts.jar ?? recordingJar(),
  })
  return createCaller(ctx)
}

/** The caller of a signed-in administrator whose requests carry the CSRF token. */
export async function adminCaller(t: TestDeps, role: AdminRole = 'admin') {
  const s = await signedInAdmin(t, { ...ADMIN, email: role === 'admin' ? ADMIN.email : `${role}@example.com`, role })
  return { caller: await callerWith(t, { session: s.value, csrf: s.csrf }), session: s }
}

/**
 * A back end's caller: a new API key of `role` (named `<role> key`, created by an administrator) sent as
 * `Authorization: Bearer`, without cookie or CSRF header, as docs/protocol.md §2.18 describes.
 */
export async function apiKeyCaller(t: TestDeps, role: AdminRole = 'admin', name = `${role} key`) {
  const { key, apiKey } = await createApiKey(t.deps, { name, role, actor: await keyCreator(t.sql) })
  return { caller: await callerWith(t, { authorization: `Bearer ${key}` }), key, apiKey }
}

/** A live owner session (the consent screen's): not an admin session. */
export async function ownerSessionValue(t: TestDeps): Promise<string> {
  await createOwner(t.sql, {
    email: 'alice@example.com',
    name: 'Alice',
    password: 'alice-password',
    walletAddresses: ['https://wallet.example/alice'],
  })
  const s = await signInOwner(t.deps, { email: 'alice@example.com', password: 'alice-password' })
  if (!s) throw new Error('owner sign-in failed')
  return s.value
}

/** A session row of kind admin for a subject that is no administrator. */
export async function orphanAdminSession(t: TestDeps): Promise<string> {
  const s = await createSession(t.sql, { kind: 'admin', subjectId: crypto.randomUUID(), ttlSeconds: 3600, now: t.clock.now })
  return s.value
}

/** `await expectTrpcError(promise, 'UNAUTHORIZED')`, returning the error for more checks. */
export async function expectTrpcError(promise: Promise<unknown>, code: TRPCError['code']): Promise<TRPCError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error, `expected ${code}`).toBeInstanceOf(TRPCError)
  expect((error as TRPCError).code).toBe(code)
  return error as TRPCError
}
