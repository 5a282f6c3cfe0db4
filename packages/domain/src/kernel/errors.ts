import type { z } from 'zod'

// One error type for the protocol. The HTTP status belongs to the code (RFC 9635 §3.6 codes, statuses from
// auth-server.yaml); a second status is given only where the contract lists one for that code.

export type GnapErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_continuation'
  | 'invalid_rotation'
  | 'too_fast'
  | 'too_many_attempts'
  | 'request_denied'
  | 'user_denied'
  | 'invalid_interaction'
  | 'unknown_interaction'

const defaultStatus = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_continuation: 401,
  invalid_rotation: 400,
  too_fast: 400,
  too_many_attempts: 400,
  request_denied: 401,
  user_denied: 401,
  invalid_interaction: 401,
  unknown_interaction: 404,
} satisfies Record<GnapErrorCode, number>

// Next bundles instrumentation.ts and the route handlers as separate module graphs, so one process can hold two
// copies of this class (the deps built at start-up throw the other copy's errors). `instanceof` therefore checks
// a process-wide brand instead of the prototype chain.
const BRAND = Symbol.for('@gnap/domain GnapError')
const PRESCRIBED = Symbol('prescribed status')

/**
 * A protocol error. `new GnapError(code, description)` always answers the code's own status; a status the contract
 * prescribes for one case only comes from a named factory below, so no throw site picks a number.
 */
export class GnapError extends Error {
  static [Symbol.hasInstance](value: unknown): value is GnapError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true
  }

  readonly status: number
  /** Sent as `Retry-After` (seconds) with the answer, for a refused rate-limited request (429). */
  readonly retryAfterSeconds?: number

  /** `prescribed` is module-private (its key is not exported): only the factories below give another status. */
  constructor(
    readonly code: GnapErrorCode,
    description: string,
    prescribed?: { [PRESCRIBED]: number; retryAfterSeconds?: number },
  ) {
    super(description)
    this.name = 'GnapError'
    this.status = prescribed?.[PRESCRIBED] ?? defaultStatus[code]
    if (prescribed?.retryAfterSeconds !== undefined) this.retryAfterSeconds = prescribed.retryAfterSeconds
    Object.defineProperty(this, BRAND, { value: true })
  }

  toBody(): GnapErrorBody {
    return { error: { code: this.code, description: this.message } }
  }
}

export interface GnapErrorBody {
  error: { code: GnapErrorCode; description: string }
}

export const isGnapError = (e: unknown): e is GnapError => e instanceof GnapError

const withStatus = (code: GnapErrorCode, description: string, status: number, retryAfterSeconds?: number): GnapError =>
  new GnapError(code, description, { [PRESCRIBED]: status, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) })

/** The contract operations a client signs (auth-server.yaml operation ids). */
export type ClientOperation = 'post-request' | 'post-continue' | 'delete-continue' | 'post-token' | 'delete-token'

// docs/protocol.md §4.3: when no key of the client can be found (no such kid, or its wallet address or key set cannot
// be fetched), the contract lists 400 invalid_client for the grant request and continuation only; the other
// operations list no 400, so there it is the 401 of any failed signature.
const unresolvableKeyStatus = {
  'post-request': 400,
  'post-continue': 400,
  'delete-continue': 401,
  'post-token': 401,
  'delete-token': 401,
} satisfies Record<ClientOperation, number>

/** No key of the client can be resolved for `operation`: 400 or 401 as its contract says. */
export const unresolvableClientKey = (operation: ClientOperation, description = 'could not determine client'): GnapError =>
  withStatus('invalid_client', description, unresolvableKeyStatus[operation])

/** The `client` of a grant request is absent, malformed, not allowed, or its wallet address cannot be used (400). */
export const badClient = (description: string): GnapError => withStatus('invalid_client', description, 400)

/**
 * An operator blocked the client instance (docs/protocol.md §2.16): its grant requests, continuations and token
 * management are refused with 401 invalid_client. The operator's reason is not told.
 */
export const clientBlocked = (): GnapError =>
  new GnapError('invalid_client', 'this client is blocked on this authorization server: ask its operator to unblock it')

/** post-continue: no grant has this continuation id (404). */
export const unknownContinuationId = (): GnapError => withStatus('invalid_continuation', 'unknown continuation id', 404)

/** delete-continue: no grant has this continuation id (404 invalid_request). */
export const unknownGrantToCancel = (): GnapError => withStatus('invalid_request', 'unknown continuation id', 404)

/** The grant a request refers to does not exist (any longer): 404 invalid_request. */
export const unknownGrant = (): GnapError => withStatus('invalid_request', 'unknown grant', 404)

/** A grant request at `POST /{tenantId}` for a tenant that does not exist or was deleted, and the service API's calls about one (docs/protocol.md §2.21): 404 invalid_request. */
export const unknownTenant = (): GnapError => withStatus('invalid_request', 'unknown tenant', 404)

/** The service API's create of an id that belongs to a deleted tenant (docs/protocol.md §2.21): ids are never reused. */
export const tenantIdTaken = (): GnapError =>
  withStatus('invalid_request', 'this tenant id belonged to a deleted tenant and cannot be used again', 409)

/** The service API's delete of the operator tenant (docs/protocol.md §2.21): the server serves `POST /` for it. */
export const operatorTenantKept = (): GnapError => withStatus('invalid_request', 'the operator tenant (OPERATOR_TENANT_ID) cannot be deleted', 409)

/** post-continue: the interact_ref is not this grant's (404). */
export const unknownInteractRef = (): GnapError => withStatus('invalid_continuation', 'unknown interaction reference', 404)

/** post-continue: an interact_ref used a second time (RFC 9635 §5.1; docs/protocol.md §2.2 answers 401). */
export const interactRefReused = (): GnapError => withStatus('too_many_attempts', 'the interaction reference was already used', 401)

/** post-token: the management URI names no live token (unknown, rotated away, revoked) (404). */
export const unknownManagementId = (): GnapError => withStatus('invalid_rotation', 'no live token at this management URI', 404)

/** id-provider.yaml: the interaction is not waiting for a decision (400). */
export const interactionNotAwaitingDecision = (): GnapError => withStatus('invalid_interaction', 'the interaction is not awaiting a decision', 400)

/** id-provider.yaml: the `x-idp-secret` header is missing or wrong (401, with the operation's code). */
export const badIdpSecret = (code: 'invalid_request' | 'invalid_interaction'): GnapError => withStatus(code, 'invalid x-idp-secret', 401)

/** Too many requests: 429 request_denied with `Retry-After` (docs/protocol.md §7). */
export const rateLimited = (description: string, retryAfterSeconds: number): GnapError =>
  withStatus('request_denied', description, 429, retryAfterSeconds)

/**
 * The process already runs as many outbound wallet address fetches as it takes, with a full queue: 503 request_denied
 * with `Retry-After` (docs/protocol.md §4.3). The server's state, not the client's fault: nothing is remembered.
 */
export const outboundFetchesBusy = (): GnapError => withStatus('request_denied', 'too many wallet address lookups in progress: retry shortly', 503, 1)

/** The request body is larger than the server takes (413). */
export const bodyTooLarge = (maxBytes: number): GnapError => withStatus('invalid_request', `request body larger than ${maxBytes} bytes`, 413)

/** A path no endpoint of this server serves (404): the introspection listener serves `/` only (docs/protocol.md §2.6). */
export const pathNotFound = (): GnapError => withStatus('invalid_request', 'not found', 404)

/** A method the endpoint does not take (405). */
export const methodNotAllowed = (allow: string): GnapError => withStatus('invalid_request', `method not allowed: use ${allow}`, 405)

/** Seconds a client is asked to wait before trying again while the database cannot be reached. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5

/**
 * The database cannot be reached for now (docs/protocol.md §9): 503 with `Retry-After`; nothing was decided, so the
 * client sends the same request again later.
 */
export const serviceUnavailable = (): GnapError =>
  withStatus('request_denied', 'the service is temporarily unavailable: try again later', 503, UNAVAILABLE_RETRY_AFTER_SECONDS)

/** Anything that is not a GnapError: 500 with a generic text, the cause logged and never sent. */
export const internalError = (): GnapError => withStatus('request_denied', 'internal error', 500)

/** The first zod issue as a client-safe invalid_request description ("access_token.access.0.actions: ..."). */
export function zodToGnap(error: z.ZodError): GnapError {
  const issue = error.issues[0]
  if (!issue) return new GnapError('invalid_request', 'invalid request')
  const path = issue.path.map(String).join('.')
  let message = issue.message
  if (issue.code === 'unrecognized_keys') message = `unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}`
  return new GnapError('invalid_request', path ? `${path}: ${message}` : message)
}

/** A disabled owner gave the right password: told only then, so a guesser learns nothing (docs/protocol.md §2.13). */
export const ownerDisabled = (): GnapError => withStatus('request_denied', 'this account is disabled', 403)

/** What an owner of a deleted tenant is told after the right password (docs/protocol.md §2.21). */
export const OWNER_TENANT_DELETED = 'the provider of this account no longer uses this server'

/** An owner of a deleted tenant gave the right password: told only then, as a disabled owner is. */
export const ownerTenantDeleted = (): GnapError => withStatus('request_denied', OWNER_TENANT_DELETED, 403)
