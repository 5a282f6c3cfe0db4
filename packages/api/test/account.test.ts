import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SIGN_IN_LIMITS, TOTP_PERIOD_SECONDS, createAdmin, totpCodeAt } from '@gnap/domain/operator'
import { buildTestDeps, type TestDeps } from '@gnap/domain/testing'
import { ADMIN, apiTestDeps, callerWith, expectTrpcError, recordingJar } from './support'
import { MUTATIONS, everyProcedure } from './procedures'

// Two-step sign-in and my account over tRPC (docs/protocol.md §2.17): the cookie is set only after the code, the
// secret is shown once, ADMIN_REQUIRE_TOTP leaves a session that can only enrol.
let t: TestDeps
afterEach(async () => {
  await t.cleanup()
})

const IP = '198.51.100.20'

/** Signs in with the password through tRPC: the session's cookie value and CSRF token. */
async function passwordSignIn() {
  const jar = recordingJar()
  const out = await (await callerWith(t, { jar, ip: IP })).auth.signIn(ADMIN)
  const set = jar.events.find((e) => e.kind === 'set')
  return { out, cookie: set?.kind === 'set' ? set.value : null }
}

/** A signed-in caller with the CSRF token. */
async function signedInCaller() {
  const { out, cookie } = await passwordSignIn()
  if (out.step !== 'signed-in' || !cookie) throw new Error('expected a session')
  return { caller: await callerWith(t, { session: cookie, csrf: out.csrfToken, ip: IP }), cookie, csrf: out.csrfToken }
}

/** Enrols through the procedures: the secret and the recovery codes. */
async function enrol(caller: Awaited<ReturnType<typeof signedInCaller>>['caller']) {
  const { secret, uri, qrCode } = await caller.account.startTotp()
  expect(uri).toContain(`secret=${secret}`)
  expect(Buffer.from(qrCode.slice('data:image/svg+xml;base64,'.length), 'base64').toString('utf8')).toMatch(/^<svg[^>]*>/)
  const { recoveryCodes } = await caller.account.confirmTotp({ code: totpCodeAt(secret, t.clock.now) })
  t.clock.advance(TOTP_PERIOD_SECONDS)
  return { secret, recoveryCodes }
}

describe('two-step sign-in over tRPC', () => {
  beforeEach(async () => {
    t = await apiTestDeps()
    await createAdmin(t.sql, ADMIN)
  })

  it('sets no cookie after the password, then one after the right code', async () => {
    const { caller } = await signedInCaller()
    const { secret } = await enrol(caller)
    expect(await caller.account.twoStep()).toMatchObject({ enabled: true, recoveryCodesLeft: 10, required: false })

    const { out, cookie } = await passwordSignIn()
    expect(out).toEqual({ step: 'code', challenge: expect.any(String), expiresAt: expect.any(Date) })
    expect(cookie).toBeNull()
    if (out.step !== 'code') throw new Error('expected the code step')

    const jar = recordingJar()
    const anon = await callerWith(t, { jar, ip: IP })
    await expectTrpcError(
      anon.auth.verifyCode({ challenge: out.challenge, code: '000000' === totpCodeAt(secret, t.clock.now) ? '111111' : '000000' }),
      'UNAUTHORIZED',
    )
    expect(jar.events).toEqual([])
    const done = await anon.auth.verifyCode({ challenge: out.challenge, code: totpCodeAt(secret, t.clock.now) })
    expect(done).toMatchObject({ step: 'signed-in', admin: { email: ADMIN.email }, mustEnrol: false })
    expect(jar.events).toHaveLength(1)
    // The challenge is used up.
    await expectTrpcError(anon.auth.verifyCode({ challenge: out.challenge, code: totpCodeAt(secret, t.clock.now) }), 'PRECONDITION_FAILED')
  })

  it('never answers the secret again once enrolment is confirmed', async () => {
    const { caller } = await signedInCaller()
    const { secret } = await enrol(caller)
    expect(JSON.stringify(await caller.account.twoStep())).not.toContain(secret)
    await expectTrpcError(caller.account.startTotp(), 'CONFLICT')
  })

  it('counts wrong codes toward the sign-in limit: TOO_MANY_REQUESTS even for the right code', async () => {
    const { caller } = await signedInCaller()
    const { secret } = await enrol(caller)
    const anon = await callerWith(t, { ip: IP })
    for (let i = 0; i < SIGN_IN_LIMITS.perAccountAndAddress; i++) {
      const { out } = await passwordSignIn()
      if (out.step !== 'code') throw new Error('expected the code step')
      await expectTrpcError(anon.auth.verifyCode({ challenge: out.challenge, code: 'aaaa-bbbb-cccc-dddd' }), 'UNAUTHORIZED')
    }
    await expectTrpcError(anon.auth.signIn(ADMIN), 'TOO_MANY_REQUESTS')
    expect(totpCodeAt(secret, t.clock.now)).toMatch(/^\d{6}$/)
  })

  it('turns off with a current code, and refuses a wrong one as BAD_REQUEST', async () => {
    const { caller } = await signedInCaller()
    const { secret } = await enrol(caller)
    const wrong = await expectTrpcError(caller.account.disableTotp({ code: 'zzzz-zzzz-zzzz-zzzz' }), 'BAD_REQUEST')
    expect(wrong.message).toMatch(/not right/)
    await expect(caller.account.disableTotp({ code: totpCodeAt(secret, t.clock.now) })).resolves.toEqual({ ok: true })
    expect((await passwordSignIn()).out).toMatchObject({ step: 'signed-in' })
  })
})

describe('ADMIN_REQUIRE_TOTP', () => {
  beforeEach(async () => {
    t = await buildTestDeps({ config: { requireAdminTotp: true, grantRequestsPerMinutePerClient: 0, grantRequestsPerMinutePerIp: 0 } })
    await createAdmin(t.sql, ADMIN)
  })

  it('leaves a session that may only enrol: every other procedure is FORBIDDEN until it does', async () => {
    const { caller, cookie, csrf } = await signedInCaller()
    expect(await caller.auth.session()).toMatchObject({ mustEnrol: true })
    const allowed = ['auth.session', 'auth.signOut', 'account.twoStep', 'account.startTotp', 'account.confirmTotp', 'auth.signIn', 'auth.verifyCode']
    const ids = {
      grantId: crypto.randomUUID(),
      managementId: crypto.randomUUID(),
      ownerId: crypto.randomUUID(),
      adminId: crypto.randomUUID(),
      apiKeyId: '0123456789abcdef',
      webhookId: crypto.randomUUID(),
      deliveryId: crypto.randomUUID(),
    }
    for (const [path, call] of everyProcedure(ids).filter(([p]) => !allowed.includes(p))) {
      const error = await expectTrpcError(call(caller), 'FORBIDDEN')
      expect(error.message, path).toBe('turn on two-step sign-in first: this server requires it')
    }
    expect(MUTATIONS).toContain('account.changePassword')

    const { secret } = await enrol(caller)
    // The same session now works.
    const after = await callerWith(t, { session: cookie, csrf, ip: IP })
    expect(await after.auth.session()).toMatchObject({ mustEnrol: false })
    await expect(after.grants.list({})).resolves.toMatchObject({ items: [] })
    await expect(after.account.sessions()).resolves.toHaveLength(1)
    expect(secret).toMatch(/^[A-Z2-7]+$/)
  })
})

describe('my account over tRPC', () => {
  beforeEach(async () => {
    t = await apiTestDeps()
    await createAdmin(t.sql, ADMIN)
  })

  it('changes the password with the current one, ending my other sessions', async () => {
    const { caller } = await signedInCaller()
    const other = await signedInCaller()
    const wrong = await expectTrpcError(
      caller.account.changePassword({ currentPassword: 'not it', newPassword: 'a brand new password', confirmPassword: 'a brand new password' }),
      'BAD_REQUEST',
    )
    expect(wrong.message).toBe('Your current password is not right.')
    await expect(
      caller.account.changePassword({
        currentPassword: ADMIN.password,
        newPassword: 'a brand new password',
        confirmPassword: 'a brand new password',
      }),
    ).resolves.toEqual({ endedSessions: 1 })
    // A context resolves its session when it is made: a new request with the ended session's cookie.
    await expectTrpcError((await callerWith(t, { session: other.cookie })).auth.session(), 'UNAUTHORIZED')
    await expect(caller.auth.session()).resolves.toMatchObject({ admin: { email: ADMIN.email } })
  })

  it('lists my sessions and ends one of the others', async () => {
    const other = await signedInCaller()
    t.clock.advance(60)
    const { caller } = await signedInCaller()
    const sessions = await caller.account.sessions()
    expect(sessions.map((s) => s.current)).toEqual([true, false])
    await expectTrpcError(caller.account.endSession({ sessionId: sessions[0]!.id }), 'BAD_REQUEST')
    await expect(caller.account.endSession({ sessionId: sessions[1]!.id })).resolves.toEqual({ ok: true })
    // A context resolves its session when it is made: a new request with the ended session's cookie.
    await expectTrpcError((await callerWith(t, { session: other.cookie })).auth.session(), 'UNAUTHORIZED')
    await expectTrpcError(caller.account.endSession({ sessionId: sessions[1]!.id }), 'NOT_FOUND')
    await expectTrpcError(caller.account.endSession({ sessionId: 'not-an-id' }), 'BAD_REQUEST')
    expect(await t.db.auditLog.count({ where: { action: 'admin.session-end' } })).toBe(1)
  })
})
