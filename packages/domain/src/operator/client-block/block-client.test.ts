import { describe, expect, it } from 'vitest'
import type { RequestAuth } from '../../protocol/client/request-auth'
import { TEST_CLIENT, authAs, failWrites, gnapError, grantRequest, incomingAccess, introspect } from '../../testing/deps'
import { approvedGrant, issueInteractiveGrant, issueNonInteractiveGrant, lastSegment, requestPendingGrant } from '../../testing/grant-flows'
import { requestGrant } from '../../protocol/grant/request-grant'
import { continueGrant } from '../../protocol/grant/continue-grant'
import { cancelGrant } from '../../protocol/grant/cancel-grant'
import { rotateAccessToken } from '../../protocol/access-token/rotate-access-token'
import { revokeAccessToken } from '../../protocol/access-token/revoke-access-token'
import { listClientBlocks, listClients } from '../admin/list-clients'
import { getClientDetail } from '../admin/get-client-detail'
import { blockClient, BlockClientInputSchema, unblockClient } from './block-client'
import { useTestDeps } from '../../testing/use-test-deps'
import { holdInsertsInto, until, waitingLocks } from '../../testing/pg-hold'

const t = useTestDeps()

const OTHER_CLIENT = 'https://wallet.example/other-app'
const OPERATOR = 'operator@example.com'
const actor = { kind: 'admin', id: 'admin-1', label: OPERATOR, role: 'operator', tenantId: null } as const

const block = (walletAddress = TEST_CLIENT, reason = 'its signing key leaked') => blockClient(t.deps, { walletAddress, reason, actor })
const blocked = () => gnapError('invalid_client', 401)
const nonInteractive = (client = TEST_CLIENT) => grantRequest({ access: [incomingAccess()], interact: null, client })

/** A request whose signature check waits until `release()`: the use case is held after its first checks. */
function heldAuth(token: string | null): { auth: RequestAuth; reached: Promise<void>; release(): void } {
  let release!: () => void
  let reached!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const atGate = new Promise<void>((resolve) => (reached = resolve))
  return {
    auth: {
      token,
      async verifySignature() {
        reached()
        await gate
      },
    },
    reached: atGate,
    release,
  }
}

async function liveRowsOf(client: string) {
  const [grants, tokens] = await Promise.all([
    t.db.grant.count({ where: { client, NOT: { state: 'finalized', finalizedReason: { in: ['revoked', 'rejected'] } } } }),
    t.db.accessToken.count({ where: { state: 'active', grant: { client } } }),
  ])
  return { grants, tokens }
}

describe('blockClient (docs/protocol.md §2.16)', () => {
  it('revokes every grant the client holds and every live token, and nothing of another client', async () => {
    const issued = await issueNonInteractiveGrant(t)
    const interactive = await issueInteractiveGrant(t)
    const pending = await requestPendingGrant(t)
    const approved = await approvedGrant(t)
    const other = await issueNonInteractiveGrant(t, { client: OTHER_CLIENT })

    expect(await block()).toEqual({ walletAddress: TEST_CLIENT, revokedGrants: 4, revokedTokens: 2 })

    for (const g of [issued, interactive]) {
      expect(await introspect(t.deps, { access_token: g.tokenValue })).toEqual({ active: false })
    }
    expect(await liveRowsOf(TEST_CLIENT)).toEqual({ grants: 0, tokens: 0 })
    for (const continueId of [pending.continueId, approved.continueId]) {
      expect(await t.db.grant.findUniqueOrThrow({ where: { continueId } })).toMatchObject({ state: 'finalized', finalizedReason: 'revoked' })
    }
    expect(await introspect(t.deps, { access_token: other.tokenValue })).toMatchObject({ active: true })
  })

  it('keeps the reason, who and when, and writes one audit entry in the same transaction', async () => {
    await issueNonInteractiveGrant(t)
    await block()
    expect(await t.db.clientBlock.findMany()).toEqual([
      { client: TEST_CLIENT, reason: 'its signing key leaked', blockedBy: OPERATOR, createdAt: t.clock.now },
    ])
    expect(await t.db.auditLog.findMany({ select: { actor: true, action: true, target: true, detail: true } })).toEqual([
      {
        actor: OPERATOR,
        action: 'client.block',
        target: `client:${TEST_CLIENT}`,
        detail: 'its signing key leaked (1 grant and 1 live token revoked)',
      },
    ])
  })

  it('refuses a client already blocked (conflict), changing nothing; its input schema refuses an empty reason or a malformed address', async () => {
    await block()
    await expect(block()).rejects.toMatchObject({ name: 'ConsoleError', code: 'conflict' })
    // The router parses the input with this schema before the use case runs (docs/protocol.md §2.16).
    expect(() => BlockClientInputSchema.parse({ walletAddress: OTHER_CLIENT, reason: '   ' })).toThrow(/reason/)
    expect(() => BlockClientInputSchema.parse({ walletAddress: 'not a url', reason: 'its signing key leaked' })).toThrow()
    expect(await t.db.clientBlock.count()).toBe(1)
    expect(await t.db.auditLog.count()).toBe(1)
  })

  it('writes nothing when the transaction fails half-way: no block, grants and tokens live', async () => {
    const g = await issueNonInteractiveGrant(t)
    const restore = await failWrites(t, 'AccessToken', 'UPDATE')
    await expect(block()).rejects.toThrow()
    await restore()
    expect(await t.db.clientBlock.count()).toBe(0)
    expect(await t.db.auditLog.count()).toBe(0)
    expect(await introspect(t.deps, { access_token: g.tokenValue })).toMatchObject({ active: true })
  })
})

describe('a blocked client is refused with 401 invalid_client (docs/protocol.md §2.16)', () => {
  it('on a grant request, before its keys are fetched, whatever the spelling of its wallet address', async () => {
    await block()
    for (const client of [TEST_CLIENT, 'https://WALLET.example/test-app', `${TEST_CLIENT}/`]) {
      const auth = authAs(null)
      const refusal = requestGrant(t.deps, nonInteractive(client), auth, null)
      await expect(refusal).rejects.toMatchObject(blocked())
      await expect(refusal).rejects.toThrow(/blocked/)
      expect(auth.verified).toEqual([])
    }
    await expect(requestGrant(t.deps, grantRequest(), authAs(null), null)).rejects.toMatchObject(blocked())
    expect(await t.db.grant.count()).toBe(0)
  })

  it('on a continuation and a cancellation, before its keys are fetched', async () => {
    const pending = await requestPendingGrant(t)
    await block()
    const auth = authAs(pending.continueToken)
    await expect(continueGrant(t.deps, { continueId: pending.continueId, interactRef: null, auth })).rejects.toMatchObject(blocked())
    await expect(cancelGrant(t.deps, { continueId: pending.continueId, auth })).rejects.toThrow(/blocked/)
    expect(auth.verified).toEqual([])
  })

  it('on a rotation and a token revocation, before its keys are fetched', async () => {
    const g = await issueNonInteractiveGrant(t)
    await block()
    const auth = authAs(g.tokenValue)
    await expect(rotateAccessToken(t.deps, { managementId: g.managementId, auth })).rejects.toMatchObject(blocked())
    await expect(revokeAccessToken(t.deps, { managementId: g.managementId, auth })).rejects.toMatchObject(blocked())
    await expect(revokeAccessToken(t.deps, { managementId: g.managementId, auth })).rejects.toThrow(/blocked/)
    expect(auth.verified).toEqual([])
  })

  it('tells the client only that it is blocked, not the reason', async () => {
    await block(TEST_CLIENT, 'fraud investigation 4711')
    await expect(requestGrant(t.deps, nonInteractive(), authAs(null), null)).rejects.toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('4711') }),
    )
  })

  it('leaves another client alone', async () => {
    await block()
    await expect(requestGrant(t.deps, nonInteractive(OTHER_CLIENT), authAs(null), null)).resolves.toHaveProperty('access_token')
  })
})

describe('unblockClient (docs/protocol.md §2.16)', () => {
  it('lets the client request grants again; the grants revoked by the block stay revoked', async () => {
    const old = await issueNonInteractiveGrant(t)
    await block()
    await unblockClient(t.deps, { walletAddress: TEST_CLIENT, actor })

    const fresh = await issueNonInteractiveGrant(t)
    expect(await introspect(t.deps, { access_token: fresh.tokenValue })).toMatchObject({ active: true })
    expect(await introspect(t.deps, { access_token: old.tokenValue })).toEqual({ active: false })
    await expect(rotateAccessToken(t.deps, { managementId: old.managementId, auth: authAs(old.tokenValue) })).rejects.toMatchObject(
      gnapError('invalid_rotation', 404),
    )
    expect(await t.db.clientBlock.count()).toBe(0)
    expect((await t.db.auditLog.findMany({ orderBy: { action: 'asc' } })).map((a) => [a.action, a.actor, a.target])).toEqual([
      ['client.block', OPERATOR, `client:${TEST_CLIENT}`],
      ['client.unblock', OPERATOR, `client:${TEST_CLIENT}`],
    ])
  })

  it('refuses a client that is not blocked (conflict), writing nothing', async () => {
    await expect(unblockClient(t.deps, { walletAddress: TEST_CLIENT, actor })).rejects.toMatchObject({ code: 'conflict' })
    expect(await t.db.auditLog.count()).toBe(0)
  })
})

describe('requests in flight while the block commits (docs/protocol.md §3 Races)', () => {
  it('a grant request that passed the first check is refused inside its transaction: no grant is stored', async () => {
    const held = heldAuth(null)
    const request = requestGrant(t.deps, nonInteractive(), held.auth, null)
    await held.reached
    await block()
    held.release()
    await expect(request).rejects.toMatchObject(blocked())
    expect(await t.db.grant.count()).toBe(0)
  })

  it('an interactive grant request too', async () => {
    const held = heldAuth(null)
    const request = requestGrant(t.deps, grantRequest(), held.auth, null)
    await held.reached
    await block()
    held.release()
    await expect(request).rejects.toMatchObject(blocked())
    expect(await t.db.grant.count()).toBe(0)
  })

  it('a continuation of an approved grant issues no token', async () => {
    const approved = await approvedGrant(t)
    t.clock.advance(t.deps.config.waitSeconds)
    const held = heldAuth(approved.continueToken)
    const continuation = continueGrant(t.deps, { continueId: approved.continueId, interactRef: approved.interactRef, auth: held.auth })
    await held.reached
    await block()
    held.release()
    await expect(continuation).rejects.toThrow()
    expect(await liveRowsOf(TEST_CLIENT)).toEqual({ grants: 0, tokens: 0 })
  })

  it('a rotation issues no live successor', async () => {
    const g = await issueNonInteractiveGrant(t)
    const held = heldAuth(g.tokenValue)
    const rotation = rotateAccessToken(t.deps, { managementId: g.managementId, auth: held.auth })
    await held.reached
    await block()
    held.release()
    await expect(rotation).rejects.toMatchObject(gnapError('invalid_rotation', 404))
    expect(await liveRowsOf(TEST_CLIENT)).toEqual({ grants: 0, tokens: 0 })
  })

  it.each(Array.from({ length: 3 }, (_, i) => i))('many grant requests racing a block leave nothing live (run %i)', async () => {
    const requests = Array.from({ length: 12 }, () => requestGrant(t.deps, nonInteractive(), authAs(null), null))
    const blocking = block()
    const results = await Promise.allSettled(requests)
    await blocking
    for (const r of results) {
      if (r.status === 'fulfilled') expect(await introspect(t.deps, { access_token: r.value.access_token!.value })).toEqual({ active: false })
      else expect(r.reason).toMatchObject(blocked())
    }
    expect(await liveRowsOf(TEST_CLIENT)).toEqual({ grants: 0, tokens: 0 })
  })
})

// PostgreSQL runs transactions side by side (READ COMMITTED): a grant request whose transaction has stored the grant
// and passed its own check, but not yet committed, while the block reads the client's grants. A trigger holds the
// request's transaction open there until the test lets it go.
describe.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL: a grant request inside its transaction while the block runs', () => {
  it('ends with its grant revoked by the block, or refused: never live', async () => {
    const held = await holdInsertsInto(t.db, 'AccessItem', 4711)

    const request = requestGrant(t.deps, nonInteractive(), authAs(null), null)
    await until(async () => (await waitingLocks(t.db, 'advisory')) > 0)
    let settled = false
    const blocking = block().finally(() => (settled = true))
    await until(async () => settled || (await waitingLocks(t.db, 'relation')) > 0)
    await held.release()
    const [result] = await Promise.allSettled([request, blocking])
    await held.drop()

    if (result.status === 'fulfilled') expect(await introspect(t.deps, { access_token: result.value.access_token!.value })).toEqual({ active: false })
    else expect(result.reason).toMatchObject(blocked())
    expect(await liveRowsOf(TEST_CLIENT)).toEqual({ grants: 0, tokens: 0 })
  })
})

describe('the console views of clients', () => {
  it('lists clients with whether each is blocked, and the blocks with reason, who and when', async () => {
    await issueNonInteractiveGrant(t)
    await issueNonInteractiveGrant(t, { client: OTHER_CLIENT })
    await block()
    expect(await listClients(t.deps, { limit: 50 })).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ walletAddress: TEST_CLIENT, grants: 1, blocked: true }),
        expect.objectContaining({ walletAddress: OTHER_CLIENT, grants: 1, blocked: false }),
      ]),
    )
    expect(await listClientBlocks(t.deps)).toEqual([
      { walletAddress: TEST_CLIENT, reason: 'its signing key leaked', blockedBy: OPERATOR, blockedAt: t.clock.now },
    ])
  })

  it("shows one client's grants, tokens, last activity, block and audit entries", async () => {
    const g = await issueNonInteractiveGrant(t)
    t.clock.advance(60)
    const { access_token } = await rotateAccessToken(t.deps, { managementId: g.managementId, auth: authAs(g.tokenValue) })
    const rotatedAt = new Date(t.clock.now)
    await requestPendingGrant(t)
    t.clock.advance(60)

    const before = await getClientDetail(t.deps, { walletAddress: TEST_CLIENT })
    expect(before).toMatchObject({
      walletAddress: TEST_CLIENT,
      block: null,
      grantCounts: { issued: 1, pending: 1, approved: 0, revoked: 0, rejected: 0, expired: 0 },
      lastActivityAt: rotatedAt,
    })
    expect(before.grants.map((x) => x.status)).toEqual(['pending', 'issued'])
    expect(before.tokens.map((x) => [x.managementId, x.status])).toEqual([
      [lastSegment(access_token.manage), 'active'],
      [g.managementId, 'rotated'],
    ])

    await block()
    const after = await getClientDetail(t.deps, { walletAddress: TEST_CLIENT })
    expect(after.block).toEqual({ reason: 'its signing key leaked', blockedBy: OPERATOR, blockedAt: t.clock.now })
    expect(after.grantCounts).toMatchObject({ issued: 0, pending: 0, revoked: 2 })
    expect(after.tokens.map((x) => x.status)).toEqual(['revoked', 'rotated'])
    expect(after.audit).toEqual([expect.objectContaining({ action: 'client.block', actor: OPERATOR })])
  })

  it('shows a wallet address no grant names, so it can be blocked before it asks', async () => {
    expect(await getClientDetail(t.deps, { walletAddress: OTHER_CLIENT })).toMatchObject({
      grants: [],
      tokens: [],
      lastActivityAt: null,
      block: null,
    })
  })
})
