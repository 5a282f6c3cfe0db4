import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { introspectToken, rotateAccessToken } from '@gnap/domain/protocol'
import {
  authAs,
  issueInteractiveGrant,
  issueNonInteractiveGrant,
  lastSegment,
  interact,
  requestPendingGrant,
  type IssuedGrant,
  type TestDeps,
} from '@gnap/domain/testing'
import { ADMIN, adminCaller, apiTestDeps, expectTrpcError } from './support'

let t: TestDeps
let caller: Awaited<ReturnType<typeof adminCaller>>['caller']
beforeEach(async () => {
  t = await apiTestDeps()
  caller = (await adminCaller(t)).caller
})
afterEach(async () => {
  await t.cleanup()
})

const grantIdOf = async (g: { continueId: string }) => (await t.db.grant.findUniqueOrThrow({ where: { continueId: g.continueId } })).id

/** Rotates like the client does (POST /token/{id} with the current value); returns the new management id and value. */
async function rotate(token: { managementId: string; value: string }) {
  const { access_token } = await rotateAccessToken(t.deps, { managementId: token.managementId, auth: authAs(token.value) })
  return { managementId: lastSegment(access_token.manage), value: access_token.value }
}

/** An interactive outgoing-payment grant, issued, then its token rotated twice, 10 and 20 minutes later. */
async function grantRotatedTwice() {
  const issued: IssuedGrant = await issueInteractiveGrant(t)
  const first = { managementId: issued.managementId, value: issued.tokenValue }
  t.clock.advance(600)
  const second = await rotate(first)
  t.clock.advance(600)
  const third = await rotate(second)
  return { issued, grantId: await grantIdOf(issued), tokens: [first, second, third] }
}

describe('grants.byId and tokens.chain after two rotations', () => {
  it('shows the chain first to current with its links, expiry and rotation times, and never a value', async () => {
    const { grantId, tokens } = await grantRotatedTwice()
    const issuedAt = new Date(t.clock.now.getTime() - 1200_000)
    const chain = await caller.tokens.chain({ grantId })
    expect(chain.grantId).toBe(grantId)
    expect(chain.tokens.map((k) => k.managementId)).toEqual(tokens.map((k) => k.managementId))
    expect(chain.tokens).toEqual([
      {
        managementId: tokens[0]!.managementId,
        status: 'rotated',
        issuedAt,
        expiresAt: new Date(issuedAt.getTime() + 600_000),
        expiresInSeconds: 600,
        isExpired: true,
        rotatedAt: new Date(issuedAt.getTime() + 600_000),
        revokedAt: null,
        replacesManagementId: null,
        replacedByManagementId: tokens[1]!.managementId,
      },
      {
        managementId: tokens[1]!.managementId,
        status: 'rotated',
        issuedAt: new Date(issuedAt.getTime() + 600_000),
        expiresAt: new Date(issuedAt.getTime() + 1200_000),
        expiresInSeconds: 600,
        isExpired: true,
        rotatedAt: new Date(issuedAt.getTime() + 1200_000),
        revokedAt: null,
        replacesManagementId: tokens[0]!.managementId,
        replacedByManagementId: tokens[2]!.managementId,
      },
      {
        managementId: tokens[2]!.managementId,
        status: 'active',
        issuedAt: new Date(issuedAt.getTime() + 1200_000),
        expiresAt: new Date(issuedAt.getTime() + 1800_000),
        expiresInSeconds: 600,
        isExpired: false,
        rotatedAt: null,
        revokedAt: null,
        replacesManagementId: tokens[1]!.managementId,
        replacedByManagementId: null,
      },
    ])
    // The detail page shows the same chain.
    expect((await caller.grants.byId({ id: grantId })).tokens).toEqual(chain.tokens)
  })

  it('shows client, state, interaction outcome, access items in plain words and the history in time order', async () => {
    const { issued, grantId, tokens } = await grantRotatedTwice()
    const detail = await caller.grants.byId({ id: grantId })
    expect(detail).toMatchObject({
      id: grantId,
      continueId: issued.continueId,
      status: 'issued',
      state: 'finalized',
      finalizedReason: 'issued',
      client: { walletAddress: 'https://wallet.example/test-app', name: 'Test App' },
      interaction: {
        state: 'approved',
        outcome: 'approved',
        startModes: ['redirect'],
        finishMethod: 'redirect',
        finishUri: 'https://client.example/finish',
        decidedBy: null,
        decidedAt: expect.any(Date),
        finishedAt: expect.any(Date),
        refUsedAt: expect.any(Date),
      },
    })
    expect(detail.accessItems).toEqual([
      {
        item: {
          type: 'outgoing-payment',
          actions: ['create', 'read'],
          identifier: 'https://wallet.example/alice',
          limits: { debitAmount: { value: '1000', assetCode: 'USD', assetScale: 2 }, interval: 'R12/2025-01-01T00:00:00Z/P1M' },
        },
        description: {
          title: 'Send payments from https://wallet.example/alice',
          lines: ['Send up to 10.00 USD every month from 1 January 2025, for 13 months', 'See outgoing payments it created'],
        },
      },
    ])
    expect(detail.history.map((e) => [e.kind, e.managementId])).toEqual([
      ['grant-requested', null],
      ['owner-approved', null],
      ['interaction-finished', null],
      ['grant-issued', null],
      ['token-issued', tokens[0]!.managementId],
      ['token-expired', tokens[0]!.managementId],
      ['token-rotated', tokens[0]!.managementId],
      ['token-issued', tokens[1]!.managementId],
      ['token-expired', tokens[1]!.managementId],
      ['token-rotated', tokens[1]!.managementId],
      ['token-issued', tokens[2]!.managementId],
    ])
    const times = detail.history.map((e) => e.at.getTime())
    expect(times).toEqual([...times].sort((a, b) => a - b))
  })

  it('shows a pending grant awaiting the owner, and a denied one', async () => {
    const pending = await requestPendingGrant(t)
    const denied = await interact(t, await requestPendingGrant(t), 'reject')
    const p = await caller.grants.byId({ id: await grantIdOf(pending) })
    expect(p).toMatchObject({ status: 'pending', tokens: [], interaction: { outcome: 'awaiting decision', decidedAt: null } })
    t.clock.advance(t.deps.config.interactionExpirySeconds + 1)
    expect((await caller.grants.byId({ id: await grantIdOf(pending) })).interaction?.outcome).toBe('expired without a decision')
    const d = await caller.grants.byId({ id: await grantIdOf(denied) })
    expect(d).toMatchObject({ status: 'rejected', finalizedReason: 'rejected', interaction: { state: 'denied', outcome: 'denied' } })
    expect(d.history.map((e) => e.kind)).toEqual(['grant-requested', 'owner-denied', 'interaction-finished', 'grant-rejected'])
  })

  it('answers NOT_FOUND for an unknown grant', async () => {
    await expectTrpcError(caller.grants.byId({ id: crypto.randomUUID() }), 'NOT_FOUND')
    await expectTrpcError(caller.tokens.chain({ grantId: 'not-an-id' }), 'NOT_FOUND')
  })
})

describe('tokens.byManagementId (the token page)', () => {
  it('finds any token of the chain with its grant', async () => {
    const { grantId, tokens } = await grantRotatedTwice()
    const page = await caller.tokens.byManagementId({ managementId: tokens[1]!.managementId.toUpperCase() })
    expect(page).toMatchObject({
      token: {
        managementId: tokens[1]!.managementId,
        status: 'rotated',
        replacesManagementId: tokens[0]!.managementId,
        replacedByManagementId: tokens[2]!.managementId,
      },
      grant: { id: grantId, status: 'issued', client: { walletAddress: 'https://wallet.example/test-app' } },
    })
  })

  it('answers NOT_FOUND for an unknown or malformed management id', async () => {
    await expectTrpcError(caller.tokens.byManagementId({ managementId: crypto.randomUUID() }), 'NOT_FOUND')
    await expectTrpcError(caller.tokens.byManagementId({ managementId: '../../etc/passwd' }), 'NOT_FOUND')
  })
})

describe('grants.revoke', () => {
  it('revokes as DELETE /continue does: grant finalized/revoked, live token revoked, the client’s next rotation refused; audited', async () => {
    const { grantId, tokens } = await grantRotatedTwice()
    t.clock.advance(5)
    const revokedAt = t.clock.now
    expect(await caller.grants.revoke({ id: grantId })).toEqual({ grantId, revokedTokens: 1 })

    const detail = await caller.grants.byId({ id: grantId })
    expect(detail).toMatchObject({ status: 'revoked', state: 'finalized', finalizedReason: 'revoked', finalizedAt: revokedAt })
    // Rotated tokens keep their state and first time (docs/protocol.md §8.12); the live one is revoked now.
    expect(detail.tokens.map((k) => [k.status, k.revokedAt])).toEqual([
      ['rotated', null],
      ['rotated', null],
      ['revoked', revokedAt],
    ])
    expect(detail.history.slice(-2).map((e) => e.kind)).toEqual(['grant-revoked', 'token-revoked'])
    await expect(rotate(tokens[2]!)).rejects.toMatchObject({ code: 'invalid_rotation', status: 404 })
    expect(await introspectToken(t.deps, { accessToken: tokens[2]!.value, access: null })).toEqual({ active: false })

    const audit = await caller.audit.list({})
    expect(audit.items[0]).toMatchObject({
      actor: ADMIN.email,
      action: 'grant.revoke',
      target: `grant:${grantId}`,
      detail: '1 live token revoked',
      at: revokedAt,
    })
  })

  it('answers CONFLICT for a grant already revoked or rejected, NOT_FOUND for an unknown one, and audits nothing then', async () => {
    const g = await issueNonInteractiveGrant(t)
    const id = await grantIdOf(g)
    await caller.grants.revoke({ id })
    const again = await expectTrpcError(caller.grants.revoke({ id }), 'CONFLICT')
    expect(again.message).toBe('the grant was already revoked')
    const rejected = await interact(t, await requestPendingGrant(t), 'reject')
    await expectTrpcError(caller.grants.revoke({ id: await grantIdOf(rejected) }), 'CONFLICT')
    await expectTrpcError(caller.grants.revoke({ id: crypto.randomUUID() }), 'NOT_FOUND')
    expect(await t.db.auditLog.count({ where: { action: 'grant.revoke' } })).toBe(1)
  })

  it('revokes a pending grant: the owner can no longer approve it', async () => {
    const pending = await requestPendingGrant(t)
    const id = await grantIdOf(pending)
    expect(await caller.grants.revoke({ id })).toEqual({ grantId: id, revokedTokens: 0 })
    expect((await caller.grants.byId({ id })).status).toBe('revoked')
  })
})

describe('tokens.revoke', () => {
  it('revokes one live token, leaves the grant as it is, and audits it', async () => {
    const g = await issueNonInteractiveGrant(t)
    const grantId = await grantIdOf(g)
    t.clock.advance(1)
    expect(await caller.tokens.revoke({ managementId: g.managementId })).toEqual({ managementId: g.managementId, grantId })
    expect((await caller.tokens.byManagementId({ managementId: g.managementId })).token).toMatchObject({ status: 'revoked', revokedAt: t.clock.now })
    expect((await caller.grants.byId({ id: grantId })).status).toBe('issued')
    expect(await introspectToken(t.deps, { accessToken: g.tokenValue, access: null })).toEqual({ active: false })
    await expect(rotate({ managementId: g.managementId, value: g.tokenValue })).rejects.toMatchObject({ code: 'invalid_rotation' })
    expect((await caller.audit.list({})).items[0]).toMatchObject({
      action: 'token.revoke',
      target: `token:${g.managementId}`,
      detail: `of grant ${grantId}`,
    })
  })

  it('revokes an expired token too (it could still be rotated), like DELETE /token', async () => {
    const g = await issueNonInteractiveGrant(t)
    t.clock.advance(3600)
    await caller.tokens.revoke({ managementId: g.managementId })
    await expect(rotate({ managementId: g.managementId, value: g.tokenValue })).rejects.toMatchObject({ code: 'invalid_rotation' })
  })

  it('answers CONFLICT for a rotated or revoked token and NOT_FOUND for an unknown one', async () => {
    const { tokens } = await grantRotatedTwice()
    expect((await expectTrpcError(caller.tokens.revoke({ managementId: tokens[0]!.managementId }), 'CONFLICT')).message).toBe(
      'the token was already rotated',
    )
    await caller.tokens.revoke({ managementId: tokens[2]!.managementId })
    expect((await expectTrpcError(caller.tokens.revoke({ managementId: tokens[2]!.managementId }), 'CONFLICT')).message).toBe(
      'the token was already revoked',
    )
    await expectTrpcError(caller.tokens.revoke({ managementId: crypto.randomUUID() }), 'NOT_FOUND')
    expect(await t.db.auditLog.count({ where: { action: 'token.revoke' } })).toBe(1)
  })
})

describe('audit.list', () => {
  it('pages the log newest first with a keyset cursor', async () => {
    const grants = []
    for (let i = 0; i < 5; i++) grants.push(await issueNonInteractiveGrant(t))
    for (const g of grants) {
      t.clock.advance(1)
      await caller.tokens.revoke({ managementId: g.managementId })
    }
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page = await caller.audit.list({ limit: 2, cursor })
      seen.push(...page.items.map((e) => e.target))
      cursor = page.nextCursor
    } while (cursor)
    expect(seen).toEqual([...grants.reverse().map((g) => `token:${g.managementId}`), `admin:${ADMIN.email}`])
  })
})

describe('stats.overview', () => {
  it('counts grants by state and token events in the range, and per day', async () => {
    const start = t.clock.now
    await grantRotatedTwice()
    const revoked = await issueNonInteractiveGrant(t)
    await caller.grants.revoke({ id: await grantIdOf(revoked) })
    await requestPendingGrant(t)
    t.clock.advance(86_400)
    await issueNonInteractiveGrant(t)
    t.clock.advance(3600)
    const stats = await caller.stats.overview({ from: new Date(start.getTime() - 3600_000), to: t.clock.now })
    // The pending grant's interaction expired a day ago: it counts as expired, not pending (docs/protocol.md §3).
    expect(stats.grants).toEqual({ total: 4, pending: 0, approved: 0, issued: 2, revoked: 1, rejected: 0, expired: 1 })
    // 3 tokens of the rotated grant, 1 revoked with its grant, 1 issued the next day. Left to expire: the rotated
    // grant's current token and the next day's.
    expect(stats.tokens).toEqual({ issued: 5, rotated: 2, revoked: 1, expired: 2 })
    expect(stats.series.map((d) => [d.start.toISOString(), d.grantsCreated, d.rotations])).toEqual([
      ['2025-01-15T00:00:00.000Z', 3, 2],
      ['2025-01-16T00:00:00.000Z', 1, 0],
    ])
  })

  it('refuses an empty, reversed or over-long range', async () => {
    const now = t.clock.now
    await expectTrpcError(caller.stats.overview({ from: now, to: now }), 'BAD_REQUEST')
    await expectTrpcError(caller.stats.overview({ from: now, to: new Date(now.getTime() - 1) }), 'BAD_REQUEST')
    await expectTrpcError(caller.stats.overview({ from: new Date(now.getTime() - 367 * 86_400_000), to: now }), 'BAD_REQUEST')
  })
})
