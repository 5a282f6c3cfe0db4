import { describe, expect, it } from 'vitest'
import { databaseText, gnapError } from '../../testing/deps'
import { useTestDeps } from '../../testing/use-test-deps'
import { findSession } from '../../kernel/session/find-session'
import { createAdmin } from './create-admin'
import { adminFromSession } from './admin-from-session'
import type { AdminIdentity } from './admin-session'
import { completeAdminSignIn, signInAdmin, SIGN_IN_CHALLENGE_MAX_FAILURES, SIGN_IN_CHALLENGE_SECONDS, type AdminSignIn } from './sign-in-admin'
import { totpCodeAt, RECOVERY_CODE_COUNT, TOTP_PERIOD_SECONDS } from './totp'
import { confirmTotpEnrolment, disableTotp, getTwoStepStatus, renewRecoveryCodes, startTotpEnrolment } from './two-step'
import { changeAdminPassword, endMyOtherSessions, endMySession, listMySessions } from './my-account'
import { disableAdmin, enableAdmin, resetAdminPassword, resetAdminTwoStep, signOutAdminEverywhere } from './manage-admins'
import { actorOfAdmin, type ConsoleActor } from './roles'

// Two-step sign-in and an administrator's own account (docs/protocol.md §2.17), as the person sees them: what signs
// in, what is refused, and what can no longer be done.
const t = useTestDeps()

const ADMIN = { email: 'ops@example.com', password: 'a long admin password' }
const IP = '192.0.2.1'

const code = (secret: string, secondsFromNow = 0) => totpCodeAt(secret, new Date(t.clock.now.getTime() + secondsFromNow * 1000))
const password = (ip: string | null = IP) => signInAdmin(t.deps, { ...ADMIN, ip })
const withCode = (challenge: string, c: string, ip: string | null = IP) => completeAdminSignIn(t.deps, { challenge, code: c, ip })

/** An administrator with two-step sign-in on: their secret and recovery codes. */
async function enrolled(): Promise<{ admin: AdminIdentity; secret: string; recoveryCodes: string[] }> {
  const admin = await createAdmin(t.sql, ADMIN)
  const { secret } = await startTotpEnrolment(t.deps, admin)
  const { recoveryCodes } = await confirmTotpEnrolment(t.deps, { admin, code: code(secret) })
  // The enrolment's code is used: the next sign-in needs the next step's code.
  t.clock.advance(TOTP_PERIOD_SECONDS)
  return { admin, secret, recoveryCodes }
}

/** The challenge of a right password. */
async function challenge(ip: string | null = IP): Promise<string> {
  const r = await password(ip)
  if (r?.step !== 'code') throw new Error(`expected a code step, got ${JSON.stringify(r)}`)
  return r.challenge
}

describe('enrolment', () => {
  it('shows a new secret as an otpauth URI, and turns on only after a right code, with recovery codes shown once', async () => {
    const admin = await createAdmin(t.sql, ADMIN)
    const { secret, uri } = await startTotpEnrolment(t.deps, admin)
    expect(secret).toMatch(/^[A-Z2-7]{32}$/)
    expect(uri).toBe(`otpauth://totp/GNAP%20admin:ops%40example.com?issuer=GNAP%20admin&secret=${secret}&algorithm=SHA1&digits=6&period=30`)
    expect(await getTwoStepStatus(t.deps, admin.id)).toMatchObject({ enabled: false })
    // Before it is confirmed, a password alone still signs in.
    expect(await password()).toMatchObject({ step: 'signed-in' })

    const { recoveryCodes } = await confirmTotpEnrolment(t.deps, { admin, code: code(secret) })
    expect(recoveryCodes).toHaveLength(RECOVERY_CODE_COUNT)
    expect(new Set(recoveryCodes).size).toBe(RECOVERY_CODE_COUNT)
    for (const c of recoveryCodes) expect(c).toMatch(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/)
    expect(await getTwoStepStatus(t.deps, admin.id)).toMatchObject({ enabled: true, recoveryCodesLeft: RECOVERY_CODE_COUNT, required: false })
    expect(await password()).toMatchObject({ step: 'code' })
    // Recovery codes are stored as hashes only.
    const text = await databaseText(t)
    for (const c of recoveryCodes) expect(text).not.toContain(c)
    expect(await t.db.auditLog.findMany({ where: { action: 'admin.totp-enable' } })).toMatchObject([{ actor: ADMIN.email }])
  })

  it('leaves it off after a wrong confirmation code', async () => {
    const admin = await createAdmin(t.sql, ADMIN)
    const { secret } = await startTotpEnrolment(t.deps, admin)
    const wrong = code(secret) === '000000' ? '111111' : '000000'
    await expect(confirmTotpEnrolment(t.deps, { admin, code: wrong })).rejects.toMatchObject({ code: 'bad_request' })
    await expect(confirmTotpEnrolment(t.deps, { admin, code: code(secret, 5 * TOTP_PERIOD_SECONDS) })).rejects.toMatchObject({ code: 'bad_request' })
    expect(await getTwoStepStatus(t.deps, admin.id)).toMatchObject({ enabled: false, recoveryCodesLeft: 0 })
    expect(await password()).toMatchObject({ step: 'signed-in' })
    expect(await t.db.adminRecoveryCode.count()).toBe(0)
  })

  it('refuses a code for a set-up started too long ago, and a code of an earlier set-up', async () => {
    const admin = await createAdmin(t.sql, ADMIN)
    const first = await startTotpEnrolment(t.deps, admin)
    const second = await startTotpEnrolment(t.deps, admin)
    await expect(confirmTotpEnrolment(t.deps, { admin, code: code(first.secret) })).rejects.toMatchObject({ code: 'bad_request' })
    t.clock.advance(16 * 60)
    await expect(confirmTotpEnrolment(t.deps, { admin, code: code(second.secret) })).rejects.toMatchObject({
      message: 'This set-up has expired. Start again to get a new QR code.',
    })
    expect(await getTwoStepStatus(t.deps, admin.id)).toMatchObject({ enabled: false })
  })

  it('refuses a second enrolment while it is on', async () => {
    const { admin } = await enrolled()
    await expect(startTotpEnrolment(t.deps, admin)).rejects.toMatchObject({ code: 'conflict' })
  })
})

describe('sign-in with a code', () => {
  it('opens no session after the password alone, and one after the right code', async () => {
    const { secret } = await enrolled()
    const c = await challenge()
    expect(await t.db.session.count()).toBe(0)
    const s = (await withCode(c, code(secret))) as AdminSignIn
    expect(s).toMatchObject({ step: 'signed-in', admin: { email: ADMIN.email }, mustEnrol: false })
    expect(await adminFromSession(t.deps, s.value)).toMatchObject({ admin: { email: ADMIN.email }, totpEnabled: true })
    expect(await t.db.auditLog.findMany({ where: { action: 'admin.sign-in' } })).toMatchObject([{ detail: 'with a code' }])
  })

  it('accepts the code of the step before or after (clock drift), not two steps away', async () => {
    const { secret } = await enrolled()
    expect(await withCode(await challenge(), code(secret, 2 * TOTP_PERIOD_SECONDS))).toBeNull()
    expect(await withCode(await challenge(), code(secret, -2 * TOTP_PERIOD_SECONDS))).toBeNull()
    expect(await withCode(await challenge(), code(secret, TOTP_PERIOD_SECONDS))).toMatchObject({ step: 'signed-in' })
  })

  it('refuses a wrong code, and counts it: too many lock out like wrong passwords', async () => {
    const { secret } = await enrolled()
    const right = code(secret)
    const wrong = right === '123456' ? '654321' : '123456'
    let c = ''
    for (let i = 0; i < 10; i++) {
      // A new challenge before each one ends (five wrong codes): the failures add up across challenges.
      if (i % (SIGN_IN_CHALLENGE_MAX_FAILURES - 1) === 0) c = await challenge()
      expect(await withCode(c, wrong)).toBeNull()
    }
    // Ten failures for this account and address: the right password and the right code are refused now.
    await expect(password()).rejects.toMatchObject(gnapError('request_denied', 429))
    await expect(withCode(c, right)).rejects.toMatchObject(gnapError('request_denied', 429))
    expect(await t.db.session.count()).toBe(0)
  })

  it('ends a challenge after five wrong codes: the password is asked again', async () => {
    const { secret } = await enrolled()
    const c = await challenge()
    for (let i = 0; i < SIGN_IN_CHALLENGE_MAX_FAILURES; i++) expect(await withCode(c, 'abcd-efgh-ijkl-mnop')).toBeNull()
    expect(await withCode(c, code(secret))).toEqual({ step: 'expired' })
  })

  it('refuses a code already accepted, even within its 30 seconds, and a used challenge', async () => {
    const { secret } = await enrolled()
    const c1 = await challenge()
    const first = code(secret)
    expect(await withCode(c1, first)).toMatchObject({ step: 'signed-in' })
    expect(await withCode(await challenge(), first)).toBeNull()
    // The code of the previous step is older than the one used: refused too.
    expect(await withCode(await challenge(), code(secret, -TOTP_PERIOD_SECONDS))).toBeNull()
    expect(await withCode(c1, code(secret, TOTP_PERIOD_SECONDS))).toEqual({ step: 'expired' })
    expect(await t.db.session.count()).toBe(1)
  })

  it('lets only one of two sign-ins with the same code through', async () => {
    const { secret } = await enrolled()
    const [a, b] = [await challenge(), await challenge()]
    const results = await Promise.all([withCode(a, code(secret)), withCode(b, code(secret))])
    expect(results.filter((r) => r?.step === 'signed-in')).toHaveLength(1)
    expect(await t.db.session.count()).toBe(1)
  })

  it('refuses an expired challenge', async () => {
    const { secret } = await enrolled()
    const c = await challenge()
    t.clock.advance(SIGN_IN_CHALLENGE_SECONDS)
    expect(await withCode(c, code(secret))).toEqual({ step: 'expired' })
    expect(await withCode('not-a-challenge', code(secret))).toEqual({ step: 'expired' })
  })

  it('takes each recovery code once, however it is typed', async () => {
    const { secret, recoveryCodes } = await enrolled()
    const [first, second] = recoveryCodes as [string, string]
    expect(await withCode(await challenge(), ` ${first.toUpperCase().replace(/-/g, ' ')} `)).toMatchObject({ step: 'signed-in' })
    expect(await withCode(await challenge(), first)).toBeNull()
    expect(await withCode(await challenge(), second)).toMatchObject({ step: 'signed-in' })
    expect(await getTwoStepStatus(t.deps, (await t.db.admin.findFirstOrThrow()).id)).toMatchObject({ recoveryCodesLeft: RECOVERY_CODE_COUNT - 2 })
    expect((await t.db.auditLog.findMany({ where: { action: 'admin.sign-in' } })).map((e) => e.detail)).toEqual([
      'with a recovery code',
      'with a recovery code',
    ])
    expect(await withCode(await challenge(), code(secret))).toMatchObject({ step: 'signed-in' })
  })
})

describe('turning it off and new recovery codes', () => {
  it('turns off with a current code: a password alone signs in again, old recovery codes are gone', async () => {
    const { admin, secret, recoveryCodes } = await enrolled()
    await expect(disableTotp(t.deps, { admin, code: '000000', ip: IP })).rejects.toMatchObject({ code: 'bad_request' })
    expect(await getTwoStepStatus(t.deps, admin.id)).toMatchObject({ enabled: true })
    await disableTotp(t.deps, { admin, code: code(secret), ip: IP })
    expect(await getTwoStepStatus(t.deps, admin.id)).toMatchObject({ enabled: false, recoveryCodesLeft: 0 })
    expect(await password()).toMatchObject({ step: 'signed-in' })
    expect(await t.db.adminRecoveryCode.count()).toBe(0)
    expect(recoveryCodes).toHaveLength(RECOVERY_CODE_COUNT)
    expect(await t.db.auditLog.findMany({ where: { action: 'admin.totp-disable' } })).toHaveLength(1)
  })

  it('renews recovery codes with a recovery code: the old ones stop working', async () => {
    const { admin, recoveryCodes } = await enrolled()
    const [used, old] = recoveryCodes as [string, string]
    const { recoveryCodes: fresh } = await renewRecoveryCodes(t.deps, { admin, code: used, ip: IP })
    expect(fresh).toHaveLength(RECOVERY_CODE_COUNT)
    expect(await withCode(await challenge(), old)).toBeNull()
    expect(await withCode(await challenge(), fresh[0]!)).toMatchObject({ step: 'signed-in' })
    expect(await t.db.auditLog.findMany({ where: { action: 'admin.recovery-codes-renew' } })).toHaveLength(1)
  })
})

describe('ADMIN_REQUIRE_TOTP', () => {
  it('gives an administrator without two-step sign-in a session that must enrol, and one with it the code step', async () => {
    await t.reset({ config: { requireAdminTotp: true } })
    const admin = await createAdmin(t.sql, ADMIN)
    expect(await password()).toMatchObject({ step: 'signed-in', mustEnrol: true })
    expect(await getTwoStepStatus(t.deps, admin.id)).toMatchObject({ enabled: false, required: true })
    const { secret } = await startTotpEnrolment(t.deps, admin)
    await confirmTotpEnrolment(t.deps, { admin, code: code(secret) })
    t.clock.advance(TOTP_PERIOD_SECONDS)
    const c = await challenge()
    expect(await withCode(c, code(secret))).toMatchObject({ step: 'signed-in', mustEnrol: false })
  })
})

/** The signed-in administrator changes their password on My account. */
const change = (s: AdminSignIn, over: Partial<{ currentPassword: string; newPassword: string; confirmPassword: string }> = {}) =>
  changeAdminPassword(t.deps, {
    admin: s.admin,
    sessionValue: s.value,
    ip: IP,
    currentPassword: ADMIN.password,
    newPassword: 'a brand new admin password',
    confirmPassword: over.newPassword ?? 'a brand new admin password',
    ...over,
  })

describe('my account', () => {
  const signIn = async () => (await password()) as AdminSignIn

  it('changes the password with the current one and ends my other sessions, keeping this one', async () => {
    await createAdmin(t.sql, ADMIN)
    const other = await createAdmin(t.sql, { email: 'other@example.com', password: 'another long password' })
    const current = await signIn()
    const second = await signIn()
    const theirs = (await signInAdmin(t.deps, { email: other.email, password: 'another long password', ip: IP })) as AdminSignIn
    expect(await change(current)).toEqual({ endedSessions: 1 })
    expect(await findSession(t.sql, 'admin', current.value, t.clock.now)).not.toBeNull()
    expect(await findSession(t.sql, 'admin', second.value, t.clock.now)).toBeNull()
    expect(await findSession(t.sql, 'admin', theirs.value, t.clock.now)).not.toBeNull()
    expect(await password()).toBeNull()
    expect(await signInAdmin(t.deps, { ...ADMIN, password: 'a brand new admin password', ip: IP })).toMatchObject({ step: 'signed-in' })
    expect(await t.db.auditLog.findMany({ where: { action: 'admin.password-change' } })).toMatchObject([
      { actor: ADMIN.email, detail: '1 other session ended' },
    ])
  })

  it.each([
    ['a wrong current password', { currentPassword: 'not my password' }, 'Your current password is not right.'],
    ['a short new password', { newPassword: 'short' }, 'The password is too short: use at least 12 characters.'],
    ['a confirmation that differs', { confirmPassword: 'another new password' }, 'The new password and its confirmation differ.'],
  ])('refuses %s and changes nothing', async (_name, over, message) => {
    await createAdmin(t.sql, ADMIN)
    const current = await signIn()
    const second = await signIn()
    await expect(change(current, over)).rejects.toMatchObject({ code: 'bad_request', message })
    expect(await findSession(t.sql, 'admin', second.value, t.clock.now)).not.toBeNull()
    expect(await password()).toMatchObject({ step: 'signed-in' })
  })

  it('counts a wrong current password as a failed sign-in', async () => {
    await createAdmin(t.sql, ADMIN)
    const current = await signIn()
    for (let i = 0; i < 10; i++) await expect(change(current, { currentPassword: `wrong ${i}` })).rejects.toMatchObject({ code: 'bad_request' })
    await expect(change(current)).rejects.toMatchObject(gnapError('request_denied', 429))
  })

  it('lists my live sessions with this one marked, and ends one or all the others', async () => {
    await createAdmin(t.sql, ADMIN)
    await createAdmin(t.sql, { email: 'other@example.com', password: 'another long password' })
    const a = await signIn()
    t.clock.advance(60)
    const b = await signIn()
    t.clock.advance(60)
    const c = await signIn()
    await signInAdmin(t.deps, { email: 'other@example.com', password: 'another long password', ip: IP })
    const mine = await listMySessions(t.deps, { admin: c.admin, sessionValue: c.value })
    expect(mine.map((s) => [s.createdAt, s.current])).toEqual([
      [new Date(t.clock.now.getTime()), true],
      [new Date(t.clock.now.getTime() - 60_000), false],
      [new Date(t.clock.now.getTime() - 120_000), false],
    ])
    // The ids shown are not the stored ones, nor cookie values.
    const text = JSON.stringify(mine)
    expect(text).not.toContain(a.value)
    for (const row of await t.db.session.findMany()) expect(text).not.toContain(row.id)

    await expect(endMySession(t.deps, { admin: c.admin, sessionValue: c.value, sessionId: mine[0]!.id })).rejects.toMatchObject({
      code: 'bad_request',
    })
    await endMySession(t.deps, { admin: c.admin, sessionValue: c.value, sessionId: mine[1]!.id })
    expect(await findSession(t.sql, 'admin', b.value, t.clock.now)).toBeNull()
    expect(await findSession(t.sql, 'admin', a.value, t.clock.now)).not.toBeNull()
    await expect(endMySession(t.deps, { admin: c.admin, sessionValue: c.value, sessionId: mine[1]!.id })).rejects.toMatchObject({
      code: 'not_found',
    })

    expect(await endMyOtherSessions(t.deps, { admin: c.admin, sessionValue: c.value })).toEqual({ endedSessions: 1 })
    expect(await findSession(t.sql, 'admin', a.value, t.clock.now)).toBeNull()
    expect(await findSession(t.sql, 'admin', c.value, t.clock.now)).not.toBeNull()
    expect(await t.db.session.count()).toBe(2)
    expect(await t.db.auditLog.count({ where: { action: 'admin.session-end' } })).toBe(2)
  })

  it('cannot end another administrator’s session by its id', async () => {
    await createAdmin(t.sql, ADMIN)
    const other = await createAdmin(t.sql, { email: 'other@example.com', password: 'another long password' })
    const mine = await signIn()
    const theirs = (await signInAdmin(t.deps, { email: other.email, password: 'another long password', ip: IP })) as AdminSignIn
    const [theirId] = await listMySessions(t.deps, { admin: theirs.admin, sessionValue: theirs.value })
    await expect(endMySession(t.deps, { admin: mine.admin, sessionValue: mine.value, sessionId: theirId!.id })).rejects.toMatchObject({
      code: 'not_found',
    })
    expect(await findSession(t.sql, 'admin', theirs.value, t.clock.now)).not.toBeNull()
  })
})

describe('an admin turns off another administrator’s two-step sign-in (lost phone and recovery codes)', () => {
  const ROOT = { email: 'root@example.com', password: 'root password for tests' }

  it('signs them out, and they sign in with their password alone; the old codes and recovery codes are gone', async () => {
    const { admin, secret, recoveryCodes } = await enrolled()
    const c = await challenge()
    const session = await withCode(c, code(secret))
    expect(session).not.toBeNull()
    const root = await createAdmin(t.sql, ROOT)

    expect(await resetAdminTwoStep(t.deps, { change: { adminId: admin.id }, actor: actorOfAdmin(root) })).toEqual({ id: admin.id, endedSessions: 1 })

    expect(await getTwoStepStatus(t.deps, admin.id)).toMatchObject({ enabled: false })
    expect(await password()).toMatchObject({ step: 'signed-in' })
    expect(await t.db.adminRecoveryCode.count({ where: { adminId: admin.id } })).toBe(0)
    expect(await databaseText(t)).not.toContain(secret)
    expect(recoveryCodes.length).toBeGreaterThan(0)
    const [entry] = await t.db.auditLog.findMany({ where: { action: 'admin.reset-two-step' } })
    expect(entry).toMatchObject({ actor: ROOT.email, target: `admin:${ADMIN.email}` })
    expect(entry!.detail).toContain('1 session ended')
  })

  it('refuses one’s own (My account needs a current code for that) and someone without it, changing nothing', async () => {
    const { admin, secret } = await enrolled()
    await expect(resetAdminTwoStep(t.deps, { change: { adminId: admin.id }, actor: actorOfAdmin(admin) })).rejects.toMatchObject({ code: 'conflict' })
    expect(await getTwoStepStatus(t.deps, admin.id)).toMatchObject({ enabled: true })
    const root = await createAdmin(t.sql, ROOT)
    await expect(resetAdminTwoStep(t.deps, { change: { adminId: root.id }, actor: actorOfAdmin(admin) })).rejects.toMatchObject({ code: 'conflict' })
    expect(await t.db.auditLog.count({ where: { action: 'admin.reset-two-step' } })).toBe(0)
    // Their second step still works as before.
    expect(await withCode(await challenge(), code(secret))).not.toBeNull()
  })
})

describe('a pending two-step sign-in (the right password, its code awaited) ends with what it was given under', () => {
  const ROOT = { email: 'root@example.com', password: 'root password for tests' }
  type Change = (admin: AdminIdentity, root: ConsoleActor) => Promise<unknown>

  it.each<[string, Change]>([
    ['another admin resets their password', (admin, root) => resetAdminPassword(t.deps, { change: { adminId: admin.id }, actor: root })],
    ['another admin signs them out everywhere', (admin, root) => signOutAdminEverywhere(t.deps, { change: { adminId: admin.id }, actor: root })],
    ['another admin turns their two-step sign-in off', (admin, root) => resetAdminTwoStep(t.deps, { change: { adminId: admin.id }, actor: root })],
    [
      'they are disabled, and enabled again',
      async (admin, root) => {
        await disableAdmin(t.deps, { change: { adminId: admin.id }, actor: root })
        await enableAdmin(t.deps, { change: { adminId: admin.id }, actor: root })
      },
    ],
  ])('when %s: the right code opens no session', async (_name, change) => {
    const { admin, secret } = await enrolled()
    const root = await createAdmin(t.sql, ROOT)
    const pending = await challenge()
    await change(admin, actorOfAdmin(root))
    expect(await withCode(pending, code(secret))).toEqual({ step: 'expired' })
    expect(await t.db.session.count({ where: { subjectId: admin.id } })).toBe(0)
  })

  it.each<[string, (s: AdminSignIn) => Promise<unknown>]>([
    ['they change their password', (s) => change(s)],
    ['they sign out their other sessions', (s) => endMyOtherSessions(t.deps, { admin: s.admin, sessionValue: s.value })],
  ])('when %s: the right code opens no session', async (_name, change) => {
    const { secret } = await enrolled()
    const signedIn = (await withCode(await challenge(), code(secret))) as AdminSignIn
    const pending = await challenge()
    await change(signedIn)
    t.clock.advance(TOTP_PERIOD_SECONDS)
    expect(await withCode(pending, code(secret))).toEqual({ step: 'expired' })
  })
})
