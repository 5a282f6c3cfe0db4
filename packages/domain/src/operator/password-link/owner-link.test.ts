import { beforeEach, describe, expect, it } from 'vitest'
import { databaseText } from '../../testing/deps'
import { useTestDeps } from '../../testing/use-test-deps'
import { createSession } from '../../kernel/session/create-session'
import { createOwner } from '../owner/create-owner'
import { verifyPassword } from '../sign-in/password'
import { issueOwnerLink } from './password-link'
import { checkPasswordLink, setPasswordWithLink } from './set-password-with-link'

const t = useTestDeps()

const ALICE = { email: 'alice@example.com', name: 'Alice', password: 'old password for alice', walletAddresses: ['https://wallet.example/alice'] }
const NEW_PASSWORD = 'violet kettle under stairs'
const DAY = 86_400

let ownerId: string
beforeEach(async () => {
  ownerId = (await createOwner(t.sql, ALICE)).id
})

const issue = (kind: 'invitation' | 'reset' = 'reset', ttlSeconds = 7 * DAY) =>
  issueOwnerLink(t.sql, { ownerId, kind, now: t.clock.now, ttlSeconds, baseUrl: 'https://auth.example/' })
const secretOf = (url: string) => url.split('/').pop() ?? ''
const use = (url: string, password = NEW_PASSWORD, confirm = password) =>
  setPasswordWithLink(t.deps, { subject: 'owner', secret: secretOf(url), password, confirm })
const storedHash = async () => (await t.db.owner.findUniqueOrThrow({ where: { id: ownerId } })).passwordHash

describe('issueOwnerLink', () => {
  it('gives a set-password URL with a 256-bit secret, stores only its hash, and expires after the given time', async () => {
    const { url, expiresAt } = await issue('invitation', 3 * DAY)
    expect(url).toMatch(/^https:\/\/auth\.example\/account\/set-password\/[A-Za-z0-9_-]{43}$/)
    expect(expiresAt).toEqual(new Date(t.clock.now.getTime() + 3 * DAY * 1000))
    expect(await databaseText(t)).not.toContain(secretOf(url))
    expect(await checkPasswordLink(t.deps, 'owner', secretOf(url))).toEqual({ kind: 'usable', accountName: 'Alice', linkKind: 'invitation' })
  })

  it('voids every earlier unused link, of either kind', async () => {
    const first = (await issue('reset')).url
    const invitation = (await issue('invitation')).url
    const second = (await issue('reset')).url
    expect(await use(first)).toEqual({ kind: 'problem', problem: 'unknown' })
    expect(await checkPasswordLink(t.deps, 'owner', secretOf(invitation))).toEqual({ kind: 'problem', problem: 'unknown' })
    expect(await use(second)).toEqual({ kind: 'done' })
  })
})

describe('setPasswordWithLink', () => {
  it('sets the password, ends every session of the owner and records it in the audit log', async () => {
    await createSession(t.sql, { kind: 'owner', subjectId: ownerId, ttlSeconds: 3600, now: t.clock.now })
    await createSession(t.sql, { kind: 'owner', subjectId: ownerId, ttlSeconds: 3600, now: t.clock.now })
    const url = (await issue()).url
    expect(await use(url)).toEqual({ kind: 'done' })
    expect(await verifyPassword(await storedHash(), NEW_PASSWORD)).toBe(true)
    expect(await verifyPassword(await storedHash(), ALICE.password)).toBe(false)
    expect(await t.db.session.count({ where: { subjectId: ownerId } })).toBe(0)
    const audit = await t.db.auditLog.findMany()
    expect(audit).toMatchObject([{ actor: 'owner:alice@example.com', action: 'owner.set-password', target: `owner:${ownerId}`, detail: 'reset' }])
    expect(await databaseText(t)).not.toContain(NEW_PASSWORD)
  })

  it('works once: a second use says the link was used and leaves the password as set', async () => {
    const url = (await issue()).url
    expect(await use(url)).toEqual({ kind: 'done' })
    expect(await use(url, 'another long password here')).toEqual({ kind: 'problem', problem: 'used' })
    expect(await verifyPassword(await storedHash(), NEW_PASSWORD)).toBe(true)
  })

  it('lets exactly one of two uses at the same time set its password', async () => {
    const url = (await issue()).url
    const results = await Promise.all([use(url, 'first concurrent password'), use(url, 'second concurrent password')])
    expect(results.filter((r) => r.kind === 'done')).toHaveLength(1)
    expect(results.filter((r) => r.kind === 'problem' && r.problem === 'used')).toHaveLength(1)
    expect(await t.db.auditLog.count()).toBe(1)
    const winner = results[0]?.kind === 'done' ? 'first concurrent password' : 'second concurrent password'
    expect(await verifyPassword(await storedHash(), winner)).toBe(true)
  })

  it('refuses a link after it expired, and says so', async () => {
    const url = (await issue('reset', DAY)).url
    t.clock.now = new Date(t.clock.now.getTime() + DAY * 1000)
    expect(await checkPasswordLink(t.deps, 'owner', secretOf(url))).toEqual({ kind: 'problem', problem: 'expired' })
    expect(await use(url)).toEqual({ kind: 'problem', problem: 'expired' })
    expect(await verifyPassword(await storedHash(), ALICE.password)).toBe(true)
  })

  it('sets nothing for a disabled owner, and says the account is disabled', async () => {
    const url = (await issue('reset')).url
    await t.db.owner.update({ where: { id: ownerId }, data: { status: 'disabled' } })
    expect(await checkPasswordLink(t.deps, 'owner', secretOf(url))).toEqual({ kind: 'problem', problem: 'disabled' })
    expect(await use(url)).toEqual({ kind: 'problem', problem: 'disabled' })
    expect(await verifyPassword(await storedHash(), ALICE.password)).toBe(true)
  })

  it.each([
    ['an unknown secret', 'A'.repeat(43)],
    ['a secret of the wrong shape', 'not-a-secret'],
    ['an empty secret', ''],
  ])('says %s is not valid', async (_name, secret) => {
    expect(await setPasswordWithLink(t.deps, { subject: 'owner', secret, password: NEW_PASSWORD, confirm: NEW_PASSWORD })).toEqual({
      kind: 'problem',
      problem: 'unknown',
    })
  })

  it.each([
    ['passwords that differ', NEW_PASSWORD, `${NEW_PASSWORD}!`, /not the same/, 'confirm'],
    ['a short password', 'short pass', 'short pass', /too short/, 'password'],
    ['a common password', 'qwerty123456', 'qwerty123456', /commonly used/, 'password'],
    ['the email as password', 'alice@example.com', 'alice@example.com', /your email/, 'password'],
  ])('refuses %s, naming the field it is about, keeps the link usable and writes nothing', async (_name, password, confirm, reason, field) => {
    const url = (await issue()).url
    const result = await use(url, password, confirm)
    expect(result).toMatchObject({ kind: 'refused', reason: expect.stringMatching(reason), field })
    expect(await verifyPassword(await storedHash(), ALICE.password)).toBe(true)
    expect((await checkPasswordLink(t.deps, 'owner', secretOf(url))).kind).toBe('usable')
    expect(await t.db.auditLog.count()).toBe(0)
  })

  it('writes nothing when the transaction fails', async () => {
    await createSession(t.sql, { kind: 'owner', subjectId: ownerId, ttlSeconds: 3600, now: t.clock.now })
    const url = (await issue()).url
    await t.db.$executeRawUnsafe(`DROP TABLE "AuditLog"`)
    await expect(use(url)).rejects.toThrow()
    expect(await verifyPassword(await storedHash(), ALICE.password)).toBe(true)
    expect(await t.db.session.count()).toBe(1)
    expect((await checkPasswordLink(t.deps, 'owner', secretOf(url))).kind).toBe('usable')
  })
})
