import { TRPCClientError } from '@trpc/client'

// What a person reads when a call fails: the server's own words where it gives some (they are written for people:
// "the grant was already revoked"), else a sentence that says what happened and what to do.

interface ErrorData {
  code?: string
  httpStatus?: number
  gnapCode?: string | null
}

/** The tRPC code of a server's answer (`NOT_FOUND`…), or null when no answer came (network, server down). */
export function errorCode(e: unknown): string | null {
  if (!(e instanceof TRPCClientError)) return null
  const data = (e as TRPCClientError<never>).data as ErrorData | undefined
  return typeof data?.code === 'string' ? data.code : null
}

export const isUnauthorized = (e: unknown) => errorCode(e) === 'UNAUTHORIZED'

const sentence = (text: string) => {
  const t = text.trim()
  if (!t) return t
  const s = t[0]!.toUpperCase() + t.slice(1)
  return /[.!?]$/.test(s) ? s : `${s}.`
}

/**
 * One sentence for a failed query or mutation. `notFound` names what was looked for ("No grant has this id."),
 * since the server only says "unknown grant".
 */
export function errorMessage(e: unknown, opts: { notFound?: string } = {}): string {
  const code = errorCode(e)
  const message = e instanceof Error ? e.message : ''
  switch (code) {
    case null:
      return 'The server could not be reached. Check that it is running and that you are online, then try again.'
    case 'UNAUTHORIZED':
      return 'Your session has ended. Sign in again to continue.'
    case 'FORBIDDEN':
      // Below the procedure's role (docs/protocol.md §2.14) the server says which role it needs; else a stale CSRF token.
      return /\brole\b/.test(message) ? sentence(message) : 'This page is out of date for your session. Reload the page and try again.'
    case 'NOT_FOUND':
      return opts.notFound ?? 'Nothing was found with this id.'
    case 'CONFLICT':
    case 'TOO_MANY_REQUESTS':
    case 'BAD_REQUEST':
      return sentence(message) || 'The server refused the request.'
    default:
      return "Something went wrong on the server. Try again; if it keeps happening, look at the server's log."
  }
}
