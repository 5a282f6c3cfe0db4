// The console's own errors: the admin use cases refuse with these, never with a GNAP protocol error (their clients
// are administrators in the console, not GNAP clients). The codes follow tRPC's (a code's tRPC name is its upper
// case), which packages/api maps them to.

/**
 * The HTTP status of every console refusal (docs/protocol.md §2.18): the one table that tRPC's answers
 * (packages/api/src/trpc.ts), the REST form's (packages/api/src/rest.ts) and the console's route-level refusals
 * (apps/web's `/api/trpc`, `/api/v1` and the audit export) all read.
 */
export const CONSOLE_ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_supported: 405,
  conflict: 409,
  payload_too_large: 413,
  too_many_requests: 429,
  service_unavailable: 503,
} as const

export type ConsoleErrorCode = keyof typeof CONSOLE_ERROR_STATUS

/** The console code of an HTTP status (a GnapError's, turned into a console answer), or null for none in the table. */
export function consoleCodeForStatus(status: number): ConsoleErrorCode | null {
  const found = Object.entries(CONSOLE_ERROR_STATUS).find(([, s]) => s === status)
  return found ? (found[0] as ConsoleErrorCode) : null
}

// A process-wide brand rather than the prototype chain, as for GnapError: Next may bundle this module twice.
const BRAND = Symbol.for('@gnap/domain ConsoleError')

/** A refused console request; the message is written for the administrator and safe to show. */
export class ConsoleError extends Error {
  static [Symbol.hasInstance](value: unknown): value is ConsoleError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true
  }

  /** The HTTP status of the code, from CONSOLE_ERROR_STATUS. */
  readonly status: number

  constructor(
    readonly code: ConsoleErrorCode,
    message: string,
  ) {
    super(message)
    this.status = CONSOLE_ERROR_STATUS[code]
    this.name = 'ConsoleError'
    Object.defineProperty(this, BRAND, { value: true })
  }
}

export const isConsoleError = (e: unknown): e is ConsoleError => e instanceof ConsoleError
