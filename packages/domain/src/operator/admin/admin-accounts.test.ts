import { isUniqueViolation } from '../../kernel/db/errors'
import { beforeEach, describe, expect, it } from 'vitest'
import { ZodError } from 'zod'
import { gnapError } from '../../testing/deps'
import { createOwner } from '../owner/create-owner'
import { signInOwner } from '../owner/sign-in-owner'
import { admitPasswordCheck } from '../sign-in/password'
import { hashSecret } from '../../kernel/secrets'
import { createAdmin } from './create-admin'
import { DEMO_ADMIN } from './demo-admin'
import { ensureFirstAdmin, FirstAdminError } from './ensure-first-admin'
import { signInAdmin, type AdminSignIn } from './sign-in-admin'
import { signOutAdmin } from './sign-out-admin'
import { adminFromSession } from './admin-from-session'
import { ADMIN_SESSION_SECONDS } from './admin-session'
import { SIGN_IN_LIMITS } from '../sign-in/sign-in-limit'
import { useTestDeps } from '../../testing/use-test-deps'

const t = useTestDeps()

const ADMIN = { email: 'ops@example.com', password: 'a long admin password' }

describe('createAdmin', () => {
  it('stores a lower-cased email and an argon2id hash, never the password', async () => {
    const { id, email } = await createAdmin(t.sql, { email: 'Ops@Example.com', password: ADMIN.password })
    const row = await t.db.admin.findUniqueOrThrow({ where: { id } })
    expect(email).toBe('ops@example.com')
    expect(row.passwordHash).toMatch(/^\$argon2id\$/)
    expect(row.passwordHash).not.toContain(ADMIN.password)
    const check = admitPasswordCheck()
    expect(await check.verify(row.passwordHash, ADMIN.password)).toBe(true)
    check.done()
  })

  it.each([
    ['a malformed email', { email: 'not-an-email', password: ADMIN.password }],
    ['a password under 12 characters', { email: ADMIN.email, password: 'short-pass' }],
  ])('refuses %s', async (_name, input) => {
    await expect(createAdmin(t.sql, input)).rejects.toBeInstanceOf(ZodError)
    expect(await t.db.admin.count()).toBe(0)
  })

  it('refuses a taken email', async () => {
    await createAdmin(t.sql, ADMIN)
    await expect(createAdmin(t.sql, { ...ADMIN, email: 'OPS@example.com' })).rejects.toSatisfy(isUniqueViolation)
  })
})

describe('ensureFirstAdmin', () => {
  it('creates the documented demo administrator on an empty table outside production', async () => {
    expect(await ensureFirstAdmin(t.sql, { isProduction: false })).toEqual({ created: true, email: DEMO_ADMIN.email, isDemo: true })
    expect(await signInAdmin(t.deps, { ...DEMO_ADMIN, ip: null })).not.toBeNull()
  })

  it('creates the administrator ADMIN_EMAIL and ADMIN_PASSWORD name, also in production', async () => {
    expect(await ensureFirstAdmin(t.sql, { ...ADMIN, isProduction: true })).toEqual({ created: true, email: ADMIN.email, isDemo: false })
    expect(await signInAdmin(t.deps, { ...ADMIN, ip: null })).not.toBeNull()
  })

  it('does nothing once an administrator exists, and says when ADMIN_EMAIL and ADMIN_PASSWORD were given for nothing', async () => {
    await createAdmin(t.sql, ADMIN)
    expect(await ensureFirstAdmin(t.sql, { isProduction: false })).toEqual({ created: false, ignoredSettings: false })
    expect(await ensureFirstAdmin(t.sql, { email: 'new@example.com', password: 'another long password', isProduction: true })).toEqual({
      created: false,
      ignoredSettings: true,
    })
    expect(await t.db.admin.count()).toBe(1)
  })

  it.each([
    ['no settings on an empty database', {}],
    ['the demo values given explicitly', { ...DEMO_ADMIN }],
    ['the demo password with another email', { email: ADMIN.email, password: DEMO_ADMIN.password }],
  ])('refuses in production: %s', async (_name, input) => {
    await expect(ensureFirstAdmin(t.sql, { ...input, isProduction: true })).rejects.toBeInstanceOf(FirstAdminError)
    expect(await t.db.admin.count()).toBe(0)
  })

  it('refuses the demo password in production even when an administrator exists', async () => {
    await createAdmin(t.sql, ADMIN)
    await expect(ensureFirstAdmin(t.sql, { ...DEMO_ADMIN, isProduction: true })).rejects.toBeInstanceOf(FirstAdminError)
  })

  it('refuses only one of ADMIN_EMAIL and ADMIN_PASSWORD', async () => {
    await expect(ensureFirstAdmin(t.sql, { email: ADMIN.email, isProduction: false })).rejects.toThrow(/both/)
    await expect(ensureFirstAdmin(t.sql, { password: ADMIN.password, isProduction: false })).rejects.toThrow(/both/)
  })
})

describe('signInAdmin', () => {
  beforeEach(async () => {
    await createAdmin(t.sql, ADMIN)
  })

  it('opens an 8-hour admin session stored as hashes only, and audits it', async () => {
    const s = (await signInAdmin(t.deps, { email: ' OPS@example.com', password: ADMIN.password, ip: '192.0.2.1' })) as AdminSignIn | null
    expect(s).toMatchObject({
      step: 'signed-in',
      mustEnrol: false,
      admin: { email: ADMIN.email },
      expiresAt: new Date(t.clock.now.getTime() + ADMIN_SESSION_SECONDS * 1000),
    })
    const row = await t.db.session.findUniqueOrThrow({ where: { id: hashSecret(s!.value) } })
    expect(row).toMatchObject({ kind: 'admin', subjectId: s!.admin.id })
    expect(await t.db.auditLog.findMany({ select: { actor: true, action: true, target: true } })).toEqual([
      { actor: ADMIN.email, action: 'admin.sign-in', target: `admin:${ADMIN.email}` },
    ])
  })

  it('answers null for a wrong password, an unknown email and an owner’s credentials', async () => {
    await createOwner(t.sql, {
      email: 'alice@example.com',
      name: 'Alice',
      password: 'alice-password',
      walletAddresses: ['https://wallet.example/alice'],
    })
    for (const input of [
      { email: ADMIN.email, password: 'wrong password!' },
      { email: 'nobody@example.com', password: ADMIN.password },
      { email: 'alice@example.com', password: 'alice-password' },
      { email: '', password: '' },
    ]) {
      expect(await signInAdmin(t.deps, { ...input, ip: null })).toBeNull()
    }
    expect(await t.db.session.count()).toBe(0)
  })

  it('refuses further attempts for an email from one address after 10 failures in the window, counting only failures', async () => {
    // Successful sign-ins never count: a team signing in all day is not locked out.
    for (let i = 0; i < 15; i++) expect(await signInAdmin(t.deps, { ...ADMIN, ip: '192.0.2.1' })).not.toBeNull()
    t.clock.advance(SIGN_IN_LIMITS.windowSeconds)
    for (let i = 0; i < SIGN_IN_LIMITS.perAccountAndAddress; i++) {
      expect(await signInAdmin(t.deps, { ...ADMIN, password: `guess number ${i}`, ip: '192.0.2.1' })).toBeNull()
    }
    t.clock.advance(30)
    await expect(signInAdmin(t.deps, { ...ADMIN, ip: '192.0.2.1' })).rejects.toMatchObject({
      ...gnapError('request_denied', 429),
      retryAfterSeconds: SIGN_IN_LIMITS.windowSeconds - 30,
    })
    // Another account is not affected; this one is free again in the next window.
    await createAdmin(t.sql, { email: 'other@example.com', password: 'another long password' })
    expect(await signInAdmin(t.deps, { email: 'other@example.com', password: 'another long password', ip: '192.0.2.1' })).not.toBeNull()
    t.clock.advance(SIGN_IN_LIMITS.windowSeconds)
    expect(await signInAdmin(t.deps, { ...ADMIN, ip: '192.0.2.1' })).not.toBeNull()
  })

  it('refuses every email from a known address after 50 failures from it, the same for unknown emails', async () => {
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress; i++) {
      expect(await signInAdmin(t.deps, { email: `user${i}@example.com`, password: 'whatever password', ip: '203.0.113.9' })).toBeNull()
    }
    await expect(signInAdmin(t.deps, { ...ADMIN, ip: '203.0.113.9' })).rejects.toMatchObject(gnapError('request_denied', 429))
    await expect(signInAdmin(t.deps, { email: 'nobody@example.com', password: 'x', ip: '203.0.113.9' })).rejects.toMatchObject(
      gnapError('request_denied', 429),
    )
    expect(await signInAdmin(t.deps, { ...ADMIN, ip: '203.0.113.10' })).not.toBeNull()
    // Callers of unknown address (no TRUST_PROXY) share no per-address counter: anyone could otherwise lock everyone out.
    expect(await signInAdmin(t.deps, { ...ADMIN, ip: null })).not.toBeNull()
  }, 60_000)
})

describe('adminFromSession and signOutAdmin', () => {
  it('finds the administrator of a live admin session, until it expires', async () => {
    await createAdmin(t.sql, ADMIN)
    const s = (await signInAdmin(t.deps, { ...ADMIN, ip: null })) as AdminSignIn
    expect(await adminFromSession(t.deps, s.value)).toMatchObject({ admin: { email: ADMIN.email }, expiresAt: s.expiresAt })
    t.clock.advance(ADMIN_SESSION_SECONDS)
    expect(await adminFromSession(t.deps, s.value)).toBeNull()
  })

  it('answers null for no cookie, an owner session and a removed administrator', async () => {
    expect(await adminFromSession(t.deps, null)).toBeNull()
    await createOwner(t.sql, {
      email: 'alice@example.com',
      name: 'Alice',
      password: 'alice-password',
      walletAddresses: ['https://wallet.example/alice'],
    })
    const owner = (await signInOwner(t.deps, { email: 'alice@example.com', password: 'alice-password' }))!
    expect(await adminFromSession(t.deps, owner.value)).toBeNull()
    await createAdmin(t.sql, ADMIN)
    const s = (await signInAdmin(t.deps, { ...ADMIN, ip: null })) as AdminSignIn
    await t.db.admin.deleteMany()
    expect(await adminFromSession(t.deps, s.value)).toBeNull()
  })

  it('signs out: the session is gone, twice is harmless', async () => {
    const admin = await createAdmin(t.sql, ADMIN)
    const s = (await signInAdmin(t.deps, { ...ADMIN, ip: null })) as AdminSignIn
    await signOutAdmin(t.deps, { sessionValue: s.value, admin })
    await signOutAdmin(t.deps, { sessionValue: s.value, admin: null })
    expect(await adminFromSession(t.deps, s.value)).toBeNull()
    expect(await t.db.session.count()).toBe(0)
  })
})
