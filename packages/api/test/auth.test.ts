import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { csrfTokenFor } from '@gnap/domain/kernel'
import { ADMIN_SESSION_SECONDS, SIGN_IN_LIMITS, createAdmin, signInAdmin, type AdminSignIn } from '@gnap/domain/operator'
import type { TestDeps } from '@gnap/domain/testing'
import { ADMIN, apiTestDeps, callerWith, expectTrpcError, orphanAdminSession, ownerSessionValue, recordingJar, signedInAdmin } from './support'
import { MUTATIONS, everyProcedure, routerPaths, seedProcedureIds, type ProcedureIds } from './procedures'

let t: TestDeps
let ids: ProcedureIds
beforeEach(async () => {
  t = await apiTestDeps()
  ids = await seedProcedureIds(t)
})
afterEach(async () => {
  await t.cleanup()
})

const guarded = () => everyProcedure(ids).filter(([path]) => path !== 'auth.signIn' && path !== 'auth.verifyCode')

describe('authorization: every procedure but auth.signIn and auth.verifyCode needs a live admin session', () => {
  it('lists every procedure of the router', () => {
    expect(
      everyProcedure(ids)
        .map(([p]) => p)
        .sort(),
    ).toEqual(routerPaths())
  })

  it.each([
    ['no cookie', async () => null],
    ['an unknown cookie value', async () => 'not-a-session'],
    ['an over-long cookie value', async () => 'x'.repeat(5000)],
    ['an owner session (consent screen)', async () => ownerSessionValue(t)],
    ['an admin session whose administrator is gone', async () => orphanAdminSession(t)],
    [
      'an expired admin session',
      async () => {
        const s = await signedInAdmin(t)
        t.clock.advance(ADMIN_SESSION_SECONDS)
        return s.value
      },
    ],
  ])('answers UNAUTHORIZED with %s and changes nothing', async (_name, sessionFor) => {
    const session = await sessionFor()
    for (const [path, call] of guarded()) {
      // The CSRF header is irrelevant without a session: even a "valid-looking" one is refused.
      const caller = await callerWith(t, { session, csrf: 'anything' })
      const error = await expectTrpcError(call(caller), 'UNAUTHORIZED')
      expect(error.message, path).toBe('sign in as an administrator')
    }
    expect(await t.db.grant.findUniqueOrThrow({ where: { id: ids.grantId } })).toMatchObject({ state: 'finalized', finalizedReason: 'issued' })
    expect(await t.db.auditLog.count({ where: { action: { not: 'admin.sign-in' } } })).toBe(0)
  })

  it('lets a live admin session call every query', async () => {
    const s = await signedInAdmin(t)
    const caller = await callerWith(t, { session: s.value })
    for (const [path, call] of guarded().filter(([p]) => !(MUTATIONS as readonly string[]).includes(p))) {
      await expect(call(caller), path).resolves.toBeDefined()
    }
  })

  it('ends the session 8 hours after sign-in, to the second', async () => {
    const s = await signedInAdmin(t)
    t.clock.advance(ADMIN_SESSION_SECONDS - 1)
    await expect((await callerWith(t, { session: s.value })).auth.session()).resolves.toMatchObject({ admin: { email: ADMIN.email } })
    t.clock.advance(1)
    await expectTrpcError((await callerWith(t, { session: s.value })).auth.session(), 'UNAUTHORIZED')
  })
})

describe('CSRF: mutations need the session’s token in the header', () => {
  it.each(MUTATIONS)('%s answers FORBIDDEN without the header, with a wrong one, or with another session’s', async (path) => {
    const mine = await signedInAdmin(t)
    await createAdmin(t.sql, { email: 'other@example.com', password: 'another long password' })
    const other = (await signInAdmin(t.deps, { email: 'other@example.com', password: 'another long password', ip: null })) as AdminSignIn
    const call = everyProcedure(ids).find(([p]) => p === path)![1]
    for (const csrf of [null, '', 'wrong', csrfTokenFor(other!.value), mine.value]) {
      const error = await expectTrpcError(call(await callerWith(t, { session: mine.value, csrf })), 'FORBIDDEN')
      expect(error.message).toMatch(/CSRF/)
    }
    // Nothing happened: the grant and token are live, the session still works.
    expect(await t.db.grant.findUniqueOrThrow({ where: { id: ids.grantId } })).toMatchObject({ finalizedReason: 'issued' })
    expect(await t.db.accessToken.findUniqueOrThrow({ where: { managementId: ids.managementId } })).toMatchObject({ state: 'active' })
    expect(await t.db.owner.findUniqueOrThrow({ where: { id: ids.ownerId } })).toMatchObject({
      email: 'bob@example.com',
      name: 'Bob',
      status: 'active',
    })
    expect(await t.db.owner.count()).toBe(1)
    await expect((await callerWith(t, { session: mine.value })).auth.session()).resolves.toBeDefined()
  })

  it('accepts each mutation with the token from auth.session', async () => {
    const s = await signedInAdmin(t)
    const { csrfToken } = await (await callerWith(t, { session: s.value })).auth.session()
    const caller = await callerWith(t, { session: s.value, csrf: csrfToken })
    await expect(caller.tokens.revoke({ managementId: ids.managementId })).resolves.toEqual({ managementId: ids.managementId, grantId: ids.grantId })
    await expect(caller.grants.revoke({ id: ids.grantId })).resolves.toEqual({ grantId: ids.grantId, revokedTokens: 0 })
    await expect(caller.auth.signOut()).resolves.toEqual({ ok: true })
  })

  it('does not ask queries for it', async () => {
    const s = await signedInAdmin(t)
    await expect((await callerWith(t, { session: s.value, csrf: null })).grants.list({})).resolves.toMatchObject({ items: [{ id: ids.grantId }] })
  })
})

describe('auth.signIn', () => {
  beforeEach(async () => {
    await createAdmin(t.sql, ADMIN)
  })

  it('sets the session cookie through the jar and returns the administrator, expiry and CSRF token, not the cookie value', async () => {
    const jar = recordingJar()
    const out = await (await callerWith(t, { jar })).auth.signIn({ email: ' OPS@example.com ', password: ADMIN.password })
    expect(jar.events).toHaveLength(1)
    const set = jar.events[0]!
    if (set.kind !== 'set') throw new Error('no cookie set')
    expect(set.expiresAt).toEqual(new Date(t.clock.now.getTime() + ADMIN_SESSION_SECONDS * 1000))
    expect(out).toEqual({
      step: 'signed-in',
      admin: { id: expect.any(String), email: ADMIN.email, role: 'admin' },
      expiresAt: set.expiresAt,
      csrfToken: expect.any(String),
      mustEnrol: false,
    })
    if (out.step !== 'signed-in') throw new Error('no session')
    expect(JSON.stringify(out)).not.toContain(set.value)
    // The cookie opens the console; the CSRF token matches it.
    const caller = await callerWith(t, { session: set.value, csrf: out.csrfToken })
    const { step: _step, ...info } = out
    await expect(caller.auth.session()).resolves.toEqual(info)
    await expect(caller.auth.signOut()).resolves.toEqual({ ok: true })
  })

  it('answers the same UNAUTHORIZED for a wrong password and an unknown email, without a cookie', async () => {
    const jar = recordingJar()
    const caller = await callerWith(t, { jar })
    const wrong = await expectTrpcError(caller.auth.signIn({ email: ADMIN.email, password: 'not the password' }), 'UNAUTHORIZED')
    const unknown = await expectTrpcError(caller.auth.signIn({ email: 'nobody@example.com', password: ADMIN.password }), 'UNAUTHORIZED')
    expect(wrong.message).toBe('wrong email or password')
    expect(unknown.message).toBe(wrong.message)
    expect(jar.events).toEqual([])
    expect(await t.db.session.count()).toBe(0)
  })

  it('refuses an owner’s credentials', async () => {
    await ownerSessionValue(t)
    await expectTrpcError((await callerWith(t)).auth.signIn({ email: 'alice@example.com', password: 'alice-password' }), 'UNAUTHORIZED')
  })

  it('answers TOO_MANY_REQUESTS after the failures allowed per email and address, even with the right password, until the window ends', async () => {
    const caller = await callerWith(t, { ip: '198.51.100.7' })
    for (let i = 0; i < SIGN_IN_LIMITS.perAccountAndAddress; i++) {
      await expectTrpcError(caller.auth.signIn({ email: ADMIN.email, password: `guess ${i}` }), 'UNAUTHORIZED')
    }
    const limited = await expectTrpcError(caller.auth.signIn({ email: ADMIN.email, password: ADMIN.password }), 'TOO_MANY_REQUESTS')
    expect(limited.message).toMatch(/too many failed sign-ins/)
    // The administrator, from another address, still signs in while this one is refused.
    await expect((await callerWith(t, { ip: '203.0.113.5' })).auth.signIn(ADMIN)).resolves.toMatchObject({ admin: { email: ADMIN.email } })
    t.clock.advance(SIGN_IN_LIMITS.windowSeconds)
    await expect(caller.auth.signIn({ email: ADMIN.email, password: ADMIN.password })).resolves.toMatchObject({ admin: { email: ADMIN.email } })
  })

  it('answers TOO_MANY_REQUESTS at once to sign-ins past the process’s password-check queue', async () => {
    const results = await Promise.all(
      Array.from({ length: 15 }, async (_, i) =>
        (await callerWith(t, { ip: `192.0.2.${i}` })).auth.signIn({ email: ADMIN.email, password: `guess ${i}` }).catch((e: unknown) => e),
      ),
    )
    const codes = results.map((r) => (r as { code?: string }).code)
    expect(codes.filter((c) => c === 'TOO_MANY_REQUESTS')).toHaveLength(5)
    expect(codes.filter((c) => c === 'UNAUTHORIZED')).toHaveLength(10)
  })

  it('refuses malformed input with BAD_REQUEST', async () => {
    const caller = await callerWith(t)
    await expectTrpcError(caller.auth.signIn({ email: 'x'.repeat(255), password: 'p' }), 'BAD_REQUEST')
    // @ts-expect-error: unknown fields are refused
    await expectTrpcError(caller.auth.signIn({ email: ADMIN.email, password: ADMIN.password, admin: true }), 'BAD_REQUEST')
  })
})

describe('auth.signOut', () => {
  it('ends the session, clears the cookie and writes the audit log', async () => {
    const s = await signedInAdmin(t)
    const jar = recordingJar()
    await (await callerWith(t, { session: s.value, csrf: s.csrf, jar })).auth.signOut()
    expect(jar.events).toEqual([{ kind: 'clear' }])
    await expectTrpcError((await callerWith(t, { session: s.value, csrf: s.csrf })).auth.session(), 'UNAUTHORIZED')
    const log = await t.db.auditLog.findMany({ orderBy: { createdAt: 'asc' } })
    expect(log.map((e) => [e.actor, e.action])).toEqual([
      [ADMIN.email, 'admin.sign-in'],
      [ADMIN.email, 'admin.sign-out'],
    ])
  })
})
