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

export class GnapError extends Error {
  static [Symbol.hasInstance](value: unknown): value is GnapError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true
  }

  readonly status: number
  /** Sent as `Retry-After` (seconds) with the answer, for a refused rate-limited request (429). */
  readonly retryAfterSeconds?: number
  constructor(
    readonly code: GnapErrorCode,
    description: string,
    status?: number,
    options: { retryAfterSeconds?: number } = {},
  ) {
    super(description)
    this.name = 'GnapError'
    this.status = status ?? defaultStatus[code]
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds
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
