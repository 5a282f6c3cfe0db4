import { describe, expect, it } from 'vitest'
import { gnapError } from '../../testing/deps'
import { createOwner } from '../owner/create-owner'
import { signInOwner } from '../owner/sign-in-owner'
import { PASSWORD_CHECKS } from './password'
import { createAdmin } from '../admin/create-admin'
import { signInAdmin } from '../admin/sign-in-admin'
import { SIGN_IN_LIMITS, addressGroup } from './sign-in-limit'
import { useTestDeps } from '../../testing/use-test-deps'

const t = useTestDeps()

const ALICE = {
  email: 'alice@example.com',
  name: 'Alice',
  password: 'correct horse battery staple',
  walletAddresses: ['https://wallet.example/alice'],
}
const ADMIN = { email: 'ops@example.com', password: 'a long admin password' }

const owner = (password: string, ip: string | null) => signInOwner(t.deps, { email: ALICE.email, password, ip })
const admin = (password: string, ip: string | null) => signInAdmin(t.deps, { email: ADMIN.email, password, ip })
const outcome = (p: Promise<unknown>) =>
  p.then(
    (session) => (session ? 'signed in' : 'wrong'),
    (e: unknown) => ((e as { status?: number }).status === 429 ? 'refused' : Promise.reject(e)),
  )

describe('sign-in attempts are reserved before the password is checked', () => {
  it('counts concurrent guesses for one account and address: no more checks than the limit', async () => {
    await createOwner(t.sql, ALICE)
    for (let i = 0; i < 5; i++) expect(await owner(`wrong ${i}`, '192.0.2.1')).toBeNull()
    // Ten guesses at once, while five of the ten attempts of the window are left: five are checked, five refused.
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => outcome(owner(`concurrent ${i}`, '192.0.2.1'))))
    expect(results.filter((r) => r === 'wrong')).toHaveLength(5)
    expect(results.filter((r) => r === 'refused')).toHaveLength(5)
    await expect(owner(ALICE.password, '192.0.2.1')).rejects.toMatchObject(gnapError('request_denied', 429))
  })

  it('gives the reservation back when the password is right: concurrent successes never count', async () => {
    await createOwner(t.sql, ALICE)
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all(Array.from({ length: 8 }, () => outcome(owner(ALICE.password, '192.0.2.1'))))
      expect(results).toEqual(Array<string>(8).fill('signed in'))
    }
    expect((await t.db.rateLimit.findMany()).map((r) => r.count)).toEqual([0, 0, 0])
  })
})

describe('guessing from one address does not lock the account out for another', () => {
  it('owner: 10 wrong passwords from A, refused from then on; the right password from B still signs in', async () => {
    await createOwner(t.sql, ALICE)
    for (let i = 0; i < 10; i++) expect(await owner(`wrong ${i}`, '203.0.113.66')).toBeNull()
    await expect(owner(ALICE.password, '203.0.113.66')).rejects.toMatchObject(gnapError('request_denied', 429))
    expect(await owner(ALICE.password, '198.51.100.20')).not.toBeNull()
  })

  it('admin: 10 wrong passwords from A, refused from then on; the right password from B still signs in', async () => {
    await createAdmin(t.sql, ADMIN)
    for (let i = 0; i < 10; i++) expect(await admin(`wrong ${i}`, '203.0.113.66')).toBeNull()
    await expect(admin(ADMIN.password, '203.0.113.66')).rejects.toMatchObject(gnapError('request_denied', 429))
    expect(await admin(ADMIN.password, '198.51.100.20')).toMatchObject({ admin: { email: ADMIN.email } })
  })

  it('many addresses: each gets a first attempt, repeats wait for the account’s delay, released 1, 2, 4… s into the window', async () => {
    await createOwner(t.sql, ALICE)
    // The test clock starts on a window boundary. Ten addresses' first attempts go through; their repeats find the
    // account at its 10 attempts and wait for the next release.
    for (let a = 0; a < 10; a++) expect(await owner('wrong', `192.0.2.${a}`)).toBeNull()
    await expect(owner('wrong again', '192.0.2.0')).rejects.toMatchObject({ ...gnapError('request_denied', 429), retryAfterSeconds: 1 })
    t.clock.advance(1)
    expect(await owner('wrong again', '192.0.2.0')).toBeNull()
    await expect(owner('wrong again', '192.0.2.1')).rejects.toMatchObject({ retryAfterSeconds: 1 })
    t.clock.advance(1)
    expect(await owner('wrong again', '192.0.2.1')).toBeNull()
    await expect(owner('wrong again', '192.0.2.2')).rejects.toMatchObject({ retryAfterSeconds: 2 })
    // A fresh address is never delayed, and its right password signs in; so does a repeat once its turn comes.
    expect(await owner(ALICE.password, '198.51.100.20')).not.toBeNull()
    t.clock.advance(2)
    expect(await owner(ALICE.password, '192.0.2.2')).not.toBeNull()
  })

  it('without a known address (no TRUST_PROXY) every attempt waits for the account’s delay: at most 20 a window', async () => {
    await createOwner(t.sql, ALICE)
    let checked = 0
    for (let second = 0; second < SIGN_IN_LIMITS.windowSeconds; second++) {
      for (let i = 0; i < 3; i++) if ((await outcome(owner('wrong', null))) === 'wrong') checked++
      t.clock.advance(1)
    }
    expect(checked).toBe(20)
    // The next window starts afresh.
    expect(await owner(ALICE.password, null)).not.toBeNull()
  }, 60_000)

  it('counts an IPv6 caller by its /64, and an IPv4-mapped one as IPv4', () => {
    expect(addressGroup('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64')
    expect(addressGroup('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64')
    expect(addressGroup('2001:db8::1')).toBe('2001:db8:0:0::/64')
    expect(addressGroup('::ffff:192.0.2.1')).toBe('192.0.2.1')
    expect(addressGroup('::ffff:c000:201')).toBe('192.0.2.1')
    expect(addressGroup('192.0.2.1')).toBe('192.0.2.1')
    expect(addressGroup('[2001:DB8:1:2::7]')).toBe('2001:db8:1:2::/64')
    expect(addressGroup('fe80::1%eth0')).toBe('fe80:0:0:0::/64')
  })
})

describe('the password-check queue', () => {
  it('refuses sign-ins past the running checks and the queue at once with 429 and Retry-After: 1, counting nothing for them', async () => {
    await createOwner(t.sql, ALICE)
    const capacity = PASSWORD_CHECKS.running + PASSWORD_CHECKS.waiting
    const results = await Promise.all(
      Array.from({ length: capacity + 5 }, (_, i) =>
        signInOwner(t.deps, { email: `user${i}@example.com`, password: 'whatever', ip: `192.0.2.${i}` }).then(
          () => 'checked',
          (e: unknown) => e,
        ),
      ),
    )
    expect(results.filter((r) => r === 'checked')).toHaveLength(capacity)
    const refused = results.filter((r) => r !== 'checked')
    expect(refused).toHaveLength(5)
    for (const r of refused) expect(r).toMatchObject({ ...gnapError('request_denied', 429), retryAfterSeconds: 1 })
    // Nothing was reserved for the refused ones; once the queue drains, sign-in works again.
    expect(await t.db.rateLimit.count({ where: { key: { contains: 'user14@' } } })).toBe(0)
    expect(await owner(ALICE.password, '198.51.100.1')).not.toBeNull()
  })
})
