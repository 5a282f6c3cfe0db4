import http from 'node:http'
import { secureHeaders } from './security-headers'

/**
 * The methods the Fetch standard forbids in a `Request` (CONNECT, TRACE, TRACK). Next builds a `Request` for every
 * route and every proxy run, so for these it throws and answers a plain-text 500 before any code of ours runs.
 * No endpoint takes them (RFC 9110 §9.3.8: TRACE reflects the request, headers and cookies included).
 */
const FORBIDDEN = new Set(['CONNECT', 'TRACE', 'TRACK'])

const patched = Symbol.for('gnap.forbiddenMethodsRefused')

/**
 * Answers a request with a forbidden method 405 with a GNAP error body and the security headers, in the HTTP
 * server itself, before Next sees it. `next start` creates its server before the instrumentation hook runs and
 * offers no other place between the socket and Next's adapter, so the refusal wraps the servers' `request` event.
 * Idempotent.
 */
export function refuseForbiddenMethods(): void {
  const proto = http.Server.prototype as http.Server & { [patched]?: true }
  if (proto[patched]) return
  proto[patched] = true
  const emit = proto.emit as (this: http.Server, event: string | symbol, ...args: unknown[]) => boolean
  proto.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'request') {
      const [req, res] = args as [http.IncomingMessage, http.ServerResponse]
      const method = (req.method ?? '').toUpperCase()
      if (FORBIDDEN.has(method)) {
        req.resume()
        const body = JSON.stringify({ error: { code: 'invalid_request', description: `method not allowed: ${method}` } })
        res.writeHead(405, {
          ...secureHeaders(),
          'cache-control': 'no-store',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          allow: 'GET, HEAD, POST, DELETE, OPTIONS',
        })
        res.end(body)
        return true
      }
    }
    return emit.call(this, event, ...args)
  } as typeof proto.emit
}
