import { describe, expect, it } from 'vitest'
import { authAs, grantRequest, incomingAccess, outgoingAccess, type TestDeps } from '../../testing/deps'
import { lastSegment } from '../../testing/grant-flows'
import { useTestDeps } from '../../testing/use-test-deps'
import { csrfTokenFor } from '../../kernel/session/csrf'
import { OWNER_TENANT_DELETED } from '../../kernel/errors'
import { createOwner } from '../../operator/owner/create-owner'
import { signInOwner } from '../../operator/owner/sign-in-owner'
import {
  accountSession,
  findConnectedApp,
  listConnectedApps,
  listUnapprovedClients,
  ownerHistory,
  revokeClientFromAccount,
  revokeFromAccount,
} from '../../operator/account/account'
import { requestGrant } from '../grant/request-grant'
import { startInteraction } from '../interaction/start-interaction'
import { finishInteraction } from '../interaction/finish-interaction'
import { findInteraction } from '../interaction/interaction.repo'
import { decideInteraction } from '../interaction/decide-interaction'
import { getConsentScreen } from '../consent/get-consent-screen'
import { decideConsent } from '../consent/decide-consent'
import { createTenant, deleteTenant } from './tenants'
import { parseCreateTenant } from './tenant.wire'

// Owners belong to a tenant (docs/protocol.md §2.21): the built-in consent screen of a tenant signs in and lets decide
// only its own owners, and /account shows an owner only their tenant's grants. On both databases.

const t = useTestDeps({ config: { identityServerUrl: null } })

const A = '6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
const B = '0e2d4c6b-8a9f-4e1d-9c3b-5a7f9e1d3c5b'
const OPERATOR = '438fa74a-fa7d-4317-9ced-dde32ece1787'
const ALICE_WA = 'https://wallet.example/alice'
const BOB_WA = 'https://wallet.example/bob'
const ALICE = { email: 'alice@example.com', name: 'Alice', password: 'alice-password-1', walletAddresses: [ALICE_WA] }
const BOB = { email: 'bob@example.com', name: 'Bob', password: 'bob-password-12', walletAddresses: [BOB_WA] }
const CAROL = { email: 'carol@example.com', name: 'Carol', password: 'carol-password-1', walletAddresses: ['https://wallet.example/carol'] }

/** An owner of `tenantId` (null: the operator's or implicit tenant), set as the owner import and the console will. */
async function ownerOf(owner: typeof ALICE, tenantId: string | null): Promise<string> {
  const { id } = await createOwner(t.sql, owner)
  await t.sql.run(`UPDATE "Owner" SET "tenantId" = $1 WHERE "id" = $2`, [tenantId, id])
  return id
}

async function tenants(deps: TestDeps = t): Promise<void> {
  for (const id of [A, B]) await createTenant(deps.deps, parseCreateTenant({ id, apiSecret: `api-secret-${id}` }))
}

/** An interactive grant at `POST /{tenantId}` (null: `POST /`) whose interaction this browser started. */
async function started(tenantId: string | null, identifier = ALICE_WA) {
  const response = await requestGrant(t.deps, grantRequest({ access: [outgoingAccess({ identifier })] }), authAs(null), null, tenantId)
  const [, , interactionId, nonce] = new URL(response.interact!.redirect).pathname.split('/')
  const start = await startInteraction(t.deps, { interactionId: interactionId!, nonce: nonce! })
  if (start.kind !== 'redirect' || !start.session) throw new Error(`not started: ${JSON.stringify(start)}`)
  return {
    interactionId: interactionId!,
    nonce: nonce!,
    start,
    interactionSession: start.session.value,
    continueId: lastSegment(response.continue.uri),
  }
}

type Started = Awaited<ReturnType<typeof started>>

const signIn = (owner: typeof ALICE, grant?: { tenantId: string | null }, ip = '203.0.113.7') =>
  signInOwner(t.deps, { email: owner.email, password: owner.password, ip, ...(grant ? { grant } : {}) })

const screen = (g: Started, ownerSession: string | null) =>
  getConsentScreen(t.deps, { interactionId: g.interactionId, nonce: g.nonce, interactionSession: g.interactionSession, ownerSession })

const decide = (g: Started, ownerSession: string, choice = 'approve') =>
  decideConsent(t.deps, {
    interactionId: g.interactionId,
    nonce: g.nonce,
    interactionSession: g.interactionSession,
    ownerSession,
    csrf: csrfTokenFor(ownerSession),
    choice,
  })

const interactionState = async (g: Started) => (await t.db.interaction.findUniqueOrThrow({ where: { id: g.interactionId } })).state

describe("the built-in consent screen of a tenant signs in only that tenant's owners", () => {
  it('refuses another tenant’s owner with the right password exactly as a wrong password, and counts it the same', async () => {
    await tenants()
    await ownerOf(ALICE, A)
    const bob = await ownerOf(BOB, B)
    const g = await started(A)
    expect(await screen(g, null)).toMatchObject({ kind: 'sign-in', grant: { tenantId: A } })
    // Bob's right password on A's screen, and a wrong one: both null, no session written.
    expect(await signIn(BOB, { tenantId: A })).toBeNull()
    expect(await signIn({ ...BOB, password: 'not-bobs-password' }, { tenantId: A })).toBeNull()
    expect(await t.db.session.count()).toBe(0)
    // A disabled account of another tenant is not told apart either (its own screen would say it is disabled).
    await t.sql.run(`UPDATE "Owner" SET "status" = 'disabled' WHERE "id" = $1`, [bob])
    expect(await signIn(BOB, { tenantId: A })).toBeNull()
    await t.sql.run(`UPDATE "Owner" SET "status" = 'active' WHERE "id" = $1`, [bob])
    // Each counted against Bob's account from that address: after ten, his own tenant's screen is locked too.
    for (let i = 0; i < 7; i++) expect(await signIn(BOB, { tenantId: A })).toBeNull()
    await expect(signIn(BOB, { tenantId: B })).rejects.toMatchObject({ status: 429 })
    // Alice, A's owner, signs in there and approves.
    const alice = await signIn(ALICE, { tenantId: A })
    expect(alice).not.toBeNull()
    expect(await screen(g, alice!.value)).toMatchObject({ kind: 'consent', ownerName: 'Alice' })
    expect(await decide(g, alice!.value)).toMatchObject({ kind: 'redirect' })
    expect(await interactionState(g)).toBe('approved')
  })

  it('reads another tenant’s owner session as no session: the sign-in form, and a decision post is refused', async () => {
    await tenants()
    await ownerOf(ALICE, A)
    await ownerOf(BOB, B)
    // Bob is signed in (on /account, or on B's screen); A's grant even names his own wallet address.
    const bob = (await signIn(BOB))!.value
    expect((await signIn(BOB, { tenantId: B }))?.value).toBeTruthy()
    const g = await started(A, BOB_WA)
    expect(await screen(g, bob)).toMatchObject({ kind: 'sign-in' })
    for (const choice of ['approve', 'deny']) expect(await decide(g, bob, choice)).toMatchObject({ kind: 'page', status: 401 })
    expect(await interactionState(g)).toBe('pending')
    // On his own tenant's screen the same session decides.
    const own = await started(B, BOB_WA)
    expect(await screen(own, bob)).toMatchObject({ kind: 'consent', ownerName: 'Bob' })
    expect(await decide(own, bob, 'deny')).toMatchObject({ kind: 'redirect' })
    expect(await interactionState(own)).toBe('denied')
  })

  it('keeps owners with no tenant to the operator tenant’s grants, at POST / and POST /{operator id}', async () => {
    const deps = await t.reset({ config: { identityServerUrl: null, operatorTenant: { id: OPERATOR, apiSecret: 'admin-api-secret-0123456789' } } })
    await createTenant(deps.deps, parseCreateTenant({ id: OPERATOR, apiSecret: 'admin-api-secret-0123456789' }))
    await tenants(deps)
    await ownerOf(ALICE, A)
    await ownerOf(CAROL, null)
    const carol = (await signIn(CAROL))!.value
    for (const endpoint of [null, OPERATOR]) {
      const g = await started(endpoint, CAROL.walletAddresses[0])
      expect(await screen(g, carol)).toMatchObject({ kind: 'consent', ownerName: 'Carol' })
      expect(await signIn(ALICE, { tenantId: endpoint })).toBeNull()
    }
    const atA = await started(A, CAROL.walletAddresses[0])
    expect(await screen(atA, carol)).toMatchObject({ kind: 'sign-in' })
    expect(await signIn(CAROL, { tenantId: A })).toBeNull()
  })

  it('without OPERATOR_TENANT_ID, owners with no tenant are the implicit tenant’s: POST / only', async () => {
    await tenants()
    await ownerOf(CAROL, null)
    const g = await started(null, CAROL.walletAddresses[0])
    const carol = (await signIn(CAROL, { tenantId: null }))!.value
    expect(await screen(g, carol)).toMatchObject({ kind: 'consent' })
    expect(await screen(await started(A, CAROL.walletAddresses[0]), carol)).toMatchObject({ kind: 'sign-in' })
  })
})

/** A grant at `POST /{tenantId}` on Alice's wallet address, approved (by the tenant's identity provider or screen) and finished. */
async function approvedAt(tenantId: string | null): Promise<string> {
  const g = await started(tenantId)
  const interaction = await findInteraction(t.sql, g.interactionId, g.nonce)
  await decideInteraction(t.deps, interaction!, 'approved', null)
  await finishInteraction(t.deps, { interactionId: g.interactionId, nonce: g.nonce, session: g.interactionSession })
  return (await t.db.grant.findUniqueOrThrow({ where: { continueId: g.continueId } })).id
}

/** A grant needing no approval at `POST /{tenantId}`, on a resource below Alice's wallet address, from `client`. */
async function unapprovedAt(tenantId: string | null): Promise<string> {
  const request = grantRequest({ access: [incomingAccess({ identifier: `${ALICE_WA}/incoming-payments` })], interact: null })
  const response = await requestGrant(t.deps, request, authAs(null), null, tenantId)
  return (await t.db.grant.findUniqueOrThrow({ where: { continueId: lastSegment(response.continue.uri) } })).id
}

describe("/account shows an owner only their tenant's grants", () => {
  it('lists, counts and revokes A’s grants for A’s owner; another tenant’s grants on the same wallet address are not there', async () => {
    await tenants()
    const alice = await ownerOf(ALICE, A)
    const mine = await approvedAt(A)
    const mineUnapproved = await unapprovedAt(A)
    const theirs = await approvedAt(B)
    const theirsUnapproved = await unapprovedAt(B)
    await approvedAt(null)
    await unapprovedAt(null)

    expect((await listConnectedApps(t.deps, alice)).apps.map((a) => a.grantId)).toEqual([mine])
    expect(await listUnapprovedClients(t.deps, alice)).toMatchObject({ totalClients: 1, totalGrants: 1, clients: [{ grants: 1 }] })
    expect((await ownerHistory(t.deps, alice)).map((h) => h.what)).toEqual(['approved'])
    expect(await findConnectedApp(t.deps, alice, theirs)).toBeNull()
    expect(await findConnectedApp(t.deps, alice, theirsUnapproved)).toBeNull()
    // A forged id of another tenant's grant revokes nothing.
    expect(await revokeFromAccount(t.deps, alice, theirs)).toBe('not-found')
    expect(await revokeClientFromAccount(t.deps, alice, 'https://wallet.example/test-app')).toBe(1)
    const states = await t.db.grant.findMany({ select: { id: true, state: true, finalizedReason: true } })
    const revoked = states.filter((s) => s.finalizedReason === 'revoked').map((s) => s.id)
    expect(revoked).toEqual([mineUnapproved])
    expect(await revokeFromAccount(t.deps, alice, mine)).toBe('revoked')
  })

  it('an owner with no tenant sees the grants of POST / and, with an operator tenant, of POST /{operator id}; not another tenant’s', async () => {
    const deps = await t.reset({ config: { identityServerUrl: null, operatorTenant: { id: OPERATOR, apiSecret: 'admin-api-secret-0123456789' } } })
    await createTenant(deps.deps, parseCreateTenant({ id: OPERATOR, apiSecret: 'admin-api-secret-0123456789' }))
    await tenants(deps)
    const alice = await ownerOf(ALICE, null)
    const atRoot = await approvedAt(null)
    const atOperator = await approvedAt(OPERATOR)
    await approvedAt(A)
    await unapprovedAt(B)
    expect((await listConnectedApps(t.deps, alice)).apps.map((a) => a.grantId).sort()).toEqual([atRoot, atOperator].sort())
    expect(await listUnapprovedClients(t.deps, alice)).toMatchObject({ totalClients: 0, totalGrants: 0 })
  })
})

describe("a deleted tenant's owners", () => {
  it('are signed out at once, told why only after the right password, and never signed in again', async () => {
    await tenants()
    await ownerOf(ALICE, A)
    await ownerOf(BOB, B)
    const aliceSession = await signIn(ALICE)
    const bobSession = await signIn(BOB)
    expect(await accountSession(t.deps, aliceSession!.value)).toMatchObject({ owner: { email: ALICE.email } })

    await deleteTenant(t.deps, A, new Date('2026-11-28T08:00:00Z'))

    // The session that was open reads as signed out; B's owner is not touched.
    expect(await accountSession(t.deps, aliceSession!.value)).toBeNull()
    expect(await accountSession(t.deps, bobSession!.value)).toMatchObject({ owner: { email: BOB.email } })
    // A wrong password learns nothing new; the right one is told, and no session is opened.
    expect(await signIn({ ...ALICE, password: 'not-her-password' })).toBeNull()
    const sessions = await t.db.session.count()
    await expect(signIn(ALICE)).rejects.toMatchObject({ status: 403, code: 'request_denied', message: OWNER_TENANT_DELETED })
    expect(await t.db.session.count()).toBe(sessions)
    expect(await signIn(BOB)).not.toBeNull()
  })
})
