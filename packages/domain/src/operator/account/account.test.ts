import { beforeEach, describe, expect, it } from 'vitest'
import { createOwner } from '../owner/create-owner'
import { addWebhookEndpoint } from '../../testing/webhook-delivery'
import { signInOwner } from '../owner/sign-in-owner'
import { findSession } from '../../kernel/session/find-session'
import { hashSecret } from '../../kernel/secrets'
import { rotateAccessToken } from '../../protocol/access-token/rotate-access-token'
import { cancelGrant } from '../../protocol/grant/cancel-grant'
import { adminRevokeGrant } from '../admin/admin-revoke-grant'
import { authAs, gnapError, grantRequest, incomingAccess, introspect, outgoingAccess } from '../../testing/deps'
import {
  issueInteractiveGrant,
  issueNonInteractiveGrant,
  approvedGrant,
  interact,
  requestPendingGrant,
  startSession,
  finish,
} from '../../testing/grant-flows'
import { findInteraction } from '../../protocol/interaction/interaction.repo'
import { decideInteraction } from '../../protocol/interaction/decide-interaction'
import { useTestDeps } from '../../testing/use-test-deps'
import {
  changeOwnerPassword,
  grantEnd,
  listConnectedApps,
  ownerHistory,
  revokeFromAccount,
  findConnectedApp,
  listUnapprovedClients,
  findUnapprovedClient,
  revokeClientFromAccount,
} from './account'

const t = useTestDeps()

const ALICE = { email: 'alice@example.com', name: 'Alice', password: 'alice-password-1', walletAddresses: ['https://wallet.example/alice'] }
const BOB = { email: 'bob@example.com', name: 'Bob', password: 'bob-password-12', walletAddresses: ['https://wallet.example/bob'] }
const forBob = () => grantRequest({ access: [outgoingAccess({ identifier: 'https://wallet.example/bob' })] })

let alice: string
let bob: string
beforeEach(async () => {
  alice = (await createOwner(t.sql, ALICE)).id
  bob = (await createOwner(t.sql, BOB)).id
})

const grantIdOf = async (continueId: string) => (await t.db.grant.findUniqueOrThrow({ where: { continueId } })).id
const appsOf = async (ownerId: string) => (await listConnectedApps(t.deps, ownerId)).apps

describe('listConnectedApps', () => {
  it('lists the live grants on my wallet addresses in plain words, with when I approved and when its token was issued', async () => {
    const g = await issueInteractiveGrant(t)
    const apps = await appsOf(alice)
    expect(apps).toHaveLength(1)
    expect(apps[0]).toMatchObject({
      grantId: await grantIdOf(g.continueId),
      clientWalletAddress: 'https://wallet.example/test-app',
      approvedAt: expect.any(Date),
      lastTokenAt: expect.any(Date),
    })
    expect(apps[0]?.access[0]?.title).toContain('Send payments from https://wallet.example/alice')
  })

  it('counts a grant that needed no approval, on a resource below my wallet address, under its app; its own page has no approval time', async () => {
    const g = await issueNonInteractiveGrant(t, { access: [incomingAccess({ identifier: 'https://wallet.example/alice/incoming-payments' })] })
    expect(await appsOf(alice)).toEqual([])
    expect(await listUnapprovedClients(t.deps, alice)).toMatchObject({
      clients: [{ clientWalletAddress: 'https://wallet.example/test-app', grants: 1 }],
      totalClients: 1,
      totalGrants: 1,
      next: null,
    })
    expect(await findConnectedApp(t.deps, alice, await grantIdOf(g.continueId))).toMatchObject({ approvedAt: null, lastTokenAt: expect.any(Date) })
  })

  it('never lists another owner’s grant, nor one only partly on my wallet addresses', async () => {
    await issueInteractiveGrant(t, forBob())
    await issueInteractiveGrant(t, grantRequest({ access: [outgoingAccess(), outgoingAccess({ identifier: 'https://wallet.example/bob' })] }))
    // A look-alike address is not below mine.
    await issueInteractiveGrant(t, grantRequest({ access: [outgoingAccess({ identifier: 'https://wallet.example/alice-evil' })] }))
    expect(await appsOf(alice)).toEqual([])
    expect(await appsOf(bob)).toHaveLength(1)
  })

  it('leaves out grants that are no longer live: revoked, denied, pending', async () => {
    const revoked = await issueInteractiveGrant(t)
    await cancelGrant(t.deps, { continueId: revoked.continueId, auth: authAs(revoked.continueToken) })
    await interact(t, await requestPendingGrant(t), 'reject')
    await requestPendingGrant(t)
    expect(await appsOf(alice)).toEqual([])
  })
})

describe('revokeFromAccount', () => {
  it('revokes my grant: its tokens are dead at once and the audit log names me', async () => {
    const g = await issueInteractiveGrant(t)
    const grantId = await grantIdOf(g.continueId)
    expect(await revokeFromAccount(t.deps, alice, grantId)).toBe('revoked')
    expect(await introspect(t.deps, { access_token: g.tokenValue })).toEqual({ active: false })
    await expect(rotateAccessToken(t.deps, { managementId: g.managementId, auth: authAs(g.tokenValue) })).rejects.toMatchObject(
      gnapError('invalid_rotation', 404),
    )
    expect(await t.db.auditLog.findMany()).toMatchObject([{ actor: 'owner:alice@example.com', action: 'grant.revoke', target: `grant:${grantId}` }])
    expect(await appsOf(alice)).toEqual([])
  })

  it('refuses another owner’s grant, whatever id is sent: nothing is revoked', async () => {
    const g = await issueInteractiveGrant(t, forBob())
    const grantId = await grantIdOf(g.continueId)
    expect(await findConnectedApp(t.deps, alice, grantId)).toBeNull()
    expect(await revokeFromAccount(t.deps, alice, grantId)).toBe('not-found')
    expect(await introspect(t.deps, { access_token: g.tokenValue })).toMatchObject({ active: true })
    expect(await t.db.auditLog.count()).toBe(0)
    expect(await revokeFromAccount(t.deps, bob, grantId)).toBe('revoked')
  })

  it('answers not-found for an unknown id and for a grant already revoked', async () => {
    const g = await issueInteractiveGrant(t)
    const grantId = await grantIdOf(g.continueId)
    expect(await revokeFromAccount(t.deps, alice, 'no-such-grant')).toBe('not-found')
    await adminRevokeGrant(t.deps, { grantId, actor: { kind: 'admin', id: 'admin-1', label: 'admin@example.com', role: 'admin', tenantId: null } })
    expect(await revokeFromAccount(t.deps, alice, grantId)).toBe('not-found')
    expect(await t.db.auditLog.findMany()).toMatchObject([{ actor: 'admin@example.com' }])
  })
})

describe('grants nobody approved, made in any number', () => {
  beforeEach(() => addWebhookEndpoint(t, { eventTypes: ['grant.revoked'] }))
  const FLOOD = 'https://wallet.example/flood-app'
  const flood = (...identifiers: string[]) =>
    issueNonInteractiveGrant(t, {
      client: FLOOD,
      access: (identifiers.length ? identifiers : ['https://wallet.example/alice']).map((identifier) => incomingAccess({ identifier })),
    })
  const revokedEvents = async () =>
    (await t.db.webhookEvent.findMany({ where: { type: 'grant.revoked' } })).map(
      (e) => JSON.parse(e.payload) as { data: { grant: { id: string }; actor: unknown } },
    )

  it('never push out the grant I approved: they are counted per app, and revoking that app revokes exactly them', async () => {
    const approved = await issueInteractiveGrant(t)
    t.clock.advance(1)
    const floods = []
    for (let i = 0; i < 500; i++) {
      // Within the per-client grant limit (120 a minute in tests); tokens live 600 s.
      if (i % 100 === 99) t.clock.advance(61)
      floods.push(await flood())
    }
    const bobs = await flood('https://wallet.example/bob')
    const otherApp = await issueNonInteractiveGrant(t, { access: [incomingAccess({ identifier: 'https://wallet.example/alice' })] })

    expect((await appsOf(alice)).map((a) => a.grantId)).toEqual([await grantIdOf(approved.continueId)])
    expect(await listUnapprovedClients(t.deps, alice)).toMatchObject({
      clients: [
        { clientWalletAddress: FLOOD, grants: 500 },
        { clientWalletAddress: 'https://wallet.example/test-app', grants: 1 },
      ],
      totalClients: 2,
      totalGrants: 501,
    })
    expect(await findUnapprovedClient(t.deps, alice, FLOOD)).toMatchObject({ grants: 500, access: [{ type: 'incoming-payment', grants: 500 }] })

    expect(await revokeClientFromAccount(t.deps, alice, FLOOD)).toBe(500)
    for (const g of floods) expect(await introspect(t.deps, { access_token: g.tokenValue })).toEqual({ active: false })
    for (const g of [approved, bobs, otherApp]) expect(await introspect(t.deps, { access_token: g.tokenValue })).toMatchObject({ active: true })
    const floodIds = new Set(await Promise.all(floods.map((g) => grantIdOf(g.continueId))))
    const audit = await t.db.auditLog.findMany()
    expect(audit).toHaveLength(500)
    expect(
      audit.every((e) => e.actor === 'owner:alice@example.com' && e.action === 'grant.revoke' && floodIds.has(e.target.slice('grant:'.length))),
    ).toBe(true)
    const events = await revokedEvents()
    expect(new Set(events.map((e) => e.data.grant.id))).toEqual(floodIds)
    expect(events[0]?.data.actor).toEqual({ type: 'owner', id: alice })

    expect(await listUnapprovedClients(t.deps, alice)).toMatchObject({ clients: [{ grants: 1 }], totalClients: 1, totalGrants: 1 })
    expect(await findUnapprovedClient(t.deps, alice, FLOOD)).toBeNull()
    expect(await revokeClientFromAccount(t.deps, alice, FLOOD)).toBe(0)
    // Recent activity is about what I decided: the revoked flood does not push my approval out.
    expect((await ownerHistory(t.deps, alice)).map((h) => h.what)).toEqual(['approved'])
  })

  it('revokes nothing of another owner, of a grant only partly mine, or of one I approved, whatever app is sent', async () => {
    const bobs = await flood('https://wallet.example/bob')
    const shared = await flood('https://wallet.example/alice', 'https://wallet.example/bob')
    const approved = await issueInteractiveGrant(t)
    expect(await listUnapprovedClients(t.deps, alice)).toMatchObject({ clients: [], totalClients: 0, totalGrants: 0 })
    expect(await findUnapprovedClient(t.deps, alice, FLOOD)).toBeNull()
    expect(await revokeClientFromAccount(t.deps, alice, FLOOD)).toBe(0)
    expect(await revokeClientFromAccount(t.deps, alice, 'https://wallet.example/test-app')).toBe(0)
    for (const g of [bobs, shared, approved]) expect(await introspect(t.deps, { access_token: g.tokenValue })).toMatchObject({ active: true })
    expect(await t.db.auditLog.count()).toBe(0)
    expect(await revokedEvents()).toEqual([])
    expect(await listUnapprovedClients(t.deps, bob)).toMatchObject({ clients: [{ clientWalletAddress: FLOOD, grants: 1 }] })
  })

  it('pages the apps I approved, so none is ever left out', async () => {
    for (let i = 0; i < 51; i++) await issueInteractiveGrant(t)
    const first = await listConnectedApps(t.deps, alice)
    expect(first.apps).toHaveLength(50)
    expect(first.next).toBe(50)
    const second = await listConnectedApps(t.deps, alice, 50)
    expect(second).toMatchObject({ apps: [expect.anything()], next: null })
    expect(new Set([...first.apps, ...second.apps].map((a) => a.grantId)).size).toBe(51)
  })
})

describe('ownerHistory', () => {
  it('tells what I approved, denied and revoked, and who revoked, newest first; never another owner’s', async () => {
    const mine = await issueInteractiveGrant(t)
    t.clock.advance(60)
    await interact(t, await requestPendingGrant(t), 'reject')
    t.clock.advance(60)
    await revokeFromAccount(t.deps, alice, await grantIdOf(mine.continueId))
    t.clock.advance(60)
    const other = await approvedGrant(t)
    t.clock.advance(60)
    await adminRevokeGrant(t.deps, {
      grantId: await grantIdOf(other.continueId),
      actor: { kind: 'admin', id: 'a', label: 'admin@example.com', role: 'operator', tenantId: null },
    })
    await issueInteractiveGrant(t, forBob())
    const history = await ownerHistory(t.deps, alice)
    expect(history.map((h) => [h.what, h.by])).toEqual([
      ['revoked', 'an administrator'],
      ['approved', undefined],
      ['revoked', 'you'],
      ['denied', undefined],
      ['approved', undefined],
    ])
    expect(await ownerHistory(t.deps, bob)).toHaveLength(1)
  })
})

describe('changeOwnerPassword', () => {
  const change = (sessionValue: string, over: Partial<{ currentPassword: string; newPassword: string; confirmPassword: string }> = {}) =>
    changeOwnerPassword(t.deps, {
      ownerId: alice,
      sessionId: hashSecret(sessionValue),
      currentPassword: ALICE.password,
      newPassword: 'a-brand-new-password',
      confirmPassword: over.newPassword ?? 'a-brand-new-password',
      ip: '192.0.2.1',
      ...over,
    })

  it('sets the new password and ends my other sessions, keeping this one and other owners’', async () => {
    const current = (await signInOwner(t.deps, { email: ALICE.email, password: ALICE.password }))!
    const other = (await signInOwner(t.deps, { email: ALICE.email, password: ALICE.password }))!
    const bobs = (await signInOwner(t.deps, { email: BOB.email, password: BOB.password }))!
    expect(await change(current.value)).toEqual({ ok: true, endedSessions: 1 })
    expect(await findSession(t.sql, 'owner', current.value, t.deps.clock())).not.toBeNull()
    expect(await findSession(t.sql, 'owner', other.value, t.deps.clock())).toBeNull()
    expect(await findSession(t.sql, 'owner', bobs.value, t.deps.clock())).not.toBeNull()
    expect(await signInOwner(t.deps, { email: ALICE.email, password: ALICE.password })).toBeNull()
    expect(await signInOwner(t.deps, { email: ALICE.email, password: 'a-brand-new-password' })).not.toBeNull()
  })

  it.each([
    ['a wrong current password', { currentPassword: 'not-my-password' }, 'Your current password is not right.', 'current'],
    ['a short new password', { newPassword: 'short' }, 'The password is too short: use at least 12 characters.', 'new'],
    ['my email as the new password', { newPassword: 'alice@example.com' }, 'The password is your email address: choose another one.', 'new'],
    ['a confirmation that differs', { confirmPassword: 'another-new-password' }, 'The new password and its confirmation differ.', 'confirm'],
  ])('refuses %s, naming the field, and changes nothing', async (_name, over, problem, field) => {
    const current = (await signInOwner(t.deps, { email: ALICE.email, password: ALICE.password }))!
    const other = (await signInOwner(t.deps, { email: ALICE.email, password: ALICE.password }))!
    expect(await change(current.value, over)).toEqual({ ok: false, problem, field })
    expect(await findSession(t.sql, 'owner', other.value, t.deps.clock())).not.toBeNull()
    expect(await signInOwner(t.deps, { email: ALICE.email, password: ALICE.password })).not.toBeNull()
  })

  it('counts wrong current passwords as failed sign-ins', async () => {
    const current = (await signInOwner(t.deps, { email: ALICE.email, password: ALICE.password }))!
    for (let i = 0; i < 10; i++) await change(current.value, { currentPassword: `wrong-${i}` })
    await expect(change(current.value)).rejects.toMatchObject(gnapError('request_denied', 429))
  })
})

describe('grantEnd', () => {
  it('ends with the last period of a bounded interval, and never for an unbounded one or an item without', () => {
    const out = (interval?: string) =>
      outgoingAccess({ limits: interval ? { debitAmount: { value: '100', assetCode: 'USD', assetScale: 2 }, interval } : undefined })
    expect(grantEnd([out('R2/2026-01-01T00:00:00Z/P1M')])).toEqual(new Date('2026-04-01T00:00:00Z'))
    expect(grantEnd([out('R0/2026-01-01T00:00:00Z/P1W')])).toEqual(new Date('2026-01-08T00:00:00Z'))
    expect(grantEnd([out('R-1/P1M/2026-12-01T00:00:00Z')])).toEqual(new Date('2026-12-01T00:00:00Z'))
    expect(grantEnd([out('R/2026-01-01T00:00:00Z/P1M')])).toBeNull()
    expect(grantEnd([out()])).toBeNull()
    expect(grantEnd([out('R0/2026-01-01T00:00:00Z/P1W'), incomingAccess()])).toBeNull()
  })
})

describe('the approved page', () => {
  const approveWithoutFinish = async (ownerId: string | null) => {
    const pending = await requestPendingGrant(t, grantRequest({ interact: 'poll' }))
    const session = await startSession(t, pending)
    const interaction = (await findInteraction(t.sql, pending.interactionId, pending.nonce))!
    await decideInteraction(t.deps, interaction, 'approved', ownerId)
    return finish(t, pending, session)
  }

  it('links to the account page after an approval on the built-in consent screen', async () => {
    expect(await approveWithoutFinish(alice)).toEqual({
      kind: 'accepted',
      message: 'Approved. You can return to the app.',
      link: { href: `${t.deps.config.authServerUrl}account`, text: 'See and manage the apps you have connected' },
    })
  })

  it('has no such link after an identity provider’s approval: the owner has no account here', async () => {
    expect(await approveWithoutFinish(null)).toEqual({ kind: 'accepted', message: 'Approved. You can return to the app.' })
  })
})
