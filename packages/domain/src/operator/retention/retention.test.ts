import { describe, expect, it } from 'vitest'
import { authAs, introspect } from '../../testing/deps'
import { issueNonInteractiveGrant, lastSegment, requestPendingGrant } from '../../testing/grant-flows'
import { rotateAccessToken } from '../../protocol/access-token/rotate-access-token'
import { revokeAccessToken } from '../../protocol/access-token/revoke-access-token'
import { cancelGrant } from '../../protocol/grant/cancel-grant'
import { hitRateLimit } from '../../kernel/rate-limit/rate-limit'
import { rememberSignatureNonce } from '../../protocol/client/signature-nonce.repo'
import { createSession } from '../../kernel/session/create-session'
import { findSession } from '../../kernel/session/find-session'
import { deleteExpiredRecords, startRetentionJob } from './retention'
import { useTestDeps } from '../../testing/use-test-deps'
import { recordEventOrFail } from '../../testing/webhook-delivery'
import { runDeliveryPass } from '../webhook/deliver-webhooks'

// Default settings: tokens live 600 s and dead rows are kept 30 days (ACCESS_TOKEN_DELETION_DAYS).
const DAY = 86_400

const t = useTestDeps()

const tokenIds = async () => (await t.db.accessToken.findMany({ orderBy: { createdAt: 'asc' } })).map((r) => r.managementId)

describe('deleteExpiredRecords: access tokens', () => {
  it('deletes a token expired for longer than the retention period, never earlier, and keeps its grant', async () => {
    const g = await issueNonInteractiveGrant(t)
    t.clock.advance(600 + 30 * DAY - 1)
    expect(await deleteExpiredRecords(t.deps)).toMatchObject({ accessTokens: 0 })
    expect(await tokenIds()).toEqual([g.managementId])
    t.clock.advance(2)
    expect(await deleteExpiredRecords(t.deps)).toMatchObject({ accessTokens: 1 })
    expect(await tokenIds()).toEqual([])
    expect(await t.db.grant.count()).toBe(1)
    expect(await t.db.accessItem.count()).toBe(1)
  })

  it('deletes a token revoked for longer than the retention period, counted from the revocation', async () => {
    await t.reset({ config: { accessTokenExpirySeconds: 90 * DAY } })
    const g = await issueNonInteractiveGrant(t)
    const live = await issueNonInteractiveGrant(t)
    t.clock.advance(DAY)
    await revokeAccessToken(t.deps, { managementId: g.managementId, auth: authAs(g.tokenValue) })
    t.clock.advance(30 * DAY + 1)
    expect(await deleteExpiredRecords(t.deps)).toMatchObject({ accessTokens: 1 })
    // The other token is neither expired (90 days) nor revoked.
    expect(await tokenIds()).toEqual([live.managementId])
  })

  it('deletes the tokens of a grant revoked long ago, but not the grant', async () => {
    await t.reset({ config: { accessTokenExpirySeconds: 90 * DAY } })
    const g = await issueNonInteractiveGrant(t)
    await cancelGrant(t.deps, { continueId: g.continueId, auth: authAs(g.continueToken) })
    t.clock.advance(31 * DAY)
    expect(await deleteExpiredRecords(t.deps)).toMatchObject({ accessTokens: 1 })
    expect(await t.db.grant.findFirstOrThrow()).toMatchObject({ state: 'finalized', finalizedReason: 'revoked' })
  })

  it('never deletes pending grants or their interactions', async () => {
    await requestPendingGrant(t)
    t.clock.advance(365 * DAY)
    await deleteExpiredRecords(t.deps)
    expect(await t.db.grant.count()).toBe(1)
    expect(await t.db.interaction.count()).toBe(1)
  })
})

describe('deleteExpiredRecords: rotation chains', () => {
  /** A token rotated every 600 s, `rotations` times: returns the management ids, oldest first, and the live value. */
  async function chain(rotations: number) {
    const g = await issueNonInteractiveGrant(t)
    const ids = [g.managementId]
    let value = g.tokenValue
    for (let i = 0; i < rotations; i++) {
      t.clock.advance(600)
      const { access_token } = await rotateAccessToken(t.deps, { managementId: ids.at(-1)!, auth: authAs(value) })
      ids.push(lastSegment(access_token.manage))
      value = access_token.value
    }
    return { ids, value }
  }

  it('deletes dead predecessors of a live token and sets the link of the oldest kept token to null', async () => {
    // Kept one day here. Rotated every 10 minutes for two days: the first rotations are over a day old, the newest
    // token is live.
    await t.reset({ config: { accessTokenDeletionDays: 1 } })
    const c = await chain(2 * 144)
    const total = c.ids.length
    const result = await deleteExpiredRecords(t.deps, { batchSize: 50 })
    expect(result.accessTokens).toBeGreaterThan(140)
    expect(result.accessTokens).toBeLessThan(150)
    const rows = await t.db.accessToken.findMany({ orderBy: { createdAt: 'asc' } })
    expect(rows).toHaveLength(total - result.accessTokens)
    // What is left is the newest part of the chain, in order, and its first row no longer names a deleted token.
    expect(rows.map((r) => r.managementId)).toEqual(c.ids.slice(result.accessTokens))
    expect(rows[0]!.previousId).toBeNull()
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.previousId).toBe(rows[i - 1]!.id)
    // Every rotated token left still has exactly one successor; the live token works and still rotates.
    for (const r of rows.filter((x) => x.state === 'rotated')) expect(rows.filter((x) => x.previousId === r.id)).toHaveLength(1)
    expect(await introspect(t.deps, { access_token: c.value })).toMatchObject({ active: true })
    await expect(rotateAccessToken(t.deps, { managementId: c.ids.at(-1)!, auth: authAs(c.value) })).resolves.toBeDefined()
  })

  it('deletes a whole dead chain across several small batches, predecessors first', async () => {
    const c = await chain(12)
    t.clock.advance(600 + 30 * DAY + 1)
    const result = await deleteExpiredRecords(t.deps, { batchSize: 5 })
    expect(result.accessTokens).toBe(c.ids.length)
    expect(await t.db.accessToken.count()).toBe(0)
    expect(await t.db.grant.count()).toBe(1)
  })

  it('refuses a deleted old value like a rotated one', async () => {
    const g = await issueNonInteractiveGrant(t)
    t.clock.advance(60)
    await rotateAccessToken(t.deps, { managementId: g.managementId, auth: authAs(g.tokenValue) })
    t.clock.advance(30 * DAY + 1)
    // The old token was rotated over 30 days ago; its successor expired less than 30 days ago and stays.
    expect(await deleteExpiredRecords(t.deps)).toMatchObject({ accessTokens: 1 })
    expect(await t.db.accessToken.findFirstOrThrow()).toMatchObject({ previousId: null, state: 'active' })
    expect(await introspect(t.deps, { access_token: g.tokenValue })).toEqual({ active: false })
    await expect(rotateAccessToken(t.deps, { managementId: g.managementId, auth: authAs(g.tokenValue) })).rejects.toMatchObject({
      code: 'invalid_rotation',
      status: 404,
    })
  })
})

describe('deleteExpiredRecords: nonces and rate-limit counters', () => {
  it('deletes expired signature nonces and counters of windows older than a day', async () => {
    const now = t.clock.now
    await rememberSignatureNonce(t.sql, 'k', 'old', new Date(now.getTime() - 1000), now)
    await rememberSignatureNonce(t.sql, 'k', 'fresh', new Date(now.getTime() + 300_000), now)
    await hitRateLimit(t.sql, 'old', 10, 60, new Date(now.getTime() - 2 * DAY * 1000))
    await hitRateLimit(t.sql, 'fresh', 10, 60, now)
    expect(await deleteExpiredRecords(t.deps, { batchSize: 1 })).toEqual({
      expiredGrants: 0,
      accessTokens: 0,
      signatureNonces: 1,
      rateLimits: 1,
      sessions: 0,
      webhookEvents: 0,
      webhookFailedDeliveries: 0,
    })
    expect((await t.db.signatureNonce.findMany()).map((n) => n.nonce)).toEqual(['fresh'])
    expect((await t.db.rateLimit.findMany()).map((r) => r.key)).toEqual(['fresh'])
  })
})

describe('deleteExpiredRecords: sessions', () => {
  it('deletes owners’ and administrators’ sessions once expired, and keeps live ones', async () => {
    const now = t.clock.now
    const owner = await createSession(t.sql, { kind: 'owner', subjectId: 'owner-1', ttlSeconds: 30 * 60, now })
    const admin = await createSession(t.sql, { kind: 'admin', subjectId: 'admin-1', ttlSeconds: 8 * 3600, now })
    const later = await createSession(t.sql, { kind: 'owner', subjectId: 'owner-1', ttlSeconds: 3600, now })
    expect(await deleteExpiredRecords(t.deps)).toMatchObject({ sessions: 0 })
    t.clock.advance(3600)
    // Both owner sessions have expired (the second one this very second, as sign-in sees it); the admin's lives on.
    expect(await deleteExpiredRecords(t.deps, { batchSize: 1 })).toMatchObject({ sessions: 2 })
    expect(await t.db.session.count()).toBe(1)
    expect(await findSession(t.sql, 'admin', admin.value, t.clock.now)).not.toBeNull()
    expect(await findSession(t.sql, 'owner', owner.value, t.clock.now)).toBeNull()
    expect(await findSession(t.sql, 'owner', later.value, t.clock.now)).toBeNull()
  })
})

describe('deleteExpiredRecords: webhook events and deliveries', () => {
  // Default settings: WEBHOOK_RETENTION_DAYS 7, WEBHOOK_FAILED_RETENTION_DAYS 30; retries end 24 h after the event.
  const client = { wallet_address: 'https://wallet.example/app' }
  const actor = { type: 'administrator' as const, id: 'admin-1' }

  async function endpoint(id: string, types: string[]) {
    await t.sql.run(
      `INSERT INTO "WebhookEndpoint" ("id", "url", "secret", "createdBy", "createdAt", "updatedAt") VALUES ($1, $2, 'whsec_dGVzdA==', 'admin-1', $3, $3)`,
      [id, `https://${id}.example/hooks`, t.clock.now],
    )
    for (const type of types) await t.sql.run(`INSERT INTO "WebhookSubscription" ("endpointId", "eventType") VALUES ($1, $2)`, [id, type])
  }
  const blocked = () =>
    t.sql.transaction((tx) =>
      recordEventOrFail(tx, { type: 'client.blocked', data: { client, revoked_grants: 0, actor }, orderKey: 'client:c1' }, t.clock.now),
    )
  const unblocked = () =>
    t.sql.transaction((tx) => recordEventOrFail(tx, { type: 'client.unblocked', data: { client, actor }, orderKey: 'client:c2' }, t.clock.now))
  // `ok` answers 200, `down` 500.
  const deliver = () =>
    runDeliveryPass(t.deps, {
      fetch: ((url: URL) => Promise.resolve(new Response(null, { status: url.hostname === 'ok.example' ? 200 : 500 }))) as unknown as typeof fetch,
      random: () => 0.5,
    })
  const eventIds = async () => (await t.db.webhookEvent.findMany({ orderBy: { id: 'asc' } })).map((e) => e.id)
  const states = async () => (await t.db.webhookDelivery.findMany()).map((d) => `${d.endpointId}:${d.state}`).sort()

  it('deletes delivered events after WEBHOOK_RETENTION_DAYS, failed deliveries after WEBHOOK_FAILED_RETENTION_DAYS, never a pending one', async () => {
    await endpoint('ok', ['client.blocked', 'client.unblocked'])
    await endpoint('down', ['client.unblocked'])
    await endpoint('paused', ['subject.confirmed'])
    const delivered = await blocked()
    const failing = await unblocked()
    await deliver()
    expect(await states()).toEqual(['down:pending', 'ok:delivered', 'ok:delivered'])
    // An event of a disabled endpoint stays pending for as long as it is disabled: never deleted.
    const waiting = await t.sql.transaction(async (tx) =>
      recordEventOrFail(
        tx,
        {
          type: 'subject.confirmed',
          grantId: 'g1',
          data: { grant: { id: 'g1', client, access: [] }, sub_ids: [], actor: { type: 'client' } },
        },
        t.clock.now,
      ),
    )
    await t.sql.run(`UPDATE "WebhookEndpoint" SET "disabledAt" = $1 WHERE "id" = 'paused'`, [t.clock.now])

    t.clock.advance(7 * DAY - 1)
    expect(await deleteExpiredRecords(t.deps)).toMatchObject({ webhookEvents: 0, webhookFailedDeliveries: 0 })
    t.clock.advance(2)
    // The delivered event goes with its delivery; the other waits for its failing delivery.
    expect(await deleteExpiredRecords(t.deps)).toMatchObject({ webhookEvents: 1, webhookFailedDeliveries: 0 })
    expect(await eventIds()).toEqual([failing, waiting].sort())
    expect(await t.db.webhookDelivery.count({ where: { eventId: delivered } })).toBe(0)

    // Past its retry window, the next failed attempt gives up: failed, kept WEBHOOK_FAILED_RETENTION_DAYS from then.
    expect(await deliver()).toMatchObject({ failed: 1 })
    t.clock.advance(30 * DAY - 1)
    expect(await deleteExpiredRecords(t.deps)).toMatchObject({ webhookEvents: 0, webhookFailedDeliveries: 0 })
    expect(await states()).toEqual(['down:failed', 'ok:delivered', 'paused:pending'])
    t.clock.advance(2)
    // The failed delivery goes; then its event, whose other delivery succeeded long ago.
    expect(await deleteExpiredRecords(t.deps)).toMatchObject({ webhookEvents: 1, webhookFailedDeliveries: 1 })
    expect(await eventIds()).toEqual([waiting])
    expect(await states()).toEqual(['paused:pending'])

    t.clock.advance(365 * DAY)
    await deleteExpiredRecords(t.deps)
    expect(await eventIds()).toEqual([waiting])
  })

  it('deletes events that had no endpoint, and many in batches', async () => {
    await endpoint('ok', ['client.blocked', 'client.unblocked'])
    for (let i = 0; i < 3; i++) await blocked()
    for (let i = 0; i < 2; i++) await unblocked()
    // An event no endpoint receives is not written (docs/webhooks.md), but one whose endpoint has gone stays.
    await t.sql.run(`DELETE FROM "WebhookEndpoint" WHERE "id" = 'ok'`)
    expect(await t.db.webhookDelivery.count()).toBe(0)
    t.clock.advance(7 * DAY + 1)
    expect(await deleteExpiredRecords(t.deps, { batchSize: 2 })).toMatchObject({ webhookEvents: 5, webhookFailedDeliveries: 0 })
    expect(await t.db.webhookEvent.count()).toBe(0)
    expect(await t.db.webhookDelivery.count()).toBe(0)
  })
})

describe('startRetentionJob', () => {
  it('runs in the background on unref’d timers and stops', async () => {
    const g = await issueNonInteractiveGrant(t)
    t.clock.advance(31 * DAY)
    const stop = startRetentionJob(t.deps, { firstRunMs: 1, intervalMs: 60_000 })
    await expect.poll(() => t.db.accessToken.count(), { timeout: 5000 }).toBe(0)
    stop()
    expect(await t.db.accessToken.findUnique({ where: { managementId: g.managementId } })).toBeNull()
  })
})
