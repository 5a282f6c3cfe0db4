// The console's own errors: the admin use cases refuse with these, never with a GNAP protocol error (their clients
// are administrators in the console, not GNAP clients). The codes follow tRPC's, which packages/api maps them to.

export type ConsoleErrorCode = 'not_found' | 'conflict' | 'bad_request'

// A process-wide brand rather than the prototype chain, as for GnapError: Next may bundle this module twice.
const BRAND = Symbol.for('@gnap/domain ConsoleError')

/** A refused console request; the message is written for the administrator and safe to show. */
export class ConsoleError extends Error {
  static [Symbol.hasInstance](value: unknown): value is ConsoleError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true
  }

  constructor(
    readonly code: ConsoleErrorCode,
    message: string,
  ) {
    super(message)
    this.name = 'ConsoleError'
    Object.defineProperty(this, BRAND, { value: true })
  }
}

export const isConsoleError = (e: unknown): e is ConsoleError => e instanceof ConsoleError
