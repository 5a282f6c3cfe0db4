import { listenerSpan } from './listener-span'
import http from 'node:http'
import { loggablePath, methodNotAllowed, pathNotFound } from '@gnap/domain/kernel'
import { introspectForResourceServer, introspectWithoutCredentials, type Deps } from '@gnap/domain/protocol'
import { listenerCallerAddress } from './caller-ip'
import { errorAnswer, parseJsonBody, securedHeaders } from './gnap-route'
import { closeWhenStopping } from '../process/process-edge'
import { checkBody, JSON_LIMITS } from './body'
import { routeMeter } from '../process/metrics'

// The resource servers' introspection listener (docs/protocol.md §2.6): token-introspection.yaml's POST / on a port
// of its own (INTROSPECTION_PORT, bound to INTROSPECTION_HOST), served by a plain node:http handler in each process
// that serves the app, beside Next's POST /introspect. Next's request path costs more than the introspection itself;
// this one does only what the route wrapper does for /introspect (server/edge/gnap-route.ts), with its pieces: the capped
// body, its JSON, the use case, the GNAP errors, the security headers and the request log line. Under the launcher,
// every worker listens on the same address: node:cluster opens it once in the primary, which hands the connections
// to the workers in turn, as for the app's own port. It also answers GET /healthz, which Rafiki's Helm chart probes on
// its introspection port, and, with INTROSPECTION_PORT_AUTH=none, introspects without credentials as Rafiki's backend
// calls it.

const ALLOW = 'POST, OPTIONS'
const PROBE_ALLOW = 'GET, OPTIONS'

interface Answer {
  status: number
  body?: object
  headers: Record<string, string>
}

/**
 * A request header as the route handler sees it: Next builds its Request from node's parsed headers, which keep the
 * first of repeated Authorization and Content-Type lines and join repeated X-Forwarded-For lines with `, `.
 */
function header(req: http.IncomingMessage, name: 'authorization' | 'content-type' | 'x-forwarded-for'): string | null {
  const value = req.headers[name]
  return Array.isArray(value) ? value.join(', ') : (value ?? null)
}

/**
 * The body's bytes from node's stream, within the body reader's limits (body.ts): null past the byte cap (declared or
 * sent), which the route wrapper's parser answers with 413.
 */
export function readNodeBody(req: http.IncomingMessage): Promise<Uint8Array | null> {
  const max = JSON_LIMITS.maxBytes
  if (Number(req.headers['content-length'] ?? '0') > max) return Promise.resolve(null)
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let total = 0
    const onData = (chunk: Buffer) => {
      total += chunk.length
      if (total <= max) return void chunks.push(chunk)
      // The rest is read and dropped by node once the answer is sent; nothing more is kept.
      req.off('data', onData)
      req.resume()
      resolve(null)
    }
    req.on('data', onData)
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)))
    req.once('error', reject)
  })
}

/** The request's path, without its query. */
function pathOf(req: http.IncomingMessage): string {
  const url = req.url ?? '/'
  const query = url.indexOf('?')
  return query < 0 ? url : url.slice(0, query)
}

/**
 * GET /healthz as on the app's port (docs/protocol.md §2.19): 200 while the process serves, reading nothing; HEAD as
 * GET (node sends no body), OPTIONS 204, any other method 405.
 */
function liveness(method: string | undefined): Answer {
  if (method === 'GET' || method === 'HEAD') return { status: 200, body: { status: 'ok' }, headers: {} }
  if (method === 'OPTIONS') return { status: 204, headers: { allow: PROBE_ALLOW } }
  return { status: 405, body: methodNotAllowed('GET').toBody(), headers: { allow: PROBE_ALLOW } }
}

async function answer(deps: Deps, req: http.IncomingMessage): Promise<Answer> {
  if (pathOf(req) !== '/') throw pathNotFound()
  if (req.method === 'OPTIONS') return { status: 204, headers: { allow: ALLOW } }
  if (req.method !== 'POST') return { status: 405, body: methodNotAllowed('POST').toBody(), headers: { allow: ALLOW } }
  const { body } = parseJsonBody(header(req, 'content-type'), checkBody(await readNodeBody(req), JSON_LIMITS))
  // INTROSPECTION_PORT_AUTH=none (docs/protocol.md §2.6): Rafiki's backend sends no credentials; an Authorization
  // header is not read, and nothing is counted.
  if (deps.config.introspectionPortAuth === 'none') return { status: 200, body: await introspectWithoutCredentials(deps, body), headers: {} }
  const caller = { authorization: header(req, 'authorization'), ip: listenerCallerAddress(req, header(req, 'x-forwarded-for'), deps.config) }
  return { status: 200, body: await introspectForResourceServer(deps, caller, body), headers: {} }
}

/** Sends an answer with the security headers, its JSON body (if any) and its length; nothing once the socket is gone. */
function send(res: http.ServerResponse, { status, body, headers }: Answer): void {
  const text = body === undefined ? undefined : JSON.stringify(body)
  const all = securedHeaders(text === undefined ? headers : { 'content-type': 'application/json', ...headers })
  if (!res.destroyed) res.writeHead(status, text === undefined ? all : { ...all, 'content-length': String(Buffer.byteLength(text)) }).end(text)
}

/**
 * The listener's request handler: every answer as the route handler gives it, then one log line. The liveness probe
 * is neither metered nor logged, as /healthz on the app's port.
 */
export function introspectionHandler(deps: Deps): http.RequestListener {
  const meter = routeMeter(deps.metrics, 'introspection-listener')
  return (req, res) => {
    if (pathOf(req) === '/healthz') return send(res, liveness(req.method))
    const started = performance.now()
    // One server span per request when tracing is on, continuing the resource server's traceparent (docs/operating.md).
    void listenerSpan(req, 'introspection', '/', (setStatus) =>
      answer(deps, req)
        .catch((e: unknown): Answer => errorAnswer(e, deps))
        .then((answered) => {
          send(res, answered)
          const { status } = answered
          setStatus(status)
          meter.done(req.method ?? 'GET', status, (performance.now() - started) / 1000)
          // The path worked out only when the request log is on.
          if (deps.log.isLevelEnabled('info')) {
            deps.log.info({ method: req.method, path: loggablePath(req.url ?? '/'), status, ms: Math.round(performance.now() - started) }, 'request')
          }
        }),
    )
  }
}

/**
 * The one start-up line of the listener: where it listens and whether it asks for credentials, a warning when it
 * does not (docs/operating.md, "Introspection on a private port").
 */
export function announceIntrospectionListener(deps: Deps): void {
  const where = deps.config.introspectionListener
  if (!where) return
  if (deps.config.introspectionPortAuth === 'none') {
    deps.log.warn(
      { introspectionListener: where, credentials: 'none' },
      'introspection listener ready, WITHOUT credentials (INTROSPECTION_PORT_AUTH=none): whoever reaches this port can introspect; POST /introspect keeps its secret',
    )
  } else {
    deps.log.info(
      { introspectionListener: where, credentials: 'INTROSPECTION_SECRET' },
      'introspection listener ready, with Authorization: Bearer <INTROSPECTION_SECRET>',
    )
  }
}

/**
 * Starts the listener when INTROSPECTION_PORT is set; resolves once it listens, and rejects when the address cannot
 * be taken (the process then fails its start-up). Off (null) otherwise.
 */
export async function startIntrospectionListener(deps: Deps): Promise<http.Server | null> {
  const where = deps.config.introspectionListener
  return where ? listenOnPortOfItsOwn(introspectionHandler(deps), where) : null
}

/**
 * A listener of its own for `handler` (the introspection listener, the service API): resolves once it listens,
 * rejects when the address cannot be taken, and closes when the process stops.
 */
export async function listenOnPortOfItsOwn(handler: http.RequestListener, where: { port: number; host: string }): Promise<http.Server> {
  // A server of its own (not http.createServer, which the launcher's fair turns patch for Next's server).
  const server = new http.Server(handler)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(where.port, where.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  closeWhenStopping(server)
  return server
}
