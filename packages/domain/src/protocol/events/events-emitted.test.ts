import { beforeEach, describe, expect, it } from 'vitest'
import { TEST_CLIENT, TEST_OWNER, authAs, failWrites, gnapError, grantRequest, incomingAccess, outgoingAccess, quoteAccess } from '../../testing/deps'
import {
  approvedGrant,
  finish,
  interact,
  issueInteractiveGrant,
  issueNonInteractiveGrant,
  lastSegment,
  requestPendingGrant,
  startSession,
  type FinishedGrant,
  type PendingGrant,
} from '../../testing/grant-flows'
import { addWebhookEndpoint, type TestEndpoint } from '../../testing/webhook-delivery'
import { generateClientKey } from '../../testing/client-keys'
import { useTestDeps } from '../../testing/use-test-deps'
import type { AccessItem } from '../access/access.wire'
import { jwkThumbprint } from '../client/client-instance'
import { blockClient, unblockClient } from '../../operator/client-block/block-client'
import { requestGrant } from '../grant/request-grant'
import { continueGrant } from '../grant/continue-grant'
import { cancelGrant } from '../grant/cancel-grant'
import { expireOverdueGrants } from '../grant/expire-grants'
import { rotateAccessToken } from '../access-token/rotate-access-token'
import { revokeAccessToken } from '../access-token/revoke-access-token'
import { adminRevokeGrant } from '../../operator/admin/admin-revoke-grant'
import { adminRevokeToken } from '../../operator/admin/admin-revoke-token'
import { revokeFromAccount } from '../../operator/account/account'
import { createOwner } from '../../operator/owner/create-owner'
import { removeWalletAddress } from '../../operator/owner/manage-owners'
import { findInteraction } from '../interaction/interaction.repo'
import { decideInteraction } from '../interaction/decide-interaction'
import { startInteraction } from '../interaction/start-interaction'
import { RETRY_WINDOW_MS } from './delivery-schedule'
import { WEBHOOK_EVENT_TYPES, eventBodySchema, type AnyEventType } from './webhook-events'

// Every state change of the grant and token lifecycle writes its webhook event in its own transaction (docs/webhooks.md):
// driven through the real use cases, asserted on the stored WebhookEvent rows (parsed with the strict schemas).

const t = useTestDeps()

// An endpoint subscribed to every type, so that every event is written: one no endpoint would receive is not
// (outbox.repo.test.ts). Tests about deliveries look at the other endpoints' (`deliveriesElsewhere`).
let everyType: TestEndpoint
beforeEach(async () => {
  everyType = await addWebhookEndpoint(t, { eventTypes: WEBHOOK_EVENT_TYPES })
})
const deliveriesElsewhere = () => ({ where: { endpointId: { not: everyType.id } } })

const ADMIN = { kind: 'admin', id: 'admin-1', label: 'admin@example.com', role: 'operator', tenantId: null } as const
const API_KEY = { kind: 'apiKey', id: 'key-1', label: 'billing back end', role: 'operator', tenantId: null } as const
const CLIENT = { wallet_address: TEST_CLIENT }
const OTHER_CLIENT = 'https://wallet.example/other-app'
const ALICE = { email: 'alice@example.com', name: 'Alice', password: 'alice-password-1', walletAddresses: [TEST_OWNER] }

interface StoredEvent {
  id: string
  type: string
  grantId: string | null
  createdAt: Date
  payload: string
  body: { id: string; type: string; timestamp: string; data: Record<string, unknown> }
}

/** The stored events (of one type), oldest first, each body parsed with its type's strict schema. */
async function storedEvents(type?: AnyEventType): Promise<StoredEvent[]> {
  const rows = await t.db.webhookEvent.findMany({ where: type ? { type } : {}, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })
  return rows.map((row) => ({ ...row, body: eventBodySchema(row.type as AnyEventType).parse(JSON.parse(row.payload)) as StoredEvent['body'] }))
}

const typesOf = async () => (await storedEvents()).map((e) => e.type)

/** The one event of this type; fails when there is none or more than one. */
async function onlyEvent(type: AnyEventType): Promise<StoredEvent> {
  const events = await storedEvents(type)
  expect(events).toHaveLength(1)
  const [event] = events
  expect(event!.body).toMatchObject({ id: event!.id, type, timestamp: event!.createdAt.toISOString() })
  return event!
}

/** No stored payload carries any of these secrets (token values, continuation tokens, interact_refs). */
async function expectNoSecrets(...secrets: (string | null | undefined)[]): Promise<void> {
  const text = (await storedEvents()).map((e) => e.payload).join('\n')
  for (const secret of secrets) {
    expect(secret).toBeTruthy()
    expect(text).not.toContain(secret!)
  }
}

const grantIdOf = async (continueId: string) => (await t.db.grant.findUniqueOrThrow({ where: { continueId } })).id
const grantPart = (id: string, access: AccessItem[], client: object = CLIENT) => ({ id, client, access })
const tokenRow = (managementId: string) => t.db.accessToken.findUniqueOrThrow({ where: { managementId } })

const cancel = (g: { continueId: string; continueToken: string }) => cancelGrant(t.deps, { continueId: g.continueId, auth: authAs(g.continueToken) })
const rotate = (managementId: string, value: string) => rotateAccessToken(t.deps, { managementId, auth: authAs(value) })
const revokeToken = (managementId: string, value: string) => revokeAccessToken(t.deps, { managementId, auth: authAs(value) })
const block = (walletAddress = TEST_CLIENT) => blockClient(t.deps, { walletAddress, reason: 'its signing key leaked', actor: ADMIN })

/** POST /continue/{id} with the grant's interact_ref once the wait has passed. */
async function continueApproved(g: FinishedGrant) {
  t.clock.advance(t.deps.config.waitSeconds)
  return continueGrant(t.deps, { continueId: g.continueId, interactRef: g.interactRef, auth: authAs(g.continueToken) })
}

/** The owner signed in on the built-in consent screen approves (or denies), then the browser comes back to finish. */
async function decideAsOwner(pending: PendingGrant, ownerId: string, decision: 'approved' | 'denied' = 'approved') {
  const session = await startSession(t, pending)
  await decideInteraction(t.deps, (await findInteraction(t.sql, pending.interactionId, pending.nonce))!, decision, ownerId)
  return finish(t, pending, session)
}

const subjectRequest = (access: AccessItem[] = []) => ({ ...grantRequest({ access }), subject: [TEST_OWNER] })

describe('grant.issued', () => {
  it('is written when a non-interactive grant is issued at once: its token’s management id, the access as the contract writes it, the client', async () => {
    const g = await issueNonInteractiveGrant(t)
    const event = await onlyEvent('grant.issued')
    const grantId = await grantIdOf(g.continueId)
    expect(event).toMatchObject({ grantId, createdAt: t.clock.now })
    expect(event.body.data).toEqual({
      grant: grantPart(grantId, [incomingAccess()]),
      access_token: { manage_id: g.managementId },
      actor: { type: 'client' },
    })
    // The same access items the grant response's access_token carries.
    expect((event.body.data.grant as { access: unknown }).access).toEqual(g.response.access_token?.access)
    expect(await typesOf()).toEqual(['grant.issued'])
    await expectNoSecrets(g.tokenValue, g.continueToken)
  })

  it('names a directed identity by its key’s thumbprint', async () => {
    const key = generateClientKey()
    const g = await issueNonInteractiveGrant(t, { client: { jwk: key.jwk } })
    const event = await onlyEvent('grant.issued')
    expect(event.body.data.grant).toEqual(
      grantPart(await grantIdOf(g.continueId), [incomingAccess()], { key_thumbprint: await jwkThumbprint(key.jwk) }),
    )
  })

  it('is written when an approved grant is continued with its interact_ref, after grant.approved', async () => {
    const approved = await approvedGrant(t)
    const response = await continueApproved(approved)
    const managementId = lastSegment(response.access_token!.manage)
    const grantId = await grantIdOf(approved.continueId)
    expect(await typesOf()).toEqual(['grant.approved', 'grant.issued'])
    const event = await onlyEvent('grant.issued')
    expect(event).toMatchObject({ grantId, createdAt: t.clock.now })
    expect(event.body.data).toEqual({
      grant: grantPart(grantId, [outgoingAccess()]),
      access_token: { manage_id: managementId },
      actor: { type: 'client' },
    })
    await expectNoSecrets(response.access_token!.value, approved.continueToken, approved.interactRef)
  })

  it('is written once for concurrent continuations with one interact_ref', async () => {
    const approved = await approvedGrant(t)
    t.clock.advance(t.deps.config.waitSeconds)
    const continueOnce = () =>
      continueGrant(t.deps, { continueId: approved.continueId, interactRef: approved.interactRef, auth: authAs(approved.continueToken) })
    const results = await Promise.allSettled([continueOnce(), continueOnce(), continueOnce()])
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    expect(await storedEvents('grant.issued')).toHaveLength(1)
  })
})

describe('subject.confirmed', () => {
  it('is written with grant.issued when a subject-only grant is continued: no token, the subject, the owner who confirmed it', async () => {
    const owner = await createOwner(t.sql, ALICE)
    const pending = await requestPendingGrant(t, subjectRequest())
    const finished = await decideAsOwner(pending, owner.id)
    const interactRef = finished.kind === 'redirect' ? new URL(finished.location).searchParams.get('interact_ref') : null
    const response = await continueApproved({ ...pending, interactRef } as FinishedGrant)
    expect(response.access_token).toBeUndefined()
    const grantId = await grantIdOf(pending.continueId)
    expect(await typesOf()).toEqual(['grant.approved', 'grant.issued', 'subject.confirmed'])
    expect((await onlyEvent('grant.issued')).body.data).toEqual({ grant: grantPart(grantId, []), actor: { type: 'client' } })
    const event = await onlyEvent('subject.confirmed')
    expect(event).toMatchObject({ grantId, createdAt: t.clock.now })
    expect(event.body.data).toEqual({
      grant: grantPart(grantId, []),
      sub_ids: [{ id: TEST_OWNER, format: 'uri' }],
      actor: { type: 'owner', id: owner.id },
    })
    await expectNoSecrets(pending.continueToken, interactRef)
  })

  it('comes with the token of a subject request that also asked for access; the owner has no id when the identity provider decided', async () => {
    const g = await interact(t, await requestPendingGrant(t, subjectRequest([outgoingAccess()])))
    const response = await continueApproved(g)
    const grantId = await grantIdOf(g.continueId)
    expect((await onlyEvent('grant.issued')).body.data).toMatchObject({ access_token: { manage_id: lastSegment(response.access_token!.manage) } })
    expect((await onlyEvent('subject.confirmed')).body.data).toEqual({
      grant: grantPart(grantId, [outgoingAccess()]),
      sub_ids: [{ id: TEST_OWNER, format: 'uri' }],
      actor: { type: 'owner' },
    })
  })
})

describe('grant.approved and grant.rejected', () => {
  it('are written when the finish moves the grant, naming the owner (no id when the identity provider decided)', async () => {
    const approved = await approvedGrant(t)
    const rejected = await interact(t, await requestPendingGrant(t), 'reject')
    const approvedEvent = await onlyEvent('grant.approved')
    const approvedId = await grantIdOf(approved.continueId)
    expect(approvedEvent).toMatchObject({ grantId: approvedId, createdAt: t.clock.now })
    expect(approvedEvent.body.data).toEqual({ grant: grantPart(approvedId, [outgoingAccess()]), actor: { type: 'owner' } })
    const rejectedId = await grantIdOf(rejected.continueId)
    expect((await onlyEvent('grant.rejected')).body.data).toEqual({ grant: grantPart(rejectedId, [outgoingAccess()]), actor: { type: 'owner' } })
    await expectNoSecrets(approved.interactRef, approved.continueToken, rejected.continueToken)
  })

  it('name the owner by id when they decided on the built-in consent screen', async () => {
    const owner = await createOwner(t.sql, ALICE)
    await decideAsOwner(await requestPendingGrant(t), owner.id, 'approved')
    await decideAsOwner(await requestPendingGrant(t), owner.id, 'denied')
    expect((await onlyEvent('grant.approved')).body.data.actor).toEqual({ type: 'owner', id: owner.id })
    expect((await onlyEvent('grant.rejected')).body.data.actor).toEqual({ type: 'owner', id: owner.id })
  })

  it('are not written again by a replayed finish', async () => {
    const approved = await approvedGrant(t)
    expect(await finish(t, approved, approved.session)).toMatchObject({ kind: 'page', status: 404 })
    expect(await typesOf()).toEqual(['grant.approved'])
  })
})

describe('grant.expired', () => {
  const overdue = async (): Promise<PendingGrant> => {
    const pending = await requestPendingGrant(t)
    t.clock.advance(t.deps.config.interactionExpirySeconds + 1)
    return pending
  }

  it.each<[string, (g: PendingGrant, grantId: string) => Promise<unknown>]>([
    [
      'a continuation',
      (g) =>
        expect(continueGrant(t.deps, { continueId: g.continueId, interactRef: null, auth: authAs(g.continueToken) })).rejects.toMatchObject(
          gnapError('invalid_interaction', 401),
        ),
    ],
    ['the interaction page', (g) => startInteraction(t.deps, { interactionId: g.interactionId, nonce: g.nonce })],
    ['the client’s cancel', (g) => cancel(g)],
    [
      'an administrator’s revoke',
      (_g, grantId) => expect(adminRevokeGrant(t.deps, { grantId, actor: ADMIN })).rejects.toMatchObject({ code: 'conflict' }),
    ],
    ['the sweep', () => expireOverdueGrants(t.deps)],
  ])('is written, by retention, when %s finds the interaction ran out; a second touch writes none', async (_name, touch) => {
    const g = await overdue()
    const grantId = await grantIdOf(g.continueId)
    await touch(g, grantId)
    const event = await onlyEvent('grant.expired')
    expect(event).toMatchObject({ grantId, createdAt: t.clock.now })
    expect(event.body.data).toEqual({ grant: grantPart(grantId, [outgoingAccess()]), actor: { type: 'retention' } })
    expect(await t.db.grant.findUniqueOrThrow({ where: { id: grantId } })).toMatchObject({ state: 'finalized', finalizedReason: 'expired' })
    await expireOverdueGrants(t.deps)
    await startInteraction(t.deps, { interactionId: g.interactionId, nonce: g.nonce })
    await cancel(g)
    expect(await typesOf()).toEqual(['grant.expired'])
    await expectNoSecrets(g.continueToken)
  })

  it('is written for each grant the sweep finalizes, and for none it leaves', async () => {
    const late = [await requestPendingGrant(t), await requestPendingGrant(t)]
    t.clock.advance(t.deps.config.interactionExpirySeconds + 1)
    const fresh = await requestPendingGrant(t)
    expect(await expireOverdueGrants(t.deps)).toBe(2)
    const ids = await Promise.all(late.map((g) => grantIdOf(g.continueId)))
    expect((await storedEvents('grant.expired')).map((e) => e.grantId).sort()).toEqual(ids.sort())
    expect(await t.db.grant.findUniqueOrThrow({ where: { continueId: fresh.continueId } })).toMatchObject({ state: 'pending' })
  })

  it('or grant.approved, never both, when a finish and the sweep meet at the interaction’s last instant', async () => {
    for (let round = 0; round < 5; round++) {
      const g = await requestPendingGrant(t, grantRequest({ interact: 'poll' }))
      const session = await startSession(t, g)
      await interactDecision(g)
      t.clock.advance(t.deps.config.interactionExpirySeconds)
      const later = { ...t.deps, clock: () => new Date(t.clock.now.getTime() + 1) }
      await Promise.all([finish(t, g, session), expireOverdueGrants(later)])
      const grantId = await grantIdOf(g.continueId)
      const row = await t.db.grant.findUniqueOrThrow({ where: { id: grantId } })
      const types = (await t.db.webhookEvent.findMany({ where: { grantId } })).map((e) => e.type)
      expect(types).toEqual([row.state === 'approved' ? 'grant.approved' : 'grant.expired'])
      t.clock.advance(1)
    }
  })
})

/** The identity provider records the owner's approval (the grant moves only at the finish). */
async function interactDecision(g: PendingGrant): Promise<void> {
  const interaction = (await findInteraction(t.sql, g.interactionId, g.nonce))!
  await decideInteraction(t.deps, interaction, 'approved', null)
}

describe('grant.revoked', () => {
  it('is written when the client cancels: with the live tokens revoked, and no access_token.revoked of its own', async () => {
    const g = await issueNonInteractiveGrant(t)
    await cancel(g)
    const grantId = await grantIdOf(g.continueId)
    const event = await onlyEvent('grant.revoked')
    expect(event).toMatchObject({ grantId, createdAt: t.clock.now })
    expect(event.body.data).toEqual({ grant: grantPart(grantId, [incomingAccess()]), revoked_tokens: 1, actor: { type: 'client' } })
    expect(await typesOf()).toEqual(['grant.issued', 'grant.revoked'])
    await expectNoSecrets(g.tokenValue, g.continueToken)
  })

  it('counts no token for a pending grant cancelled', async () => {
    const g = await requestPendingGrant(t)
    await cancel(g)
    expect((await onlyEvent('grant.revoked')).body.data).toMatchObject({ revoked_tokens: 0, actor: { type: 'client' } })
  })

  it('names the owner who revoked on their account page', async () => {
    const owner = await createOwner(t.sql, ALICE)
    const g = await issueInteractiveGrant(t)
    const grantId = await grantIdOf(g.continueId)
    expect(await revokeFromAccount(t.deps, owner.id, grantId)).toBe('revoked')
    expect((await onlyEvent('grant.revoked')).body.data).toEqual({
      grant: grantPart(grantId, [outgoingAccess()]),
      revoked_tokens: 1,
      actor: { type: 'owner', id: owner.id },
    })
  })

  it.each([
    ['an administrator', ADMIN, { type: 'administrator', id: 'admin-1' }],
    ['an API key', API_KEY, { type: 'api_key', id: 'key-1' }],
  ] as const)('names %s revoking in the console or the operator API', async (_name, actor, expected) => {
    const g = await issueNonInteractiveGrant(t)
    const grantId = await grantIdOf(g.continueId)
    await adminRevokeGrant(t.deps, { grantId, actor })
    expect((await onlyEvent('grant.revoked')).body.data).toEqual({
      grant: grantPart(grantId, [incomingAccess()]),
      revoked_tokens: 1,
      actor: expected,
    })
  })

  it('names the administrator who removed a wallet address with its grants', async () => {
    const owner = await createOwner(t.sql, { ...ALICE, walletAddresses: [TEST_OWNER, 'https://wallet.example/alice-savings'] })
    const g = await issueInteractiveGrant(t)
    await removeWalletAddress(t.deps, { ownerId: owner.id, walletAddress: TEST_OWNER, revokeGrants: true, actor: ADMIN })
    expect((await onlyEvent('grant.revoked')).body.data).toMatchObject({
      grant: { id: await grantIdOf(g.continueId) },
      revoked_tokens: 1,
      actor: { type: 'administrator', id: 'admin-1' },
    })
  })

  it('is written for each grant a block revokes, with its own tokens, and none for another client', async () => {
    const issued = await issueNonInteractiveGrant(t)
    const rotated = await issueNonInteractiveGrant(t, { access: [incomingAccess(), quoteAccess()] })
    await rotate(rotated.managementId, rotated.tokenValue)
    const pending = await requestPendingGrant(t)
    const rejected = await interact(t, await requestPendingGrant(t), 'reject')
    const other = await issueNonInteractiveGrant(t, { client: OTHER_CLIENT })

    expect(await block()).toMatchObject({ revokedGrants: 3, revokedTokens: 2 })
    const revoked = await storedEvents('grant.revoked')
    const byGrant = Object.fromEntries(revoked.map((e) => [e.grantId, e.body.data]))
    const actor = { type: 'administrator', id: 'admin-1' }
    expect(byGrant).toEqual({
      [await grantIdOf(issued.continueId)]: { grant: grantPart(await grantIdOf(issued.continueId), [incomingAccess()]), revoked_tokens: 1, actor },
      [await grantIdOf(rotated.continueId)]: {
        grant: grantPart(await grantIdOf(rotated.continueId), [incomingAccess(), quoteAccess()]),
        revoked_tokens: 1,
        actor,
      },
      [await grantIdOf(pending.continueId)]: { grant: grantPart(await grantIdOf(pending.continueId), [outgoingAccess()]), revoked_tokens: 0, actor },
    })
    expect(byGrant[await grantIdOf(rejected.continueId)]).toBeUndefined()
    expect(byGrant[await grantIdOf(other.continueId)]).toBeUndefined()
    expect(await storedEvents('access_token.revoked')).toEqual([])
    await expectNoSecrets(issued.tokenValue, rotated.tokenValue, pending.continueToken, other.tokenValue)
  })
})

describe('access_token.rotated', () => {
  it('is written with the new token and the one it replaced, by their management ids only', async () => {
    const g = await issueNonInteractiveGrant(t)
    const { access_token } = await rotate(g.managementId, g.tokenValue)
    const grantId = await grantIdOf(g.continueId)
    const event = await onlyEvent('access_token.rotated')
    expect(event).toMatchObject({ grantId, createdAt: t.clock.now })
    expect(event.body.data).toEqual({
      grant: grantPart(grantId, [incomingAccess()]),
      access_token: { manage_id: lastSegment(access_token.manage) },
      previous_access_token: { manage_id: g.managementId },
      actor: { type: 'client' },
    })
    await expectNoSecrets(g.tokenValue, access_token.value, g.continueToken)
  })
})

describe('access_token.revoked', () => {
  it('is written when the client revokes its token, and not again for a token already revoked', async () => {
    const g = await issueNonInteractiveGrant(t)
    await revokeToken(g.managementId, g.tokenValue)
    await revokeToken(g.managementId, g.tokenValue)
    const grantId = await grantIdOf(g.continueId)
    const event = await onlyEvent('access_token.revoked')
    expect(event).toMatchObject({ grantId, createdAt: t.clock.now })
    expect(event.body.data).toEqual({
      grant: grantPart(grantId, [incomingAccess()]),
      access_token: { manage_id: g.managementId },
      actor: { type: 'client' },
    })
    await expectNoSecrets(g.tokenValue, g.continueToken)
  })

  it.each([
    ['an administrator', ADMIN, { type: 'administrator', id: 'admin-1' }],
    ['an API key', API_KEY, { type: 'api_key', id: 'key-1' }],
  ] as const)('names %s revoking one token', async (_name, actor, expected) => {
    const g = await issueNonInteractiveGrant(t)
    await adminRevokeToken(t.deps, { managementId: g.managementId.toUpperCase(), actor })
    expect((await onlyEvent('access_token.revoked')).body.data).toEqual({
      grant: grantPart(await grantIdOf(g.continueId), [incomingAccess()]),
      access_token: { manage_id: g.managementId },
      actor: expected,
    })
  })
})

describe('client.blocked and client.unblocked', () => {
  it('are written by the console’s block and unblock, with the grants revoked, and no grant', async () => {
    await issueNonInteractiveGrant(t)
    await block()
    await unblockClient(t.deps, { walletAddress: TEST_CLIENT, actor: API_KEY })
    const blocked = await onlyEvent('client.blocked')
    expect(blocked.grantId).toBeNull()
    expect(blocked.body.data).toEqual({ client: CLIENT, revoked_grants: 1, actor: { type: 'administrator', id: 'admin-1' } })
    const unblocked = await onlyEvent('client.unblocked')
    expect(unblocked.grantId).toBeNull()
    expect(unblocked.body.data).toEqual({ client: CLIENT, actor: { type: 'api_key', id: 'key-1' } })
  })

  it('are not written by a block or an unblock refused', async () => {
    await block()
    await expect(block()).rejects.toMatchObject({ code: 'conflict' })
    await expect(unblockClient(t.deps, { walletAddress: OTHER_CLIENT, actor: ADMIN })).rejects.toMatchObject({ code: 'conflict' })
    expect(await typesOf()).toEqual(['client.blocked'])
  })
})

describe('outbox atomicity: an event commits with its change, or neither does', () => {
  it('writes no event and no delivery for a revocation that rolls back', async () => {
    await addWebhookEndpoint(t, { eventTypes: ['grant.revoked'] })
    const g = await issueNonInteractiveGrant(t)
    await failWrites(t, 'AccessToken', 'UPDATE')
    await expect(cancel(g)).rejects.toThrow('injected failure')
    expect(await storedEvents('grant.revoked')).toEqual([])
    expect(await t.db.webhookDelivery.count(deliveriesElsewhere())).toBe(0)
    expect(await t.db.grant.findUniqueOrThrow({ where: { continueId: g.continueId } })).toMatchObject({ finalizedReason: 'issued' })
  })

  it('rolls the event back when a later statement of the same transaction fails (the audit row after it)', async () => {
    await addWebhookEndpoint(t, { eventTypes: ['grant.revoked', 'client.blocked'] })
    const g = await issueNonInteractiveGrant(t)
    await failWrites(t, 'AuditLog')
    await expect(adminRevokeGrant(t.deps, { grantId: await grantIdOf(g.continueId), actor: ADMIN })).rejects.toThrow('injected failure')
    await expect(block()).rejects.toThrow('injected failure')
    expect(await typesOf()).toEqual(['grant.issued'])
    expect(await t.db.webhookDelivery.count(deliveriesElsewhere())).toBe(0)
    expect(await tokenRow(g.managementId)).toMatchObject({ state: 'active' })
    expect(await t.db.clientBlock.count()).toBe(0)
  })

  it('rolls the change back when its delivery row cannot be written', async () => {
    await addWebhookEndpoint(t, { eventTypes: ['access_token.rotated'] })
    const g = await issueNonInteractiveGrant(t)
    await failWrites(t, 'WebhookDelivery')
    await expect(rotate(g.managementId, g.tokenValue)).rejects.toThrow('injected failure')
    expect(await tokenRow(g.managementId)).toMatchObject({ state: 'active' })
    expect(await t.db.accessToken.count()).toBe(1)
    expect(await typesOf()).toEqual(['grant.issued'])
  })

  // No change without its event: each use case, with the event's insert failing, changes nothing.
  it.each<[string, () => Promise<() => Promise<unknown>>, () => Promise<void>]>([
    [
      'a non-interactive grant request',
      async () => () => requestGrant(t.deps, grantRequest({ access: [incomingAccess()], interact: null }), authAs(null), null),
      async () => expect(await t.db.grant.count()).toBe(0),
    ],
    [
      'a finish',
      async () => {
        const g = await requestPendingGrant(t)
        const session = await startSession(t, g)
        await interactDecision(g)
        return () => finish(t, g, session)
      },
      async () => {
        expect(await t.db.grant.findFirstOrThrow({ include: { interaction: true } })).toMatchObject({
          state: 'pending',
          interaction: { finishedAt: null },
        })
      },
    ],
    [
      'a continuation',
      async () => {
        const g = await approvedGrant(t)
        await t.db.webhookEvent.deleteMany()
        t.clock.advance(t.deps.config.waitSeconds)
        return () => continueGrant(t.deps, { continueId: g.continueId, interactRef: g.interactRef, auth: authAs(g.continueToken) })
      },
      async () => {
        expect(await t.db.grant.findFirstOrThrow({ include: { interaction: true } })).toMatchObject({
          state: 'approved',
          interaction: { refUsedAt: null },
        })
        expect(await t.db.accessToken.count()).toBe(0)
      },
    ],
    [
      'an expiry',
      async () => {
        await requestPendingGrant(t)
        t.clock.advance(t.deps.config.interactionExpirySeconds + 1)
        return () => expireOverdueGrants(t.deps)
      },
      async () => expect(await t.db.grant.findFirstOrThrow()).toMatchObject({ state: 'pending' }),
    ],
    [
      'a cancel',
      async () => {
        const g = await issueNonInteractiveGrant(t)
        await t.db.webhookEvent.deleteMany()
        return () => cancel(g)
      },
      async () => expect(await t.db.accessToken.findFirstOrThrow()).toMatchObject({ state: 'active' }),
    ],
    [
      'a rotation',
      async () => {
        const g = await issueNonInteractiveGrant(t)
        await t.db.webhookEvent.deleteMany()
        return () => rotate(g.managementId, g.tokenValue)
      },
      async () => expect(await t.db.accessToken.findMany({ select: { state: true } })).toEqual([{ state: 'active' }]),
    ],
    [
      'a token revocation',
      async () => {
        const g = await issueNonInteractiveGrant(t)
        await t.db.webhookEvent.deleteMany()
        return () => revokeToken(g.managementId, g.tokenValue)
      },
      async () => expect(await t.db.accessToken.findFirstOrThrow()).toMatchObject({ state: 'active' }),
    ],
    [
      'a block',
      async () => {
        await issueNonInteractiveGrant(t)
        await t.db.webhookEvent.deleteMany()
        return () => block()
      },
      async () => {
        expect(await t.db.clientBlock.count()).toBe(0)
        expect(await t.db.accessToken.findFirstOrThrow()).toMatchObject({ state: 'active' })
      },
    ],
    [
      'an unblock',
      async () => {
        await block()
        await t.db.webhookEvent.deleteMany()
        return () => unblockClient(t.deps, { walletAddress: TEST_CLIENT, actor: ADMIN })
      },
      async () => expect(await t.db.clientBlock.count()).toBe(1),
    ],
  ])('changes nothing when the event of %s cannot be written', async (_name, arrange, unchanged) => {
    const run = await arrange()
    await failWrites(t, 'WebhookEvent')
    await expect(run()).rejects.toThrow('injected failure')
    await unchanged()
    expect(await t.db.webhookEvent.count()).toBe(0)
  })

  it('writes exactly one grant.revoked for concurrent revocations of one grant (client, owner, administrator)', async () => {
    const owner = await createOwner(t.sql, ALICE)
    const g = await issueInteractiveGrant(t)
    const grantId = await grantIdOf(g.continueId)
    const results = await Promise.allSettled([
      cancel(g),
      cancel(g),
      revokeFromAccount(t.deps, owner.id, grantId),
      adminRevokeGrant(t.deps, { grantId, actor: ADMIN }),
      adminRevokeGrant(t.deps, { grantId, actor: API_KEY }),
    ])
    expect(results.some((r) => r.status === 'fulfilled')).toBe(true)
    expect(await storedEvents('grant.revoked')).toHaveLength(1)
    expect(await storedEvents('access_token.revoked')).toEqual([])
  })

  it('writes exactly one access_token.rotated for concurrent rotations of one token', async () => {
    const g = await issueNonInteractiveGrant(t)
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => rotate(g.managementId, g.tokenValue)))
    const won = results.filter((r) => r.status === 'fulfilled')
    expect(won).toHaveLength(1)
    const event = await onlyEvent('access_token.rotated')
    expect(event.body.data.access_token).toEqual({
      manage_id: lastSegment((won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof rotate>>>).value.access_token.manage),
    })
  })

  it('writes exactly one access_token.revoked for concurrent revocations of one token', async () => {
    const g = await issueNonInteractiveGrant(t)
    await Promise.allSettled([
      revokeToken(g.managementId, g.tokenValue),
      revokeToken(g.managementId, g.tokenValue),
      adminRevokeToken(t.deps, { managementId: g.managementId, actor: ADMIN }),
    ])
    expect(await storedEvents('access_token.revoked')).toHaveLength(1)
  })

  it.each(Array.from({ length: 3 }, (_, i) => i))('tells a rotation racing its grant’s revocation as it happened (run %i)', async () => {
    const g = await issueNonInteractiveGrant(t)
    const [rotation] = await Promise.allSettled([rotate(g.managementId, g.tokenValue), cancel(g)])
    const revoked = await onlyEvent('grant.revoked')
    // Either the rotation came first and its successor was revoked with the grant, or it failed: one live token either way.
    expect(revoked.body.data.revoked_tokens).toBe(1)
    expect(await storedEvents('access_token.rotated')).toHaveLength(rotation!.status === 'fulfilled' ? 1 : 0)
  })
})

describe('deliveries are written with their event', () => {
  it('one pending delivery per enabled endpoint subscribed to the type; none for a disabled one or one not subscribed', async () => {
    const revocations = await addWebhookEndpoint(t, { eventTypes: ['grant.revoked'] })
    const both = await addWebhookEndpoint(t, { eventTypes: ['grant.issued', 'grant.revoked'] })
    const disabled = await addWebhookEndpoint(t, { eventTypes: ['grant.issued', 'grant.revoked'], disabled: true })
    const g = await issueNonInteractiveGrant(t)
    const grantId = await grantIdOf(g.continueId)
    t.clock.advance(60)
    await cancel(g)
    const issued = await onlyEvent('grant.issued')
    const revoked = await onlyEvent('grant.revoked')
    const rows = await t.db.webhookDelivery.findMany(deliveriesElsewhere())
    const delivery = (eventId: string, endpointId: string, at: Date) => ({
      eventId,
      endpointId,
      orderKey: `grant:${grantId}`,
      state: 'pending',
      attempts: 0,
      nextAttemptAt: at,
      giveUpAt: new Date(at.getTime() + RETRY_WINDOW_MS),
      createdAt: at,
      leaseOwner: null,
    })
    const key = (d: { eventId: string; endpointId: string }) => `${d.eventId} ${d.endpointId}`
    expect(rows.sort((a, b) => key(a).localeCompare(key(b)))).toEqual(
      [
        delivery(issued.id, both.id, issued.createdAt),
        delivery(revoked.id, revocations.id, revoked.createdAt),
        delivery(revoked.id, both.id, revoked.createdAt),
      ]
        .sort((a, b) => key(a).localeCompare(key(b)))
        .map((d) => expect.objectContaining(d)),
    )
    expect(rows.some((d) => d.endpointId === disabled.id)).toBe(false)
  })

  it('orders a block’s client events by the client and its grants’ events by each grant', async () => {
    const endpoint = await addWebhookEndpoint(t, { eventTypes: ['grant.revoked', 'client.blocked', 'client.unblocked'] })
    const g = await issueNonInteractiveGrant(t)
    await block()
    await unblockClient(t.deps, { walletAddress: TEST_CLIENT, actor: ADMIN })
    const orderKeys = await t.db.webhookDelivery.findMany({ where: { endpointId: endpoint.id }, include: { event: { select: { type: true } } } })
    expect(orderKeys.map((d) => [d.event.type, d.orderKey]).sort()).toEqual([
      ['client.blocked', `client:${TEST_CLIENT}`],
      ['client.unblocked', `client:${TEST_CLIENT}`],
      ['grant.revoked', `grant:${await grantIdOf(g.continueId)}`],
    ])
  })
})
