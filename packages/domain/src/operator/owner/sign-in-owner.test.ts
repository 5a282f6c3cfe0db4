import { beforeEach, describe, expect, it } from 'vitest'
import { hashSecret } from '../../kernel/secrets'
import { databaseText } from '../../testing/deps'
import { findSession } from '../../kernel/session/find-session'
import { createOwner } from './create-owner'
import { OWNER_SESSION_SECONDS, signInOwner } from './sign-in-owner'
import { signOutOwner } from './sign-out-owner'
import { csrfTokenFor } from '../../kernel/session/csrf'
import { useTestDeps } from '../../testing/use-test-deps'

const t = useTestDeps()

const ALICE = {
  email: 'alice@example.com',
  name: 'Alice',
  password: 'correct horse battery staple',
  walletAddresses: ['https://wallet.example/alice'],
}

describe('signInOwner', () => {
  let ownerId: string
  beforeEach(async () => {
    ownerId = (await createOwner(t.sql, ALICE)).id
  })

  it('opens an owner session with the right password, stored only as a hash', async () => {
    const session = await signInOwner(t.deps, { email: ALICE.email, password: ALICE.password })
    expect(session).not.toBeNull()
    const { value, expiresAt } = session!
    expect(expiresAt).toEqual(new Date(t.clock.now.getTime() + OWNER_SESSION_SECONDS * 1000))
    const row = await t.db.session.findUniqueOrThrow({ where: { id: hashSecret(value) } })
    expect(row).toMatchObject({ kind: 'owner', subjectId: ownerId, expiresAt })
    expect(await findSession(t.sql, 'owner', value, t.deps.clock())).toMatchObject({ subjectId: ownerId })
    expect(await databaseText(t)).not.toContain(value)
  })

  it('opens a new session, with a new value, at every sign-in', async () => {
    const a = await signInOwner(t.deps, { email: ALICE.email, password: ALICE.password })
    const b = await signInOwner(t.deps, { email: ALICE.email, password: ALICE.password })
    expect(a?.value).not.toBe(b?.value)
    expect(await t.db.session.count()).toBe(2)
  })

  it.each([
    ['an upper-case email', 'ALICE@EXAMPLE.COM'],
    ['a mixed-case email', 'Alice@Example.com'],
    ['an email with spaces around it', '  alice@example.com '],
  ])('accepts %s', async (_name, email) => {
    expect(await signInOwner(t.deps, { email, password: ALICE.password })).toMatchObject({ value: expect.any(String) })
  })

  // Both failures do the same argon2 work (a dummy hash for unknown emails); only the answers are asserted here.
  it.each([
    ['a wrong password', { email: ALICE.email, password: 'correct horse battery stapler' }],
    ['the password in another case', { email: ALICE.email, password: ALICE.password.toUpperCase() }],
    ['an unknown email', { email: 'bob@example.com', password: ALICE.password }],
    ['an unknown email, twice (the dummy hash is reused)', { email: 'carol@example.com', password: 'anything-at-all' }],
    ['an empty email', { email: '', password: ALICE.password }],
    ['an empty password', { email: ALICE.email, password: '' }],
    ['a very long password', { email: ALICE.email, password: `${ALICE.password}${'x'.repeat(10_000)}` }],
  ])('returns null for %s and opens no session', async (_name, input) => {
    expect(await signInOwner(t.deps, input)).toBeNull()
    expect(await t.db.session.count()).toBe(0)
  })

  it('answers a wrong password and an unknown email alike', async () => {
    const wrongPassword = await signInOwner(t.deps, { email: ALICE.email, password: 'wrong-password-1' })
    const unknownEmail = await signInOwner(t.deps, { email: 'nobody@example.com', password: 'wrong-password-1' })
    expect(wrongPassword).toBeNull()
    expect(unknownEmail).toBeNull()
  })
})

describe('signInOwner rate limit', () => {
  it('pauses sign-in for an account and address after 10 failures, even with the right password, until the window ends', async () => {
    await createOwner(t.sql, ALICE)
    for (let i = 0; i < 10; i++) expect(await signInOwner(t.deps, { email: ALICE.email, password: 'wrong-password', ip: '192.0.2.7' })).toBeNull()
    await expect(signInOwner(t.deps, { email: ALICE.email, password: ALICE.password, ip: '192.0.2.7' })).rejects.toMatchObject({
      code: 'request_denied',
      status: 429,
    })
    t.clock.advance(15 * 60)
    expect(await signInOwner(t.deps, { email: ALICE.email, password: ALICE.password, ip: '192.0.2.7' })).not.toBeNull()
  })

  it('counts failures per known address across accounts, and keeps no shared counter for unknown ones', async () => {
    await createOwner(t.sql, ALICE)
    for (let i = 0; i < 50; i++) await signInOwner(t.deps, { email: `nobody${i}@example.com`, password: 'x', ip: '192.0.2.7' })
    await expect(signInOwner(t.deps, { email: ALICE.email, password: ALICE.password, ip: '192.0.2.7' })).rejects.toMatchObject({ status: 429 })
    expect(await signInOwner(t.deps, { email: ALICE.email, password: ALICE.password, ip: null })).not.toBeNull()
  })
})

describe('signOutOwner', () => {
  it('ends the session only with its CSRF token; otherwise a 403 page and the session stays', async () => {
    await createOwner(t.sql, ALICE)
    const alice = (await signInOwner(t.deps, { email: ALICE.email, password: ALICE.password }))!
    const other = (await signInOwner(t.deps, { email: ALICE.email, password: ALICE.password }))!
    for (const csrf of [null, '', csrfTokenFor(other.value), alice.value]) {
      expect(await signOutOwner(t.deps, { sessionValue: alice.value, csrf })).toMatchObject({ kind: 'page', status: 403 })
      expect(await findSession(t.sql, 'owner', alice.value, t.clock.now)).not.toBeNull()
    }
    // Another site's form carries no cookie (SameSite=Lax) and no token: refused, not "already signed out".
    expect(await signOutOwner(t.deps, { sessionValue: null, csrf: null })).toMatchObject({ kind: 'page', status: 403 })
    expect(await signOutOwner(t.deps, { sessionValue: alice.value, csrf: csrfTokenFor(alice.value) })).toBeNull()
    expect(await findSession(t.sql, 'owner', alice.value, t.clock.now)).toBeNull()
    expect(await findSession(t.sql, 'owner', other.value, t.clock.now)).not.toBeNull()
  })
})
