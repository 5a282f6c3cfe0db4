import pino, { type Logger } from 'pino'
import { currentRequestId } from './ops/request-id'
import { activeTraceIds } from './tracing'

/**
 * Structured logs. Secrets are never passed to the logger by our code; redaction is a second line of defence
 * for anything that carries headers or bodies (docs/protocol.md §8.9).
 *
 * By default lines go to stdout asynchronously: a request never waits for a write to the terminal or a pipe.
 * pino flushes what is buffered when the process exits; a crash may lose the last lines.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      // The id of the request being served, on every line written while serving it (docs/protocol.md §2.19).
      // With tracing on (docs/operating.md "Traces"), the active span's trace_id and span_id too.
      mixin: () => {
        const requestId = currentRequestId()
        const ids = activeTraceIds()
        if (ids === undefined) return requestId === undefined ? {} : { requestId }
        return requestId === undefined ? ids : { requestId, ...ids }
      },
      redact: {
        paths: [
          // credentials in headers, wherever a header bag is logged
          'authorization',
          '*.authorization',
          'headers.authorization',
          'headers.signature',
          'headers.cookie',
          'headers["set-cookie"]',
          'headers["x-idp-secret"]',
          '*.headers.authorization',
          '*.headers.signature',
          '*.headers.cookie',
          '*.headers["set-cookie"]',
          '*.headers["x-idp-secret"]',
          'signature',
          '*.signature',
          'cookie',
          '*.cookie',
          // token values, continuation tokens, interaction references and finish hashes (GNAP wire names)
          'value',
          '*.value',
          'access_token',
          '*.access_token',
          'continue.access_token',
          'interact_ref',
          '*.interact_ref',
          'interactRef',
          '*.interactRef',
          'hash',
          '*.hash',
          // secrets by the names the code gives them (settings, sessions, passwords)
          'token',
          '*.token',
          'session',
          '*.session',
          'password',
          '*.password',
          'csrf',
          '*.csrf',
          'idpSecret',
          '*.idpSecret',
          'introspectionSecrets',
          '*.introspectionSecrets',
          'identityServerSecrets',
          '*.identityServerSecrets',
        ],
        censor: '[redacted]',
      },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  )
}

/** The first path segments of the routes whose third segment is the interaction's nonce (docs/protocol.md §2.7–§2.11). */
const NONCE_ROUTES = new Set(['interact', 'grant'])

/**
 * A request path as the request log may hold it (docs/protocol.md §8.9): the interaction nonce of
 * `/interact/{id}/{nonce}/…` and `/grant/{id}/{nonce}/…` replaced by `[redacted]` (with the id, it opens the
 * interaction), and so is the secret of an owner's link `/account/set-password/{secret}` (docs/protocol.md §7) and
 * of an administrator's `/admin/set-password/{secret}` (§2.14),
 * under any spelling the router accepts (percent-encoded, upper case, doubled or dot segments); the query left out
 * (finish URLs carry `interact_ref` and `hash` there); the rest cut to 200 characters so a hostile URL cannot flood
 * the log. Takes a path or a whole URL.
 */
export function loggablePath(pathOrUrl: string): string {
  let path: string
  try {
    path = new URL(pathOrUrl.startsWith('/') ? `http://x${pathOrUrl}` : pathOrUrl).pathname
  } catch {
    path = pathOrUrl.split(/[?#]/)[0] ?? ''
  }
  const segments = path.split('/')
  const named = segments.flatMap((s, i) => (s === '' ? [] : [i]))
  const name = (n: number) => (named[n] === undefined ? '' : decoded(segments[named[n] as number] ?? '').toLowerCase())
  const secretAt = named[2]
  // `/interact/{id}/{nonce}/…`, `/grant/{id}/{nonce}/…` and the one-time links `/account/set-password/{secret}` and
  // `/admin/set-password/{secret}` (docs/protocol.md §7, §2.14): the third segment opens something.
  const first = name(0)
  const isLink = (first === 'account' || first === 'admin') && name(1) === 'set-password'
  if ((NONCE_ROUTES.has(first) || isLink) && secretAt !== undefined) segments[secretAt] = '[redacted]'
  return segments.join('/').slice(0, 200)
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}
