// The metrics port: what the use cases report for an operator's dashboards. The domain only
// names events; the web app counts them (apps/web/src/server/process/metrics.ts, prom-client). Every method is cheap and
// synchronous: it is called on the request path.

/** What became of a grant: issued a token, waits for interaction, approved or rejected by its owner, revoked, expired unanswered. */
export type GrantOutcome = 'issued' | 'pending' | 'approved' | 'rejected' | 'revoked' | 'expired'

/**
 * The check of an HTTP message signature that refused a request (docs/protocol.md §4.2): the signature headers'
 * syntax, the covered components, the parameters, the time window, the content digest, the key, the signature
 * itself, a replayed nonce.
 */
export type SignatureCheck = 'headers' | 'components' | 'parameters' | 'time' | 'digest' | 'key' | 'signature' | 'nonce'

/** An outbound fetch of a client's wallet address document or of its key set (docs/protocol.md §4.3). */
export type OutboundFetchKind = 'wallet_address' | 'jwks'

/**
 * How one outbound fetch ended: `ok`; `refused_address` (not a public address nor an allowed network); `failed`
 * (no answer: connection, timeout); `bad_response` (not 200, a redirect, too large, not the expected JSON);
 * `busy` (refused before fetching: too many fetches at once).
 */
export type OutboundFetchOutcome = 'ok' | 'refused_address' | 'failed' | 'bad_response' | 'busy'

/** Which limit refused a request with 429. */
export type RateLimitName =
  | 'grant_per_ip'
  | 'grant_per_client'
  | 'grant_directed_identities'
  | 'grant_directed_identity_per_address'
  | 'introspection_secret_failures'
  | 'idp_secret_failures'
  | 'sign_in'
  | 'password_checks'
  | 'api_key'
  | 'set_password'

/**
 * How one webhook delivery attempt ended (docs/webhooks.md): `delivered` (a 2xx), `retrying` (it failed and will be
 * tried again), `failed` (it failed and the retry window is over: given up).
 */
export type WebhookDeliveryOutcome = 'delivered' | 'retrying' | 'failed'

/** An Admin API operation (docs/admin-api.md): `grants`, `grant`, `revokeGrant`, or `other` (anything else, introspection included). */
export type AdminApiOperation = 'grants' | 'grant' | 'revokeGrant' | 'other'

/**
 * How an Admin API call ended: `ok`; `unauthorized` (401: signature missing, wrong, old, replayed, unknown tenant);
 * `not_found` (an unknown grant, or another tenant's); `invalid` (a bad request or query); `error` (anything else).
 */
export type AdminApiOutcome = 'ok' | 'unauthorized' | 'not_found' | 'invalid' | 'error'

export interface Metrics {
  /** `count` grants (default 1) reached `outcome`. */
  grant(outcome: GrantOutcome, count?: number): void
  /** A token issued with a grant (a rotation's successor is counted by tokenRotated). */
  tokenIssued(): void
  tokenRotated(): void
  /** `count` live tokens revoked at once (one token, or every live token of a grant or a client). */
  tokensRevoked(count: number): void
  /** A resource server's introspection answered: the token active or not. */
  introspection(active: boolean): void
  signatureFailure(check: SignatureCheck): void
  outboundFetch(kind: OutboundFetchKind, outcome: OutboundFetchOutcome, seconds: number): void
  rateLimited(limit: RateLimitName): void
  /** A webhook delivery attempt ended; `seconds` from the event to this attempt's end. */
  webhookDelivery(outcome: WebhookDeliveryOutcome, seconds: number): void
  /** An Admin API call answered. */
  adminApiCall(operation: AdminApiOperation, outcome: AdminApiOutcome): void
}

const nothing = (): void => undefined

/** Counts nothing: tests, tools, and a server with metrics off. */
export const noMetrics: Metrics = Object.freeze({
  grant: nothing,
  tokenIssued: nothing,
  tokenRotated: nothing,
  tokensRevoked: nothing,
  introspection: nothing,
  signatureFailure: nothing,
  outboundFetch: nothing,
  rateLimited: nothing,
  webhookDelivery: nothing,
  adminApiCall: nothing,
})
