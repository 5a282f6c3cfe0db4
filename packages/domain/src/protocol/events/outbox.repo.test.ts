import { describe, expect, it } from 'vitest'
import { useTestDeps } from '../../testing/use-test-deps'
import { addWebhookEndpoint, recordGrantRevoked } from '../../testing/webhook-delivery'
import { RETRY_WINDOW_MS } from './delivery-schedule'
import { recordEvent, recordTestEvent, undeliveredSummary } from './outbox.repo'
import { eventBodySchema } from './webhook-events'

// The outbox's own rules (docs/webhooks.md): an event and its deliveries are written with the caller's transaction
// or not at all, one delivery per enabled subscribed endpoint; the backlog the metrics report.

const t = useTestDeps()

const revokedData = (grantId: string) => ({
  grant: { id: grantId, client: { wallet_address: 'https://wallet.example/a' }, access: [] },
  revoked_tokens: 0,
  actor: { type: 'client' as const },
})

const counts = async () => ({ events: await t.db.webhookEvent.count(), deliveries: await t.db.webhookDelivery.count() })

describe('recordEvent', () => {
  it('writes nothing when the transaction it is part of rolls back', async () => {
    await addWebhookEndpoint(t)
    const failing = t.sql.transaction(async (tx) => {
      await recordEvent(
        tx,
        {
          type: 'grant.revoked',
          grantId: 'grant-1',
          data: {
            grant: { id: 'grant-1', client: { wallet_address: 'https://wallet.example/a' }, access: [] },
            revoked_tokens: 0,
            actor: { type: 'client' },
          },
        },
        t.clock.now,
      )
      throw new Error('the change failed after its event was written')
    })
    await expect(failing).rejects.toThrow(/the change failed/)
    expect(await counts()).toEqual({ events: 0, deliveries: 0 })
  })

  it('writes the event and a pending delivery due at once, given up 24 h after the event', async () => {
    const endpoint = await addWebhookEndpoint(t)
    const eventId = await recordGrantRevoked(t, 'grant-1')
    expect(await t.db.webhookEvent.findUniqueOrThrow({ where: { id: eventId } })).toMatchObject({
      type: 'grant.revoked',
      grantId: 'grant-1',
      createdAt: t.clock.now,
    })
    expect(await t.db.webhookDelivery.findMany()).toEqual([
      expect.objectContaining({
        eventId,
        endpointId: endpoint.id,
        orderKey: 'grant:grant-1',
        state: 'pending',
        attempts: 0,
        nextAttemptAt: t.clock.now,
        giveUpAt: new Date(t.clock.now.getTime() + RETRY_WINDOW_MS),
        leaseOwner: null,
      }),
    ])
  })

  it('writes no event and no delivery when no enabled endpoint subscribes to its type, and reads no grant for it', async () => {
    await addWebhookEndpoint(t, { eventTypes: ['grant.approved'] })
    await addWebhookEndpoint(t, { eventTypes: ['grant.revoked'], disabled: true })
    const statements: string[] = []
    const id = await t.sql.transaction((tx) =>
      recordEvent(
        { all: (sql, p) => (statements.push(sql), tx.all(sql, p)), run: (sql, p) => (statements.push(sql), tx.run(sql, p)) },
        { type: 'grant.revoked', grantId: 'grant-1', data: revokedData('grant-1') },
        t.clock.now,
      ),
    )
    expect(id).toBeNull()
    expect(await counts()).toEqual({ events: 0, deliveries: 0 })
    // One statement: the subscribed endpoints. No read of the grant's tenant, no insert.
    expect(statements).toHaveLength(1)
  })

  it('writes no event when every subscribed endpoint is bound to another tenant', async () => {
    await t.sql.run(
      `INSERT INTO "Tenant" ("id", "idpConsentUrl", "idpSecretHash", "apiSecret", "createdAt", "updatedAt") VALUES ('acme', 'https://idp.acme.example/consent', 'x', 'y', $1, $1)`,
      [t.clock.now],
    )
    const bound = await addWebhookEndpoint(t, { eventTypes: ['grant.revoked'] })
    await t.sql.run(`UPDATE "WebhookEndpoint" SET "tenantId" = 'acme' WHERE "id" = $1`, [bound.id])
    const id = await t.sql.transaction((tx) =>
      recordEvent(tx, { type: 'grant.revoked', grantId: 'grant-1', data: revokedData('grant-1') }, t.clock.now),
    )
    expect(id).toBeNull()
    expect(await counts()).toEqual({ events: 0, deliveries: 0 })
  })

  it('refuses data its type does not list, writing nothing', async () => {
    await addWebhookEndpoint(t)
    const data = {
      grant: { id: 'g', client: { wallet_address: 'https://wallet.example/a' }, access: [] },
      revoked_tokens: 0,
      actor: { type: 'client' },
      continue_token: 'secret',
    }
    await expect(
      t.sql.transaction((tx) => recordEvent(tx, { type: 'grant.revoked', grantId: 'g', data: data as never }, t.clock.now)),
    ).rejects.toThrow()
    expect(await counts()).toEqual({ events: 0, deliveries: 0 })
  })
})

describe('recordTestEvent', () => {
  it('makes one delivery to its endpoint, whatever the endpoint subscribes to', async () => {
    const endpoint = await addWebhookEndpoint(t, { eventTypes: ['grant.approved'] })
    await addWebhookEndpoint(t, { eventTypes: ['grant.approved'] })
    const eventId = await t.sql.transaction((tx) =>
      recordTestEvent(tx, endpoint.id, { endpoint_id: endpoint.id, actor: { type: 'administrator', id: 'admin-1' } }, t.clock.now),
    )
    expect(await t.db.webhookDelivery.findMany({ select: { eventId: true, endpointId: true } })).toEqual([{ eventId, endpointId: endpoint.id }])
  })
})

describe('undeliveredSummary', () => {
  it('counts the pending deliveries and gives the time of the oldest one’s event', async () => {
    expect(await undeliveredSummary(t.sql)).toEqual({ count: 0, oldest: null })
    await addWebhookEndpoint(t)
    await addWebhookEndpoint(t)
    const first = t.clock.now
    const delivered = await recordGrantRevoked(t, 'grant-0')
    t.clock.advance(60)
    await recordGrantRevoked(t, 'grant-1')
    await t.db.webhookDelivery.updateMany({ where: { eventId: delivered }, data: { state: 'delivered' } })
    expect(await undeliveredSummary(t.sql)).toEqual({ count: 2, oldest: new Date(first.getTime() + 60_000) })
    t.clock.advance(60)
    await recordGrantRevoked(t, 'grant-2')
    expect(await undeliveredSummary(t.sql)).toEqual({ count: 4, oldest: new Date(first.getTime() + 60_000) })
  })
})

describe('eventBodySchema', () => {
  it('is built once per type, not per event', () => {
    expect(eventBodySchema('access_token.rotated')).toBe(eventBodySchema('access_token.rotated'))
    expect(eventBodySchema('grant.revoked')).not.toBe(eventBodySchema('grant.issued'))
  })
})
