import { describe, expect, it } from 'vitest'
import { useTestDeps } from '../../testing/use-test-deps'
import { addWebhookEndpoint, recordGrantRevoked } from '../../testing/webhook-delivery'
import { RETRY_WINDOW_MS } from './delivery-schedule'
import { recordEvent, recordTestEvent, undeliveredSummary } from './outbox.repo'

// The outbox's own rules (docs/webhooks.md): an event and its deliveries are written with the caller's transaction
// or not at all, one delivery per enabled subscribed endpoint; the backlog the metrics report.

const t = useTestDeps()

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

  it('keeps an event no endpoint subscribes to, with no delivery', async () => {
    await addWebhookEndpoint(t, { eventTypes: ['grant.approved'] })
    await recordGrantRevoked(t, 'grant-1')
    expect(await counts()).toEqual({ events: 1, deliveries: 0 })
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
