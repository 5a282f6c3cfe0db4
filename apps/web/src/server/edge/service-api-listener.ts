import { listenerSpan } from './listener-span'
import type http from 'node:http'
import { GnapError, loggablePath, methodNotAllowed, pathNotFound, secretsInclude } from '@gnap/domain/kernel'
import { createTenant, deleteTenant, parseCreateTenant, parseDeleteTenant, parseUpdateTenant, updateTenant, type Deps } from '@gnap/domain/protocol'
import { errorAnswer, parseJsonBody, securedHeaders } from './gnap-route'
import { listenOnPortOfItsOwn, readNodeBody } from './introspection-listener'
import { checkBody, JSON_LIMITS } from './body'

// The service API (docs/protocol.md §2.21): what the Rafiki backend calls when its administrators create, update
// or delete a tenant (`POST /tenant`, `PATCH /tenant/{id}`, `DELETE /tenant/{id}`), and `GET /healthz`, on a port of
// its own (SERVICE_API_PORT, bound to SERVICE_API_HOST: loopback unless set). The backend sends no credentials, so
// the port belongs on a private network; SERVICE_API_SECRET adds a bearer secret for callers that can send one.
// Answers are 204 without a body, or the GNAP error JSON the backend's client reads as its error details.

interface Answer {
  status: number
  body?: object
  headers: Record<string, string>
}

const TENANT_PATH = /^\/tenant\/([^/]{1,64})$/

function notAllowed(allow: string): Answer {
  return { status: 405, body: methodNotAllowed(allow).toBody(), headers: { allow } }
}

/** The request's JSON body, within the same limits as every JSON endpoint (body.ts). */
async function jsonBody(req: http.IncomingMessage): Promise<unknown> {
  const type = req.headers['content-type'] ?? null
  return parseJsonBody(type, checkBody(await readNodeBody(req), JSON_LIMITS)).body
}

/** With SERVICE_API_SECRET: `Authorization: Bearer <secret>`, compared by digest; 401 otherwise. */
function checkBearer(deps: Deps, req: http.IncomingMessage): void {
  const secrets = deps.config.serviceApi?.secrets
  if (!secrets) return
  const match = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')
  if (!match?.[1] || !secretsInclude(match[1], secrets))
    throw new GnapError('invalid_client', 'missing or wrong service API secret: use Authorization: Bearer <secret>')
}

async function answer(deps: Deps, req: http.IncomingMessage): Promise<Answer> {
  const url = req.url ?? '/'
  const query = url.indexOf('?')
  const path = query < 0 ? url : url.slice(0, query)
  const method = req.method ?? 'GET'
  if (path === '/healthz') return method === 'GET' || method === 'HEAD' ? { status: 200, body: { status: 'ok' }, headers: {} } : notAllowed('GET')
  checkBearer(deps, req)
  if (path === '/tenant') {
    if (method !== 'POST') return notAllowed('POST')
    await createTenant(deps, parseCreateTenant(await jsonBody(req)))
    return { status: 204, headers: {} }
  }
  const id = TENANT_PATH.exec(path)?.[1]
  if (id === undefined) throw pathNotFound()
  if (method === 'PATCH') {
    await updateTenant(deps, id, parseUpdateTenant(await jsonBody(req)))
  } else if (method === 'DELETE') {
    await deleteTenant(deps, id, parseDeleteTenant(await jsonBody(req)))
  } else {
    return notAllowed('PATCH, DELETE')
  }
  return { status: 204, headers: {} }
}

/** The listener's request handler: every answer, then one log line (no body, no secret). */
export function serviceApiHandler(deps: Deps): http.RequestListener {
  return (req, res) => {
    const started = performance.now()
    void listenerSpan(req, 'service-api', serviceApiRoute(req.url ?? '/'), (setStatus) =>
      answer(deps, req)
        .catch((e: unknown): Answer => errorAnswer(e, deps))
        .then(({ status, body, headers }) => {
          setStatus(status)
          const text = body === undefined || req.method === 'HEAD' ? undefined : JSON.stringify(body)
          const all = securedHeaders(text === undefined ? headers : { 'content-type': 'application/json', ...headers })
          if (!res.destroyed)
            res.writeHead(status, text === undefined ? all : { ...all, 'content-length': String(Buffer.byteLength(text)) }).end(text)
          if (deps.log.isLevelEnabled('info')) {
            deps.log.info(
              { method: req.method, path: loggablePath(req.url ?? '/'), status, ms: Math.round(performance.now() - started) },
              'service API request',
            )
          }
        }),
    )
  }
}

/** The route template of a service API path, for its span's name: never the tenant's id. */
function serviceApiRoute(url: string): string {
  const path = url.split('?')[0] ?? '/'
  if (path === '/tenant' || path === '/healthz') return path
  return TENANT_PATH.test(path) ? '/tenant/{id}' : '(unknown)'
}

/**
 * Starts the service API when SERVICE_API_PORT is set; resolves once it listens, and rejects when the address cannot
 * be taken (the process then fails its start-up). Off (null) otherwise.
 */
export async function startServiceApiListener(deps: Deps): Promise<http.Server | null> {
  const where = deps.config.serviceApi
  return where ? listenOnPortOfItsOwn(serviceApiHandler(deps), where) : null
}
