import { describe, expect, it } from 'vitest'
import { authAs, grantRequest, incomingAccess, introspect, outgoingAccess } from '../../testing/deps'
import { finish, issueNonInteractiveGrant, lastSegment, requestPendingGrant, startSession } from '../../testing/grant-flows'
import { useTestDeps } from '../../testing/use-test-deps'
import { csrfTokenFor } from '../../kernel/session/csrf'
import { decideConsent } from '../../protocol/consent/decide-consent'
import { continueGrant } from '../../protocol/grant/continue-grant'
import { parseGrantRequest } from '../../protocol/grant/grant.wire'
import { createOwner } from './create-owner'
import { signInOwner } from './sign-in-owner'
import { adminDeleteOwner, disableOwner, RemoveWalletAddressInputSchema, removeWalletAddress, SetOwnerStatusInputSchema } from './manage-owners'
import { getOwnerDetail } from './owner-views'
import { listConnectedApps, revokeFromAccount } from '../account/account'

// docs/protocol.md §6, "Wallet address identifiers": a grant naming another spelling of an owner's wallet address is
// the owner's everywhere, not only on the consent screen. Each spelling below is approved by Alice on the built-in
// consent screen; then /account lists it, its revoke works, and every console action on her revokes it.

const t = useTestDeps({ config: { identityServerUrl: null } })

const ADMIN = { kind: 'admin', id: 'admin-1', label: 'root@example.com', role: 'admin', tenantId: null } as const
const ALICE = { email: 'alice@example.com', name: 'Alice', password: 'alice-password-1', walletAddresses: ['https://wallet.example/alice'] }

const SPELLINGS = [
  ['an upper-case host', 'https://WALLET.EXAMPLE/alice'],
  ['a trailing slash', 'https://wallet.example/alice/'],
  ['the default port', 'https://wallet.example:443/alice'],
  ['a dot segment', 'https://wallet.example/./alice'],
  ['a climb back down', 'https://wallet.example/x/../alice'],
  ['an encoded unreserved character', 'https://wallet.example/%61lice'],
  ['lower-case hex in a resource below the address', 'https://wallet.example/alice/incoming-payments/a%2fb'],
] as const

/** Alice approves a grant naming `identifier` on the consent screen; returns its id and its issued token. */
async function approvedByAlice(aliceSession: string, identifier: string): Promise<{ grantId: string; token: string }> {
  // As the route hands it over: parsed from the request body (docs/protocol.md §2.1 step 2).
  const { access, client, interact } = grantRequest({ access: [outgoingAccess({ identifier })] })
  const pending = await requestPendingGrant(t, parseGrantRequest({ access_token: { access }, client, interact }))
  const interactionSession = await startSession(t, pending)
  const ids = { interactionId: pending.interactionId, nonce: pending.nonce, interactionSession, ownerSession: aliceSession }
  const decided = await decideConsent(t.deps, { ...ids, csrf: csrfTokenFor(aliceSession), choice: 'approve' })
  expect(decided).toMatchObject({ kind: 'redirect' })
  const finished = await finish(t, pending, interactionSession)
  if (finished.kind !== 'redirect') throw new Error('expected the finish redirect')
  t.clock.advance(t.deps.config.waitSeconds)
  const response = await continueGrant(t.deps, {
    continueId: pending.continueId,
    interactRef: new URL(finished.location).searchParams.get('interact_ref'),
    auth: authAs(pending.continueToken),
  })
  const grant = await t.db.grant.findUniqueOrThrow({ where: { continueId: lastSegment(response.continue.uri) } })
  return { grantId: grant.id, token: response.access_token!.value }
}

async function alice(walletAddresses = ALICE.walletAddresses): Promise<{ id: string; session: string }> {
  const { id } = await createOwner(t.sql, { ...ALICE, walletAddresses })
  const session = await signInOwner(t.deps, { email: ALICE.email, password: ALICE.password })
  return { id, session: session!.value }
}

const active = async (token: string) => ((await introspect(t.deps, { access_token: token })) as { active: boolean }).active

describe.each(SPELLINGS)('a grant naming %s (%s)', (_name, identifier) => {
  it('is stored in the canonical form, listed on /account and revoked from there', async () => {
    const a = await alice()
    const { grantId, token } = await approvedByAlice(a.session, identifier)
    const [item] = await t.db.accessItem.findMany({ where: { grantId } })
    expect(item?.identifier).not.toMatch(/[A-Z]{2}|:443|\/\.|%[0-9a-f]{2}|\/$/)
    expect((await listConnectedApps(t.deps, a.id)).apps.map((app) => app.grantId)).toEqual([grantId])
    expect((await getOwnerDetail(t.deps, a.id, ADMIN)).grants.map((g) => g.id)).toEqual([grantId])
    expect(await revokeFromAccount(t.deps, a.id, grantId)).toBe('revoked')
    expect(await active(token)).toBe(false)
  })

  it('is revoked when the administrator disables Alice with her grants, and its token introspects inactive', async () => {
    const a = await alice()
    const { token } = await approvedByAlice(a.session, identifier)
    expect(await disableOwner(t.deps, { ...SetOwnerStatusInputSchema.parse({ ownerId: a.id, revokeGrants: true }), actor: ADMIN })).toMatchObject({
      revokedGrants: 1,
    })
    expect(await active(token)).toBe(false)
  })

  it('is revoked when her wallet address is removed with its grants (named in yet another spelling)', async () => {
    const a = await alice(['https://wallet.example/alice', 'https://wallet.example/savings'])
    const { token } = await approvedByAlice(a.session, identifier)
    const change = { ownerId: a.id, walletAddress: 'https://Wallet.Example/alice/', revokeGrants: true }
    expect(await removeWalletAddress(t.deps, { ...RemoveWalletAddressInputSchema.parse(change), actor: ADMIN })).toMatchObject({ revokedGrants: 1 })
    expect(await active(token)).toBe(false)
  })

  it('is revoked when the administrator deletes Alice', async () => {
    const a = await alice()
    const { token } = await approvedByAlice(a.session, identifier)
    expect(await adminDeleteOwner(t.deps, { ownerId: a.id, actor: ADMIN })).toMatchObject({ revokedGrants: 1 })
    expect(await active(token)).toBe(false)
  })
})

describe('the client of a grant', () => {
  it('is stored in the canonical form of its wallet address, as blocks and the console name it', async () => {
    const g = await issueNonInteractiveGrant(t, { client: 'https://Wallet.Example:443/test-app/' })
    expect((await t.db.grant.findUniqueOrThrow({ where: { continueId: g.continueId } })).client).toBe('https://wallet.example/test-app')
  })
})

describe('the introspection of a canonical grant', () => {
  it('matches a resource server asking with another spelling of the same identifier', async () => {
    const g = await issueNonInteractiveGrant(t, { access: [incomingAccess({ identifier: 'https://wallet.example/alice' })] })
    const answer = (await introspect(t.deps, {
      access_token: g.tokenValue,
      access: [{ type: 'incoming-payment', actions: ['create'], identifier: 'https://Wallet.Example:443/alice/' }],
    })) as { active: boolean; access?: unknown[] }
    expect(answer).toMatchObject({ active: true, access: [{ identifier: 'https://wallet.example/alice' }] })
  })
})
