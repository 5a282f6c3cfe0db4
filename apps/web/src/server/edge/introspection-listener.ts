import http from 'node:http'
import { loggablePath, methodNotAllowed, pathNotFound } from '@gnap/domain/kernel'
import { introspectForResourceServer, type Deps } from '@gnap/domain/protocol'
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
// to the workers in turn, as for the app's own port.

const ALLOW = 'POST, OPTIONS'

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

async function answer(deps: Deps, req: http.IncomingMessage): Promise<Answer> {
  const url = req.url ?? '/'
  const query = url.indexOf('?')
  if ((query < 0 ? url : url.slice(0, query)) !== '/') throw pathNotFound()
  if (req.method === 'OPTIONS') return { status: 204, headers: { allow: ALLOW } }
  if (req.method !== 'POST') return { status: 405, body: methodNotAllowed('POST').toBody(), headers: { allow: ALLOW } }
  const { body } = parseJsonBody(header(req, 'content-type'), checkBody(await readNodeBody(req), JSON_LIMITS))
  const caller = { authorization: header(req, 'authorization'), ip: listenerCallerAddress(req, header(req, 'x-forwarded-for'), deps.config) }
  return { status: 200, body: await introspectForResourceServer(deps, caller, body), headers: {} }
}

/** The listener's request handler: every answer as the route handler gives it, then one log line. */
export function introspectionHandler(deps: Deps): http.RequestListener {
  const meter = routeMeter(deps.metrics, 'introspection-listener')
  return (req, res) => {
    const started = performance.now()
    void answer(deps, req)
      .catch((e: unknown): Answer => errorAnswer(e, deps))
      .then(({ status, body, headers }) => {
        const text = body === undefined ? undefined : JSON.stringify(body)
        const all = securedHeaders(text === undefined ? headers : { 'content-type': 'application/json', ...headers })
        if (!res.destroyed) res.writeHead(status, text === undefined ? all : { ...all, 'content-length': String(Buffer.byteLength(text)) }).end(text)
        meter.done(req.method ?? 'GET', status, (performance.now() - started) / 1000)
        // The path worked out only when the request log is on.
        if (deps.log.isLevelEnabled('info')) {
          deps.log.info({ method: req.method, path: loggablePath(req.url ?? '/'), status, ms: Math.round(performance.now() - started) }, 'request')
        }
      })
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
