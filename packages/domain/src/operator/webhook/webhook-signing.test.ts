import { describe, expect, it } from 'vitest'
import { Webhook, WebhookVerificationError } from 'standardwebhooks'
import { useTestDeps } from '../../testing/use-test-deps'
import { addWebhookEndpoint, fakeReceiver, recordGrantRevoked, type ReceivedRequest } from '../../testing/webhook-delivery'
import { runDeliveryPass } from './deliver-webhooks'
import { WEBHOOK_SECRET_SHAPE, newWebhookSecret, signWebhook } from './webhook-signing'

// Standard Webhooks signatures, checked with the library's own verifier, the one a receiver uses (README's receiver).
// Its timestamp check reads the real time, so every signature here is made at (about) the real time.

const body = JSON.stringify({ id: 'evt_1', type: 'grant.revoked', timestamp: '2025-01-15T12:00:00.000Z', data: { n: 1 } })
const secondsAgo = (s: number) => new Date(Date.now() - s * 1000)

/** What the receiver's `new Webhook(secret).verify(body, headers)` does with these. */
function verify(secret: string, payload: string, headers: Record<string, string>): unknown {
  return new Webhook(secret).verify(payload, headers)
}

describe('newWebhookSecret', () => {
  it('makes whsec_ and 32 random bytes in base64, which the library accepts', () => {
    const secrets = new Set(Array.from({ length: 50 }, newWebhookSecret))
    expect(secrets.size).toBe(50)
    for (const s of secrets) {
      expect(s).toMatch(WEBHOOK_SECRET_SHAPE)
      expect(Buffer.from(s.slice('whsec_'.length), 'base64')).toHaveLength(32)
      expect(() => new Webhook(s)).not.toThrow()
    }
  })
})

describe('signWebhook', () => {
  const secret = newWebhookSecret()

  it('gives the three headers, and the library verifies them and returns the body', () => {
    const at = new Date()
    const headers = signWebhook({ id: 'evt_1', at, body, secret })
    expect(headers).toEqual({
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/) as unknown,
    })
    expect(verify(secret, body, headers)).toEqual(JSON.parse(body))
    expect(verify(secret, body, Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v])))).toEqual(JSON.parse(body))
  })

  it.each([
    ['a changed character of the body', (h: Record<string, string>) => ({ body: body.replace('"n":1', '"n":2'), headers: h })],
    ['a space added to the body', (h: Record<string, string>) => ({ body: `${body} `, headers: h })],
    ['another webhook-id', (h: Record<string, string>) => ({ body, headers: { ...h, 'webhook-id': 'evt_2' } })],
    [
      'another webhook-timestamp',
      (h: Record<string, string>) => ({ body, headers: { ...h, 'webhook-timestamp': String(Number(h['webhook-timestamp']) - 1) } }),
    ],
    ['no signature', (h: Record<string, string>) => ({ body, headers: { ...h, 'webhook-signature': '' } })],
  ])('fails with %s', (_name, tamper) => {
    const tampered = tamper(signWebhook({ id: 'evt_1', at: new Date(), body, secret }))
    expect(() => verify(secret, tampered.body, tampered.headers)).toThrow(WebhookVerificationError)
  })

  it('fails with a timestamp older than the library tolerates (5 min), and passes just within it', () => {
    expect(() => verify(secret, body, signWebhook({ id: 'evt_1', at: secondsAgo(5 * 60 + 2), body, secret }))).toThrow(/too old/)
    expect(verify(secret, body, signWebhook({ id: 'evt_1', at: secondsAgo(4 * 60), body, secret }))).toEqual(JSON.parse(body))
    expect(() => verify(secret, body, signWebhook({ id: 'evt_1', at: secondsAgo(-6 * 60), body, secret }))).toThrow(/too new/)
  })

  it('fails with a wrong secret', () => {
    const headers = signWebhook({ id: 'evt_1', at: new Date(), body, secret })
    expect(() => verify(newWebhookSecret(), body, headers)).toThrow(/No matching signature/)
  })

  it('with a previous secret, signs with both: a receiver holding either verifies, a third secret does not', () => {
    const previous = newWebhookSecret()
    const headers = signWebhook({ id: 'evt_1', at: new Date(), body, secret, previousSecret: previous })
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2)
    expect(verify(secret, body, headers)).toEqual(JSON.parse(body))
    expect(verify(previous, body, headers)).toEqual(JSON.parse(body))
    expect(() => verify(newWebhookSecret(), body, headers)).toThrow(WebhookVerificationError)
    expect(signWebhook({ id: 'evt_1', at: new Date(), body, secret, previousSecret: null })['webhook-signature'].split(' ')).toHaveLength(1)
  })
})

describe('a delivery during and after a secret rotation', () => {
  const t = useTestDeps({ now: new Date() })
  const verifies = (secret: string, r: ReceivedRequest) => {
    try {
      verify(secret, r.body, r.headers)
      return true
    } catch (e) {
      if (e instanceof WebhookVerificationError) return false
      throw e
    }
  }

  it('is signed with the old and the new secret during the overlap, and with the new one only after it', async () => {
    const oldSecret = newWebhookSecret()
    const endpoint = await addWebhookEndpoint(t, { previousSecret: oldSecret, previousSecretUntil: new Date(t.clock.now.getTime() + 60_000) })
    const receiver = fakeReceiver()

    await recordGrantRevoked(t, 'grant-1')
    expect(await runDeliveryPass(t.deps, { fetch: receiver.fetch })).toMatchObject({ delivered: 1 })
    const during = receiver.received[0]!
    expect(verifies(endpoint.secret, during)).toBe(true)
    expect(verifies(oldSecret, during)).toBe(true)

    t.clock.advance(61)
    await recordGrantRevoked(t, 'grant-2')
    expect(await runDeliveryPass(t.deps, { fetch: receiver.fetch })).toMatchObject({ delivered: 1 })
    const after = receiver.received[1]!
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1)
    expect(verifies(endpoint.secret, after)).toBe(true)
    expect(verifies(oldSecret, after)).toBe(false)
  })

  it('carries the event id as webhook-id and the attempt time as webhook-timestamp', async () => {
    const endpoint = await addWebhookEndpoint(t)
    const receiver = fakeReceiver()
    const eventId = await recordGrantRevoked(t, 'grant-1')
    t.clock.advance(30)
    await runDeliveryPass(t.deps, { fetch: receiver.fetch })
    const r = receiver.received[0]!
    expect(r.headers['webhook-id']).toBe(eventId)
    expect(r.headers['webhook-timestamp']).toBe(String(Math.floor(t.clock.now.getTime() / 1000)))
    expect(verify(endpoint.secret, r.body, r.headers)).toMatchObject({ id: eventId, type: 'grant.revoked' })
  })
})
