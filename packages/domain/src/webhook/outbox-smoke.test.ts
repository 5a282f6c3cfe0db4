import { describe, expect, it } from 'vitest'
import { Webhook } from 'standardwebhooks'
import { useTestDeps } from '../testing/use-test-deps'
import { recordEvent } from './outbox.repo'
import { runDeliveryPass } from './deliver-webhooks'
import { newWebhookSecret } from './webhook-signing'

const t = useTestDeps({ now: new Date() })

describe('outbox smoke', () => {
  it('delivers a recorded event signed', async () => {
    const secret = newWebhookSecret()
    await t.sql.run(
      `INSERT INTO "WebhookEndpoint" ("id","url","secret","createdBy","createdAt","updatedAt") VALUES ('e1','https://hooks.example/in',$1,'x',$2,$2)`,
      [secret, t.clock.now],
    )
    await t.sql.run(`INSERT INTO "WebhookSubscription" ("endpointId","eventType") VALUES ('e1','client.unblocked')`)
    await t.sql.transaction((tx) =>
      recordEvent(tx, { type: 'client.unblocked', data: { client: { wallet_address: 'https://w.example/a' }, actor: { type: 'administrator', id: 'a1' } }, orderKey: 'client:x' }, t.clock.now),
    )
    const seen: { headers: Headers; body: string }[] = []
    const fetch = (async (_url: URL, init: RequestInit) => {
      seen.push({ headers: new Headers(init.headers), body: init.body as string })
      return new Response('ok', { status: 200 })
    }) as unknown as typeof globalThis.fetch
    const r = await runDeliveryPass(t.deps, { fetch })
    expect(r).toMatchObject({ claimed: 1, delivered: 1 })
    const got = seen[0]!
    const verified = new Webhook(secret).verify(got.body, Object.fromEntries(got.headers.entries()))
    expect(verified).toMatchObject({ type: 'client.unblocked' })
    expect((await runDeliveryPass(t.deps, { fetch })).claimed).toBe(0)
  })
})
