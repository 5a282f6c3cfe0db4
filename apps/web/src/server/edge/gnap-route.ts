import {
  GnapError,
  bodyTooLarge,
  internalError,
  isDatabaseUnavailable,
  loggablePath,
  methodNotAllowed,
  serviceUnavailable,
} from '@gnap/domain/kernel'
import { createRequestAuth, type Deps, type RequestAuth, type SignedRequest } from '@gnap/domain/protocol'
import { getDeps } from '../process/deps'
import { routeMeter, routeTemplate, type RouteMeter } from '../process/metrics'
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from './limits'
import { JSON_LIMITS, readBody, type BodyRead } from './body'
import { noDocumentHeaders } from './security-headers'
import { tracedRoute } from './request-span'

export interface GnapContext<Input> {
  deps: Deps
  req: Request
  /** The body as the route's parser returned it (undefined when the route has no parser). */
  input: Input
  params: Record<string, string>
  /**
   * The signed-request view of the request: its GNAP token, and its signature checked against a client's keys.
   * Reading it checks the signature headers' shape (401 invalid_client), so a handler calls it after its own
   * earlier checks.
   */
  auth(): RequestAuth
}

export interface GnapRouteOptions<Input> {
  /** Runs before the body is read, e.g. a rate limit; may throw a GnapError. */
  admit?: (deps: Deps, req: Request) => Promise<void>
  /** A credential that is not a signature (the resource server's bearer secret): checked before the body's shape. */
  authorize?: (deps: Deps, req: Request) => void | Promise<void>
  /** The operation's body parser, from its `*.wire.ts`: the one place a GNAP body is parsed. */
  parse?: (json: unknown) => Input
  /**
   * The path the client sent the request to, when the route serves it under another (a rewrite): `@target-uri` is
   * the public base URL + this path + the query. Default: the request's own path.
   */
  targetPath?: (params: Record<string, string>) => string
}

type Handler<Input> = (ctx: GnapContext<Input>) => Promise<Response | object | null>

/**
 * The one wrapper every GNAP JSON handler goes through, in this order: `admit`; the exact body bytes (size-capped)
 * and their JSON; `authorize`; `parse`; then the handler, which calls one use case. Every failure becomes a GNAP
 * error body: a GnapError with its status, anything else a 500 request_denied with a generic text, logged without
 * secrets. A handler returns a JSON-able object (200), null (204), or a Response. Every answer carries the security
 * headers (security-headers.ts) and `Cache-Control: no-store`.
 */
export function gnapRoute<Input = undefined>(options: GnapRouteOptions<Input>, handler: Handler<Input>) {
  // This handler's route template and its meter, worked out from its first request (metrics.ts) and kept once one fits.
  let meter: RouteMeter | null = null
  const meterOf = async (deps: Deps, req: Request, route: { params: Promise<Record<string, string>> }): Promise<RouteMeter> => {
    // A route without dynamic segments has no params.
    const template = routeTemplate(new URL(req.url).pathname, (await route.params) ?? {})
    if (template === null) return routeMeter(deps.metrics, 'unknown')
    return (meter = routeMeter(deps.metrics, template))
  }
  // The span's name: the same template as the meter's, kept once known (request-span.ts).
  let template: string | null = null
  const templateOf = async (req: Request, route: { params: Promise<Record<string, string>> }): Promise<string> =>
    template ?? (template = routeTemplate(new URL(req.url).pathname, (await route.params) ?? {})) ?? 'unknown'
  return tracedRoute(templateOf, async (req: Request, route: { params: Promise<Record<string, string>> }): Promise<Response> => {
    const started = performance.now()
    let deps: Deps | undefined
    let res: Response
    try {
      deps = await getDeps()
      await options.admit?.(deps, req)
      const { bytes, body } = parseJsonBody(req.headers.get('content-type'), await readBody(req, JSON_LIMITS))
      await options.authorize?.(deps, req)
      const input = (options.parse ? options.parse(body) : undefined) as Input
      const params = await route.params
      const d = deps
      // Built when the handler asks for it: a request authorized otherwise (the bearer secret) needs no target URI.
      const signed = (): SignedRequest => ({
        method: req.method,
        targetUri: targetUri(d, req, options.targetPath?.(params)),
        headers: req.headers,
        body: bytes.length > 0 ? bytes : null,
      })
      const out = await handler({ deps: d, req, input, params, auth: () => createRequestAuth(d, signed()) })
      res = out instanceof Response ? withSecurityHeaders(out) : out === null ? empty(204) : json(200, out)
    } catch (e) {
      res = errorResponse(e, deps)
    }
    if (deps) {
      const m = meter ?? (await meterOf(deps, req, route))
      m.done(req.method, res.status, (performance.now() - started) / 1000)
    }
    // The path without its secrets (the interaction nonce) and cut, so a hostile URL cannot flood the log; worked
    // out only when the request log is on.
    if (deps?.log.isLevelEnabled('info')) {
      deps.log.info({ method: req.method, path: loggablePath(req.url), status: res.status, ms: Math.round(performance.now() - started) }, 'request')
    }
    return res
  })
}

// The security headers of an answer that is no document (security-headers.ts) and `no-store`, built once: these
// answers render no script, so they need no per-request CSP nonce.
const SECURED: Readonly<Record<string, string>> = Object.freeze({ ...noDocumentHeaders, 'cache-control': 'no-store' })
const SECURED_JSON: Readonly<Record<string, string>> = Object.freeze({ ...SECURED, 'content-type': 'application/json' })

/** The security headers, `no-store`, then the answer's own headers (the introspection listener's too). */
export const securedHeaders = (headers: Record<string, string>): Record<string, string> => ({ ...SECURED, ...headers })

function withSecurityHeaders(res: Response): Response {
  const secured = new Response(res.body, res)
  for (const [name, value] of Object.entries(SECURED)) if (!res.headers.has(name)) secured.headers.set(name, value)
  return secured
}

export function json(status: number, body: unknown, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: headers ? { ...SECURED_JSON, ...headers } : SECURED_JSON })
}

/** A body-less answer (204, a redirect, an OPTIONS answer) with the security headers. */
export function empty(status: number, headers: Record<string, string> = {}): Response {
  return new Response(null, { status, headers: securedHeaders(headers) })
}

/** The answers of route files outside the GNAP error bodies, by name: the status lives here, not in the route. */
export const answers = {
  /** 200 with a JSON body (the probes, docs/protocol.md §2.19). */
  ok: (body: unknown) => json(200, body),
  /** 202 without a body: recorded, nothing to return (id-provider.yaml post-grant-choice). */
  accepted: () => empty(202),
  /** 307 to a relative Location (RFC 9110 §10.2.2), which stays right behind a proxy that rewrites the host. */
  temporaryRedirect: (location: string) => empty(307, { location }),
  /** 503 with a JSON body: this process may not take traffic now (/readyz). */
  unavailable: (body: unknown) => json(503, body),
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

/**
 * The answers to the methods a GNAP endpoint does not take: 405 with its Allow header (RFC 9110 §15.5.6) and a GNAP
 * error body, and OPTIONS: 204 with Allow. A route file exports those it needs (`export const { GET, OPTIONS } =
 * otherMethods('POST')`), because Next's own answers to them would not pass through the proxy (HEAD follows GET).
 */
export function otherMethods(allow: string): Record<(typeof METHODS)[number], () => Response> & { OPTIONS: () => Response } {
  const allowed = `${allow}, OPTIONS`
  const notAllowed = () => json(405, methodNotAllowed(allow).toBody(), { allow: allowed })
  return {
    ...(Object.fromEntries(METHODS.map((m) => [m, notAllowed])) as Record<(typeof METHODS)[number], () => Response>),
    OPTIONS: () => empty(204, { allow: allowed }),
  }
}

export function errorResponse(e: unknown, deps?: Deps): Response {
  const { status, body, headers } = errorAnswer(e, deps)
  return json(status, body, headers)
}

/** A failure as a GNAP answer: its status, error body and own headers (Retry-After); the cause logged when unexpected. */
export function errorAnswer(e: unknown, deps?: Deps): { status: number; body: object; headers: Record<string, string> } {
  if (!(e instanceof GnapError) && isDatabaseUnavailable(e)) {
    // docs/protocol.md §9: the database is unreachable for now; the client tries again after Retry-After.
    const err = e as { name?: unknown; message?: unknown; code?: unknown }
    deps?.log.warn({ err: { name: err.name, message: err.message, code: err.code } }, 'database unavailable')
    e = serviceUnavailable()
  }
  if (e instanceof GnapError) {
    return { status: e.status, body: e.toBody(), headers: e.retryAfterSeconds !== undefined ? { 'retry-after': String(e.retryAfterSeconds) } : {} }
  }
  deps?.log.error({ err: e instanceof Error ? { name: e.name, message: e.message, stack: e.stack } : String(e) }, 'internal error')
  return { status: 500, body: internalError().toBody(), headers: {} }
}

/** `@target-uri` as the client signed it: the public base URL + the request's path and query (TLS may end at a proxy). */
function targetUri(deps: Deps, req: Request, path?: string): string {
  const url = new URL(req.url)
  return deps.config.authServerUrl + (path ?? url.pathname).replace(/^\/+/, '') + url.search
}

// RFC 8259 §8.1: JSON exchanged between systems is UTF-8; bytes that are not are refused, not replaced. One decoder
// serves every request: a decode() without `stream` starts afresh each time.
const UTF8 = new TextDecoder('utf-8', { fatal: true })

/**
 * A request body read by the body reader (body.ts) as a GNAP body: 413 past the byte cap; undefined when empty; else
 * 400 unless it is application/json, UTF-8, not nested too deep and valid JSON, checked in that order.
 */
export function parseJsonBody(contentType: string | null, read: BodyRead): { bytes: Uint8Array; body: unknown } {
  if (read.kind === 'too-large') throw bodyTooLarge(MAX_BODY_BYTES)
  const { bytes } = read
  if (bytes.length === 0) return { bytes, body: undefined }
  const type = contentType ?? ''
  if (!/^application\/json\s*(;|$)/i.test(type)) throw new GnapError('invalid_request', 'content-type must be application/json')
  let text: string
  try {
    text = UTF8.decode(bytes)
  } catch {
    throw new GnapError('invalid_request', 'request body is not valid UTF-8')
  }
  if (read.kind === 'too-deep') throw new GnapError('invalid_request', `request body is nested deeper than ${MAX_JSON_DEPTH} levels`)
  try {
    return { bytes, body: JSON.parse(text) as unknown }
  } catch {
    throw new GnapError('invalid_request', 'request body is not valid JSON')
  }
}
