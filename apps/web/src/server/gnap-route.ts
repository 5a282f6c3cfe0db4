import { GnapError, createRequestAuth, readCapped, readSignatureInputs, type Deps, type RequestAuth, type SignedRequest } from '@gnap/domain'
import { getDeps } from './deps'
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from './limits'
import { securitySettings } from '../env'
import { newCspNonce, securityHeaders } from './security-headers'

export { MAX_BODY_BYTES }

export interface GnapContext {
  deps: Deps
  req: Request
  /** The parsed JSON body, or undefined when the request had none. */
  body: unknown
  params: Record<string, string>
  /** The signed-request view of the request; `auth()` checks the signature headers' shape first. */
  auth(): RequestAuth
}

type Handler = (ctx: GnapContext) => Promise<Response | object | null>

export interface GnapRouteOptions {
  /** Runs before the body is read, e.g. a rate limit; may throw a GnapError. */
  admit?: (deps: Deps, req: Request) => Promise<void>
}

/**
 * The one wrapper every GNAP handler goes through: reads the exact body bytes (size-capped), parses JSON,
 * builds the signed-request view, calls the use case, and maps every failure to a GNAP error body. A thrown
 * non-GnapError is a 500 request_denied with a generic text, logged without secrets.
 * A handler returns a JSON-able object (200), null (204), or a Response.
 */
export function gnapRoute(handler: Handler, options: GnapRouteOptions = {}) {
  return async (req: Request, route: { params: Promise<Record<string, string>> }): Promise<Response> => {
    const started = performance.now()
    let deps: Deps | undefined
    let res: Response
    try {
      deps = await getDeps()
      await options.admit?.(deps, req)
      const bytes = await readBody(req)
      const body = parseJson(req, bytes)
      const params = await route.params
      const signed: SignedRequest = {
        method: req.method,
        targetUri: targetUri(deps, req),
        headers: req.headers,
        body: bytes.length > 0 ? bytes : null,
      }
      const d = deps
      const out = await handler({
        deps: d,
        req,
        body,
        params,
        auth: () => {
          readSignatureInputs(signed)
          return createRequestAuth(d, signed)
        },
      })
      res = out instanceof Response ? withSecurityHeaders(out) : out === null ? empty(204) : json(200, out)
    } catch (e) {
      res = errorResponse(e, deps)
    }
    // The path is the caller's text: cut, so a hostile URL cannot flood the log.
    const path = new URL(req.url).pathname.slice(0, 200)
    deps?.log.info({ method: req.method, path, status: res.status, ms: Math.round(performance.now() - started) }, 'request')
    return res
  }
}

const settings = securitySettings()

/**
 * The web security headers (security-headers.ts) on a GNAP JSON answer. The proxy sets them on everything else;
 * the GNAP endpoints skip the proxy (src/proxy.ts `config`), because it cost about a quarter of a rotation's CPU.
 */
function securedHeaders(headers: Record<string, string>): Record<string, string> {
  return { ...securityHeaders({ nonce: newCspNonce(), ...settings }), 'cache-control': 'no-store', ...headers }
}

function withSecurityHeaders(res: Response): Response {
  const secured = new Response(res.body, res)
  for (const [name, value] of Object.entries(securedHeaders({}))) if (!res.headers.has(name)) secured.headers.set(name, value)
  return secured
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: securedHeaders({ 'content-type': 'application/json', ...headers }) })
}

/** A body-less answer (204, a redirect, an OPTIONS answer) with the security headers. */
export function empty(status: number, headers: Record<string, string> = {}): Response {
  return new Response(null, { status, headers: securedHeaders(headers) })
}

/**
 * The methods a GNAP endpoint does not take: 405 with its Allow header (RFC 9110 §15.5.6) and a GNAP error body;
 * OPTIONS answers 204 with Allow. Exported by each GNAP route file for every method it does not take, because Next's
 * own answers to them would not pass through the proxy (HEAD follows GET).
 */
export function otherMethods(allow: string): { notAllowed: () => Response; options: () => Response } {
  const allowed = `${allow}, OPTIONS`
  return {
    notAllowed: () => json(405, new GnapError('invalid_request', `method not allowed: use ${allow}`, 405).toBody(), { allow: allowed }),
    options: () => empty(204, { allow: allowed }),
  }
}

export function errorResponse(e: unknown, deps?: Deps): Response {
  if (e instanceof GnapError) {
    return json(e.status, e.toBody(), e.retryAfterSeconds !== undefined ? { 'retry-after': String(e.retryAfterSeconds) } : {})
  }
  deps?.log.error({ err: e instanceof Error ? { name: e.name, message: e.message, stack: e.stack } : String(e) }, 'internal error')
  return json(500, new GnapError('request_denied', 'internal error', 500).toBody())
}

/** `@target-uri` as the client signed it: the public base URL + the request's path and query (TLS may end at a proxy). */
function targetUri(deps: Deps, req: Request): string {
  const url = new URL(req.url)
  return deps.config.authServerUrl + url.pathname.replace(/^\/+/, '') + url.search
}

async function readBody(req: Request): Promise<Uint8Array> {
  const tooLarge = () => new GnapError('invalid_request', `request body larger than ${MAX_BODY_BYTES} bytes`, 413)
  if (Number(req.headers.get('content-length') ?? '0') > MAX_BODY_BYTES) throw tooLarge()
  const bytes = await readCapped(req.body, MAX_BODY_BYTES)
  if (bytes === null) throw tooLarge()
  return bytes
}

function parseJson(req: Request, bytes: Uint8Array): unknown {
  if (bytes.length === 0) return undefined
  const type = req.headers.get('content-type') ?? ''
  if (!/^application\/json\s*(;|$)/i.test(type)) throw new GnapError('invalid_request', 'content-type must be application/json')
  let text: string
  try {
    // RFC 8259 §8.1: JSON exchanged between systems is UTF-8; bytes that are not are refused, not replaced.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new GnapError('invalid_request', 'request body is not valid UTF-8')
  }
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) throw new GnapError('invalid_request', `request body is nested deeper than ${MAX_JSON_DEPTH} levels`)
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new GnapError('invalid_request', 'request body is not valid JSON')
  }
}

/**
 * Whether JSON text opens more than `max` arrays or objects inside each other, counted in one pass over the text
 * before parsing (brackets inside strings do not count), so no later recursion over the value can run deep.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // backslash: skip the escaped character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}
