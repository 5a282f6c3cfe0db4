// The webhook event types (docs/webhooks.md), with no imports: the console's browser code reads this list too
// (`@gnap/domain/webhook-types`).

export const WEBHOOK_EVENT_TYPES = [
  'grant.approved',
  'grant.rejected',
  'grant.issued',
  'grant.revoked',
  'grant.expired',
  'access_token.rotated',
  'access_token.revoked',
  'client.blocked',
  'client.unblocked',
  'subject.confirmed',
] as const

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

/** The type of "Send a test event": sent to one endpoint on request, whatever it subscribes to. */
export const TEST_EVENT_TYPE = 'webhook.test'

/** What each type tells, in a sentence, for the console's form. */
export const WEBHOOK_EVENT_DESCRIPTIONS: Record<WebhookEventType, string> = {
  'grant.approved': 'The owner approved a grant request.',
  'grant.rejected': 'The owner denied a grant request.',
  'grant.issued': 'A grant issued its first access token to the client (or, for a subject request, its confirmed subject).',
  'grant.revoked': 'A grant and its tokens were revoked: by the client, the owner, an administrator, an API key or a block.',
  'grant.expired': 'A grant request expired: nobody answered its interaction in time.',
  'access_token.rotated': 'The client rotated an access token.',
  'access_token.revoked': 'An access token was revoked on its own (not with its grant).',
  'client.blocked': 'An operator blocked a client; its grants were revoked.',
  'client.unblocked': 'An operator unblocked a client.',
  'subject.confirmed': 'The owner confirmed a subject (a wallet address they control) to a client.',
}
