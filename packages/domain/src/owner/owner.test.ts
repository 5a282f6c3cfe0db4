import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { hashSecret } from '../secrets'
import { buildTestDeps, databaseText, type TestDeps } from '../testing/deps'
import { findSession } from '../session/session'
import { OWNER_SESSION_SECONDS, createOwner, ownsAccess, signInOwner } from './owner'

let t: TestDeps
beforeEach(async () => {
  t = await buildTestDeps()
})
afterEach(async () => {
  await t.cleanup()
})

const ALICE = {
  email: 'alice@example.com',
  name: 'Alice',
  password: 'correct horse battery staple',
  walletAddresses: ['https://wallet.example/alice'],
}

describe('createOwner', () => {
  it('stores the email in lower case, the wallet addresses without a trailing slash and only an argon2id hash of the password', async () => {
    const { id } = await createOwner(t.db, { ...ALICE, email: 'Alice@Example.COM', walletAddresses: ['https://wallet.example/alice/'] })
    const owner = await t.db.owner.findUniqueOrThrow({ where: { id }, include: { walletAddresses: true } })
    expect(owner.email).toBe('alice@example.com')
    expect(owner.walletAddresses.map((w) => w.url)).toEqual(['https://wallet.example/alice'])
    expect(owner.passwordHash).toMatch(/^\$argon2id\$/)
    expect(await databaseText(t)).not.toContain(ALICE.password)
  })

  it.each([
    ['an invalid email', { email: 'not-an-email' }],
    ['a short password', { password: 'short' }],
    ['no wallet address', { walletAddresses: [] }],
    ['a wallet address that is not http(s)', { walletAddresses: ['ftp://wallet.example/alice'] }],
  ])('refuses %s and writes nothing', async (_name, override) => {
    await expect(createOwner(t.db, { ...ALICE, ...override })).rejects.toThrow()
    expect(await t.db.owner.count()).toBe(0)
    expect(await t.db.ownerWalletAddress.count()).toBe(0)
  })
})

describe('signInOwner', () => {
  let ownerId: string
  beforeEach(async () => {
    ownerId = (await createOwner(t.db, ALICE)).id
  })

  it('opens an owner session with the right password, stored only as a hash', async () => {
    const session = await signInOwner(t.deps, { email: ALICE.email, password: ALICE.password })
    expect(session).not.toBeNull()
    const { value, expiresAt } = session!
    expect(expiresAt).toEqual(new Date(t.clock.now.getTime() + OWNER_SESSION_SECONDS * 1000))
    const row = await t.db.session.findUniqueOrThrow({ where: { id: hashSecret(value) } })
    expect(row).toMatchObject({ kind: 'owner', subjectId: ownerId, expiresAt })
    expect(await findSession(t.db, 'owner', value, t.deps.clock())).toMatchObject({ subjectId: ownerId })
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
  it('pauses sign-in for an account after 10 failures, even with the right password, until the window ends', async () => {
    await createOwner(t.db, ALICE)
    for (let i = 0; i < 10; i++) expect(await signInOwner(t.deps, { email: ALICE.email, password: 'wrong-password' })).toBeNull()
    await expect(signInOwner(t.deps, { email: ALICE.email, password: ALICE.password })).rejects.toMatchObject({ code: 'request_denied', status: 429 })
    t.clock.advance(15 * 60)
    expect(await signInOwner(t.deps, { email: ALICE.email, password: ALICE.password })).not.toBeNull()
  })

  it('counts failures per known address across accounts, and keeps no shared counter for unknown ones', async () => {
    await createOwner(t.db, ALICE)
    for (let i = 0; i < 50; i++) await signInOwner(t.deps, { email: `nobody${i}@example.com`, password: 'x', ip: '192.0.2.7' })
    await expect(signInOwner(t.deps, { email: ALICE.email, password: ALICE.password, ip: '192.0.2.7' })).rejects.toMatchObject({ status: 429 })
    expect(await signInOwner(t.deps, { email: ALICE.email, password: ALICE.password, ip: null })).not.toBeNull()
  })
})

describe('ownsAccess', () => {
  const alice = ['https://wallet.example/alice']
  it.each<[string, boolean, string[], (string | null)[]]>([
    ['the exact wallet address', true, alice, ['https://wallet.example/alice']],
    ['a resource below it', true, alice, ['https://wallet.example/alice/incoming-payments/123']],
    ['the wallet address with a trailing slash', true, alice, ['https://wallet.example/alice/']],
    ['one of several wallet addresses', true, ['https://wallet.example/bob', ...alice], ['https://wallet.example/alice']],
    ['every named item owned, across wallet addresses', true, ['https://wallet.example/alice', 'https://pay.example/al'], ['https://wallet.example/alice', 'https://pay.example/al/x']],
    ['items without identifier beside an owned one', true, alice, [null, 'https://wallet.example/alice', null]],
    ['a longer name with the same prefix (not a path boundary)', false, alice, ['https://wallet.example/alice2']],
    ['a longer name with the same prefix, below it', false, alice, ['https://wallet.example/alice2/incoming-payments']],
    ['a dash after the name', false, alice, ['https://wallet.example/alice-and-bob']],
    ['the parent path', false, alice, ['https://wallet.example']],
    ['another host', false, alice, ['https://wallet.example.evil/alice']],
    ['http instead of https', false, alice, ['http://wallet.example/alice']],
    ['a query string on the wallet address', false, alice, ['https://wallet.example/alice?as=bob']],
    ['dot segments that stay inside the wallet address', true, alice, ['https://wallet.example/alice/x/../incoming-payments']],
    ['the host in upper case', true, alice, ['https://WALLET.example/alice']],
    ['a dot segment up to the parent', false, alice, ['https://wallet.example/alice/..']],
    ['not a URL', false, alice, ['wallet.example/alice']],
    ['dot segments climbing out of the wallet address', false, alice, ['https://wallet.example/alice/../bob']],
    ['encoded dot segments climbing out of the wallet address', false, alice, ['https://wallet.example/alice/%2e%2e/bob']],
    ['one owned and one not', false, alice, ['https://wallet.example/alice', 'https://wallet.example/bob']],
    ['only items without identifier', false, alice, [null, null]],
    ['no items', false, alice, []],
    ['an owner without wallet addresses', false, [], ['https://wallet.example/alice']],
  ])('%s → %s', (_name, expected, walletAddresses, identifiers) => {
    expect(ownsAccess(walletAddresses, identifiers)).toBe(expected)
  })
})
