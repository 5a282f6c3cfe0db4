import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'

// Signing as the Standard Webhooks specification says, with its own library (docs/webhooks.md): the signature of
// `<webhook-id>.<webhook-timestamp>.<body>` by HMAC-SHA256 with the endpoint's secret, sent as `v1,<base64>`.

/** A new signing secret in the specification's form: `whsec_` and 32 random bytes in base64. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`

/** The shape of a secret this server makes. */
export const WEBHOOK_SECRET_SHAPE = /^whsec_[A-Za-z0-9+/]{43}=$/

/**
 * The three headers of one attempt. With a previous secret still in its overlap, the signature header carries both
 * signatures, space-separated, and a receiver that knows either secret verifies it.
 */
export function signWebhook(input: { id: string; at: Date; body: string; secret: string; previousSecret?: string | null }): {
  'webhook-id': string
  'webhook-timestamp': string
  'webhook-signature': string
} {
  const signatures = [new Webhook(input.secret).sign(input.id, input.at, input.body)]
  if (input.previousSecret) signatures.push(new Webhook(input.previousSecret).sign(input.id, input.at, input.body))
  return {
    'webhook-id': input.id,
    'webhook-timestamp': String(Math.floor(input.at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  }
}
