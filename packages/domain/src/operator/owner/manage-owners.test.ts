import { beforeEach, describe, expect, it } from 'vitest'
import { useTestDeps } from '../../testing/use-test-deps'
import { holdInsertsInto, until, waitingLocks } from '../../testing/pg-hold'
import { issueInteractiveGrant, requestPendingGrant } from '../../testing/grant-flows'
import { grantRequest, outgoingAccess } from '../../testing/deps'
import { findSession } from '../../kernel/session/find-session'
import { createOwner } from './create-owner'
import { signInOwner } from './sign-in-owner'
import type { z } from 'zod'
import type { Deps } from '../../protocol/deps'
import type { ConsoleActor } from '../admin/roles'
import * as manage from './manage-owners'
import { getOwnerDetail, ListOwnersInputSchema, listOwners as listOwnersParsed } from './owner-views'
import { issueOwnerLink } from '../password-link/password-link'
import { checkPasswordLink } from '../password-link/set-password-with-link'

const t = useTestDeps()

/**
 * The use cases take what the router's `.input()` parsed (docs/protocol.md §2.18): these call them as the router does,
 * from the console's input parsed by the procedure's schema.
 */
const routed =
  <S extends z.ZodType<object>, R>(schema: S, useCase: (deps: Deps, input: z.output<S> & { actor: ConsoleActor }) => Promise<R>) =>
  async (deps: Deps, { change, actor }: { change: z.input<S>; actor: ConsoleActor }) =>
    useCase(deps, { ...schema.parse(change), actor })
const adminCreateOwner = (deps: Deps, { owner, actor }: { owner: z.input<typeof manage.CreateOwnerInputSchema>; actor: ConsoleActor }) =>
  routed(manage.CreateOwnerInputSchema, manage.adminCreateOwner)(deps, { change: owner, actor })
const editOwner = routed(manage.EditOwnerInputSchema, manage.editOwner)
const addWalletAddress = routed(manage.WalletAddressInputSchema, manage.addWalletAddress)
const removeWalletAddress = routed(manage.RemoveWalletAddressInputSchema, manage.removeWalletAddress)
const disableOwner = routed(manage.SetOwnerStatusInputSchema, manage.disableOwner)
const enableOwner = routed(manage.OwnerIdInputSchema, manage.enableOwner)
const adminDeleteOwner = routed(manage.OwnerIdInputSchema, manage.adminDeleteOwner)
const listOwners = async (deps: Deps, input: z.input<typeof ListOwnersInputSchema>) => listOwnersParsed(deps, ListOwnersInputSchema.parse(input))

const ADMIN = { kind: 'admin', id: 'admin-1', label: 'root@example.com', role: 'admin', tenantId: null } as const
const ALICE = { email: 'alice@example.com', name: 'Alice', walletAddresses: ['https://wallet.example/alice'] }
const PASSWORD = 'correct horse battery staple'

const conflict = { name: 'ConsoleError', code: 'conflict' }
const grantReason = async (continueId: string) => {
  const g = await t.db.grant.findFirstOrThrow({ where: { continueId } })
  return g.state === 'finalized' ? g.finalizedReason : g.state
}
const auditActions = async () => (await t.db.auditLog.findMany({ orderBy: { createdAt: 'asc' } })).map((a) => `${a.actor} ${a.action}`)

describe('adminCreateOwner', () => {
  it('creates an owner with a normalised wallet address, no password and an audit entry naming the administrator', async () => {
    const { id } = await adminCreateOwner(t.deps, {
      owner: { ...ALICE, email: 'Alice@Example.com', walletAddresses: ['https://WALLET.example/alice/'] },
      actor: ADMIN,
    })
    const owner = await t.db.owner.findUniqueOrThrow({ where: { id }, include: { walletAddresses: true } })
    expect(owner).toMatchObject({ email: 'alice@example.com', name: 'Alice', status: 'active', passwordHash: null })
    expect(owner.walletAddresses.map((w) => w.url)).toEqual(['https://wallet.example/alice'])
    expect(await auditActions()).toEqual(['root@example.com owner.create'])
  })

  it('an owner without a password cannot sign in, whatever the password', async () => {
    await adminCreateOwner(t.deps, { owner: ALICE, actor: ADMIN })
    for (const password of ['', 'null', PASSWORD]) expect(await signInOwner(t.deps, { email: ALICE.email, password })).toBeNull()
  })

  it.each([
    ['the same address in another case and with a trailing slash', 'https://Wallet.Example/alice/'],
    ['the same address with a dot segment', 'https://wallet.example/x/../alice'],
    ['an address below it', 'https://wallet.example/alice/savings'],
    ['an address above it', 'https://wallet.example'],
  ])('refuses %s of another owner, and writes nothing', async (_name, url) => {
    await adminCreateOwner(t.deps, { owner: ALICE, actor: ADMIN })
    await expect(
      adminCreateOwner(t.deps, { owner: { email: 'bob@example.com', name: 'Bob', walletAddresses: [url] }, actor: ADMIN }),
    ).rejects.toMatchObject(conflict)
    expect(await t.db.owner.count()).toBe(1)
    expect(await t.db.ownerWalletAddress.count()).toBe(1)
    expect(await t.db.auditLog.count()).toBe(1)
  })

  it('refuses an email that another owner has', async () => {
    await adminCreateOwner(t.deps, { owner: ALICE, actor: ADMIN })
    await expect(
      adminCreateOwner(t.deps, { owner: { ...ALICE, email: 'ALICE@example.com', walletAddresses: ['https://wallet.example/alice2'] }, actor: ADMIN }),
    ).rejects.toMatchObject(conflict)
    expect(await t.db.owner.count()).toBe(1)
  })
})

describe('editing an owner', () => {
  let id: string
  beforeEach(async () => {
    id = (await adminCreateOwner(t.deps, { owner: ALICE, actor: ADMIN })).id
  })

  it('changes the name and email, and refuses the email of another owner', async () => {
    await adminCreateOwner(t.deps, {
      owner: { email: 'bob@example.com', name: 'Bob', walletAddresses: ['https://wallet.example/bob'] },
      actor: ADMIN,
    })
    await editOwner(t.deps, { change: { ownerId: id, email: 'alice.b@example.com', name: 'Alice B' }, actor: ADMIN })
    expect(await t.db.owner.findUniqueOrThrow({ where: { id } })).toMatchObject({ email: 'alice.b@example.com', name: 'Alice B', nameKey: 'alice b' })
    await expect(editOwner(t.deps, { change: { ownerId: id, email: 'bob@example.com', name: 'Alice' }, actor: ADMIN })).rejects.toMatchObject(
      conflict,
    )
    expect(await t.db.owner.findUniqueOrThrow({ where: { id } })).toMatchObject({ email: 'alice.b@example.com' })
    const entry = await t.db.auditLog.findFirstOrThrow({ where: { action: 'owner.edit' } })
    expect(entry).toMatchObject({ actor: ADMIN.label, target: `owner:${id}` })
    expect(entry.detail).toContain('alice@example.com → alice.b@example.com')
  })

  it('adds a wallet address, and refuses one that another owner has (normalised)', async () => {
    await adminCreateOwner(t.deps, {
      owner: { email: 'bob@example.com', name: 'Bob', walletAddresses: ['https://wallet.example/bob'] },
      actor: ADMIN,
    })
    await addWalletAddress(t.deps, { change: { ownerId: id, walletAddress: 'https://wallet.example/alice-savings' }, actor: ADMIN })
    await expect(
      addWalletAddress(t.deps, { change: { ownerId: id, walletAddress: 'HTTPS://wallet.example/bob/' }, actor: ADMIN }),
    ).rejects.toMatchObject(conflict)
    await expect(
      addWalletAddress(t.deps, { change: { ownerId: id, walletAddress: 'https://wallet.example/alice' }, actor: ADMIN }),
    ).rejects.toMatchObject(conflict)
    expect((await getOwnerDetail(t.deps, id, ADMIN)).walletAddresses).toEqual([
      'https://wallet.example/alice',
      'https://wallet.example/alice-savings',
    ])
  })

  it('removes a wallet address, revoking the grants naming it only when asked, and never the last one', async () => {
    await addWalletAddress(t.deps, { change: { ownerId: id, walletAddress: 'https://wallet.example/alice-savings' }, actor: ADMIN })
    const kept = await issueInteractiveGrant(t)
    const savings = grantRequest({ access: [outgoingAccess({ identifier: 'https://wallet.example/alice-savings' })] })
    const named = await issueInteractiveGrant(t, savings)

    await removeWalletAddress(t.deps, {
      change: { ownerId: id, walletAddress: 'https://wallet.example/alice-savings', revokeGrants: true },
      actor: ADMIN,
    })
    expect(await grantReason(named.continueId)).toBe('revoked')
    expect(await grantReason(kept.continueId)).toBe('issued')
    expect(await t.db.auditLog.count({ where: { action: 'grant.revoke', actor: ADMIN.label } })).toBe(1)

    await expect(
      removeWalletAddress(t.deps, { change: { ownerId: id, walletAddress: 'https://wallet.example/alice', revokeGrants: false }, actor: ADMIN }),
    ).rejects.toMatchObject(conflict)

    await addWalletAddress(t.deps, { change: { ownerId: id, walletAddress: 'https://wallet.example/alice-savings' }, actor: ADMIN })
    await removeWalletAddress(t.deps, { change: { ownerId: id, walletAddress: 'https://wallet.example/alice', revokeGrants: false }, actor: ADMIN })
    expect(await grantReason(kept.continueId)).toBe('issued')
  })
})

describe('disable, enable, delete', () => {
  let id: string
  beforeEach(async () => {
    id = (await createOwner(t.sql, { ...ALICE, password: PASSWORD })).id
  })

  it('a disabled owner is told so only after the right password, loses their sessions, and can sign in again once enabled', async () => {
    const session = await signInOwner(t.deps, { email: ALICE.email, password: PASSWORD })
    await disableOwner(t.deps, { change: { ownerId: id, revokeGrants: false }, actor: ADMIN })
    expect(await findSession(t.sql, 'owner', session!.value, t.deps.clock())).toBeNull()
    expect(await signInOwner(t.deps, { email: ALICE.email, password: 'wrong password here' })).toBeNull()
    await expect(signInOwner(t.deps, { email: ALICE.email, password: PASSWORD })).rejects.toMatchObject({
      status: 403,
      message: 'this account is disabled',
    })

    await enableOwner(t.deps, { change: { ownerId: id }, actor: ADMIN })
    expect(await signInOwner(t.deps, { email: ALICE.email, password: PASSWORD })).toMatchObject({ value: expect.any(String) })
    expect(await auditActions()).toEqual(['root@example.com owner.disable', 'root@example.com owner.enable'])
  })

  it('disabling revokes the owner’s grants when asked, and keeps them otherwise', async () => {
    const grant = await issueInteractiveGrant(t)
    await disableOwner(t.deps, { change: { ownerId: id, revokeGrants: false }, actor: ADMIN })
    expect(await grantReason(grant.continueId)).toBe('issued')
    await enableOwner(t.deps, { change: { ownerId: id }, actor: ADMIN })
    await disableOwner(t.deps, { change: { ownerId: id, revokeGrants: true }, actor: ADMIN })
    expect(await grantReason(grant.continueId)).toBe('revoked')
  })

  it('delete revokes every grant on the owner’s wallet addresses (at or below them), ends their sessions and keeps the audit trail', async () => {
    const issued = await issueInteractiveGrant(t)
    const below = await requestPendingGrant(
      t,
      grantRequest({ access: [outgoingAccess({ identifier: 'https://wallet.example/alice/incoming-payments/1' })] }),
    )
    const otherOwner = await requestPendingGrant(t, grantRequest({ access: [outgoingAccess({ identifier: 'https://wallet.example/alice-other' })] }))
    await signInOwner(t.deps, { email: ALICE.email, password: PASSWORD })
    await editOwner(t.deps, { change: { ownerId: id, email: ALICE.email, name: 'Alice A' }, actor: ADMIN })
    const { url } = await issueOwnerLink(t.sql, { ownerId: id, kind: 'reset', now: t.clock.now, ttlSeconds: 3600, baseUrl: 'https://auth.example/' })

    const { revokedGrants } = await adminDeleteOwner(t.deps, { change: { ownerId: id }, actor: ADMIN })
    expect(revokedGrants).toBe(2)
    expect(await grantReason(issued.continueId)).toBe('revoked')
    expect(await grantReason(below.continueId)).toBe('revoked')
    expect(await grantReason(otherOwner.continueId)).toBe('pending')
    expect(await t.db.owner.count()).toBe(0)
    expect(await t.db.ownerWalletAddress.count()).toBe(0)
    expect(await t.db.session.count({ where: { kind: 'owner' } })).toBe(0)
    // Their link goes with them: it could set the password of nobody, and says so.
    expect(await t.db.passwordLink.count()).toBe(0)
    expect(await checkPasswordLink(t.deps, 'owner', url.split('/').pop()!)).toEqual({ kind: 'problem', problem: 'unknown' })
    const about = await t.db.auditLog.findMany({ where: { target: `owner:${id}` }, orderBy: { createdAt: 'asc' } })
    expect(about.map((a) => a.action)).toEqual(['owner.edit', 'owner.delete'])
    expect(about[1]!.detail).toContain('alice@example.com')
    await expect(getOwnerDetail(t.deps, id, ADMIN)).rejects.toMatchObject({ code: 'not_found' })
  })
})

describe('listOwners and getOwnerDetail', () => {
  beforeEach(async () => {
    for (let i = 0; i < 7; i++) {
      await adminCreateOwner(t.deps, {
        owner: {
          email: `user${i}@example.com`,
          name: i % 2 ? `Zoe ${i}` : `Yann ${i}`,
          walletAddresses: [`https://wallet.example/u${i}`, `https://pay.example/u${i}`],
        },
        actor: ADMIN,
      })
      t.clock.advance(1)
    }
  })

  it('pages through every owner, newest first, without gaps or repeats', async () => {
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page: Awaited<ReturnType<typeof listOwners>> = await listOwners(t.deps, { limit: 3, cursor })
      seen.push(...page.items.map((o) => o.email))
      cursor = page.nextCursor
    } while (cursor)
    expect(seen).toEqual([6, 5, 4, 3, 2, 1, 0].map((i) => `user${i}@example.com`))
  })

  it('searches by email prefix, by name in any case and by wallet address, in pages', async () => {
    expect((await listOwners(t.deps, { search: 'USER3@' })).items.map((o) => o.email)).toEqual(['user3@example.com'])
    const zoes = await listOwners(t.deps, { search: 'zoe', limit: 2 })
    expect(zoes.items.map((o) => o.name)).toEqual(['Zoe 1', 'Zoe 3'])
    const rest = await listOwners(t.deps, { search: 'zoe', limit: 2, cursor: zoes.nextCursor })
    expect(rest.items.map((o) => o.name)).toEqual(['Zoe 5'])
    expect(rest.nextCursor).toBeNull()
    const byAddress = await listOwners(t.deps, { search: 'https://PAY.example/u4' })
    expect(byAddress.items.map((o) => [o.email, o.matchedWalletAddress])).toEqual([['user4@example.com', 'https://pay.example/u4']])
    await expect(listOwners(t.deps, { search: 'yann', cursor: zoes.nextCursor })).rejects.toMatchObject({ code: 'bad_request' })
  })

  it('shows an owner’s grants, last sign-in and failed sign-ins of the current window', async () => {
    const id = (await createOwner(t.sql, { ...ALICE, password: PASSWORD })).id
    const grant = await issueInteractiveGrant(t)
    await signInOwner(t.deps, { email: ALICE.email, password: 'wrong password 1' })
    await signInOwner(t.deps, { email: ALICE.email, password: 'wrong password 2' })
    await signInOwner(t.deps, { email: ALICE.email, password: PASSWORD })
    const detail = await getOwnerDetail(t.deps, id, ADMIN)
    const row = await t.db.grant.findFirstOrThrow({ where: { continueId: grant.continueId } })
    expect(detail.grants.map((g) => [g.id, g.status])).toEqual([[row.id, 'issued']])
    expect(detail.signIn.failuresThisWindow).toBe(2)
    expect(detail.signIn.lastSignInAt).toEqual(t.clock.now)
    expect(detail).not.toHaveProperty('passwordHash')
  })
})

describe('listOwners: a search without @ that starts no name looks in emails', () => {
  it('finds owners by the start of their email, in pages', async () => {
    for (const [email, name] of [
      ['maria.garcia@example.com', 'Maria Garcia'],
      ['maria.lopez@example.com', 'Maria Lopez'],
      ['mgarcia@example.com', 'Marie Gar'],
    ] as const) {
      await adminCreateOwner(t.deps, { owner: { email, name, walletAddresses: [`https://wallet.example/${email.split('@')[0]}`] }, actor: ADMIN })
    }
    expect((await listOwners(t.deps, { search: 'maria' })).items.map((o) => o.name)).toEqual(['Maria Garcia', 'Maria Lopez'])
    const first = await listOwners(t.deps, { search: 'maria.', limit: 1 })
    expect(first.items.map((o) => o.email)).toEqual(['maria.garcia@example.com'])
    const second = await listOwners(t.deps, { search: 'maria.', limit: 1, cursor: first.nextCursor })
    expect(second.items.map((o) => o.email)).toEqual(['maria.lopez@example.com'])
    expect(second.nextCursor).toBeNull()
  })
})

// PostgreSQL runs transactions side by side (READ COMMITTED): two administrators give two owners nested wallet
// addresses at the same moment. A trigger holds the first transaction open after its check passed and its row is
// written, until the test lets it go; the second must then wait and see that row (docs/protocol.md §2.13).
describe.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL: two owners created at once with nested wallet addresses', () => {
  it('gives the addresses to one owner only', async () => {
    const held = await holdInsertsInto(t.db, 'OwnerWalletAddress', 4712)

    const first = adminCreateOwner(t.deps, { owner: ALICE, actor: ADMIN })
    await until(async () => (await waitingLocks(t.db, 'advisory')) > 0)
    let settled = false
    const bob = { email: 'bob@example.com', name: 'Bob', walletAddresses: ['https://wallet.example/alice/savings'] }
    const second = adminCreateOwner(t.deps, { owner: bob, actor: ADMIN }).finally(() => (settled = true))
    await until(async () => settled || (await waitingLocks(t.db, 'relation')) > 0 || (await waitingLocks(t.db, 'advisory')) > 1)
    await held.release()
    const results = await Promise.allSettled([first, second])
    await held.drop()

    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected'])
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject(conflict)
    expect(await t.db.ownerWalletAddress.findMany({ select: { url: true } })).toEqual([{ url: 'https://wallet.example/alice' }])
  })
})
