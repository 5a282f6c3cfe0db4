import type http from 'node:http'
import { getOperationAST, Kind, parse, type DocumentNode } from 'graphql'
import { createHandler } from 'graphql-http'
import { loggablePath, methodNotAllowed, pathNotFound, type AdminApiOperation, type AdminApiOutcome } from '@gnap/domain/kernel'
import type { Deps } from '@gnap/domain/protocol'
import { authenticateAdminApiRequest, type AdminApiCaller } from '@gnap/domain/operator'
import { errorAnswer, parseJsonBody, securedHeaders } from './gnap-route'
import { listenOnPortOfItsOwn, readNodeBody } from './introspection-listener'
import { checkBody, JSON_LIMITS } from './body'
import { adminApiRoot, adminApiSchema, operationOfFields, type AdminApiContext } from '../admin-api/admin-api-schema'

// Rafiki's auth Admin API (docs/admin-api.md): `POST /graphql` on a port of its own (ADMIN_PORT, bound to ADMIN_HOST:
// loopback unless set), and `GET /healthz`. Each request is signed with a tenant's API secret (admin-api-signature.ts
// in the domain): unsigned, wrongly signed, old or replayed requests answer 401 before any GraphQL is read. The
// GraphQL itself is `graphql-http` over the schema of admin-api-schema.ts. Each call is counted by operation and
// outcome (gnap_admin_api_calls_total) and logged in one line, without its body.

interface Answer {
  status: number
  body: string | null
  headers: Record<string, string>
  operation: AdminApiOperation
  outcome: AdminApiOutcome
}

/** At most this many root fields in one request: each `grants` may read 100 grants and their details. */
const MAX_ROOT_FIELDS = 5

const json = (status: number, body: object, outcome: AdminApiOutcome, headers: Record<string, string> = {}): Answer => ({
  status,
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json', ...headers },
  operation: 'other',
  outcome,
})

const UNAUTHORIZED = (operation: AdminApiOperation): Answer => ({
  ...json(401, { errors: [{ message: 'Unauthorized', extensions: { code: 'UNAUTHENTICATED' } }] }, 'unauthorized'),
  operation,
})

/** The request's path, without its query. */
function pathOf(req: http.IncomingMessage): string {
  const url = req.url ?? '/'
  const query = url.indexOf('?')
  return query < 0 ? url : url.slice(0, query)
}

/** The root fields of the operation a body names (for the metrics and the root-field cap); empty when it names none. */
function rootFieldsOf(body: unknown): string[] {
  const { query, operationName } = (body ?? {}) as { query?: unknown; operationName?: unknown }
  if (typeof query !== 'string') return []
  let document: DocumentNode
  try {
    document = parse(query, { maxTokens: 2000 })
  } catch {
    return []
  }
  const operation = getOperationAST(document, typeof operationName === 'string' ? operationName : undefined)
  return operation?.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [s.name.value] : ['…'])) ?? []
}

const graphqlHandler = createHandler<http.IncomingMessage, AdminApiContext, AdminApiContext>({
  schema: adminApiSchema(),
  rootValue: adminApiRoot,
  context: (req) => req.context,
})

/** The outcome of a GraphQL answer: its status, then the code of its first error. */
function outcomeOf(status: number, body: string | null): AdminApiOutcome {
  if (status >= 400) return status >= 500 ? 'error' : 'invalid'
  const code = (JSON.parse(body ?? '{}') as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code
  if (code === undefined) return (JSON.parse(body ?? '{}') as { errors?: unknown[] }).errors ? 'invalid' : 'ok'
  return code === 'NOT_FOUND' ? 'not_found' : code === 'INTERNAL_SERVER_ERROR' ? 'error' : 'invalid'
}

async function answer(deps: Deps, req: http.IncomingMessage): Promise<Answer> {
  const settings = deps.config.adminApi!
  if (pathOf(req) !== '/graphql') throw pathNotFound()
  if (req.method !== 'POST') return json(405, methodNotAllowed('POST').toBody(), 'invalid', { allow: 'POST' })
  const contentType = Array.isArray(req.headers['content-type']) ? null : (req.headers['content-type'] ?? null)
  const { body } = parseJsonBody(contentType, checkBody(await readNodeBody(req), JSON_LIMITS))
  const fields = rootFieldsOf(body)
  const operation = operationOfFields(fields)
  // The signature covers the body as parsed (its canonical JSON), so it is checked on what GraphQL will read.
  const auth = await authenticateAdminApiRequest(deps, req.headers, body ?? {}, settings)
  if (!auth.ok) {
    deps.log.info({ refusal: auth.refusal, tenantId: typeof req.headers['tenant-id'] === 'string' ? req.headers['tenant-id'] : undefined }, 'admin API: signature refused')
    return UNAUTHORIZED(operation)
  }
  if (fields.length > MAX_ROOT_FIELDS) {
    return { ...json(400, { errors: [{ message: `at most ${MAX_ROOT_FIELDS} operations in one request`, extensions: { code: 'BAD_USER_INPUT' } }] }, 'invalid'), operation }
  }
  const caller: AdminApiCaller = auth.caller
  const [text, init] = await graphqlHandler({
    method: 'POST',
    url: req.url ?? '/graphql',
    headers: req.headers,
    body: (body ?? null) as Record<string, unknown> | null,
    raw: req,
    context: { deps, caller },
  })
  return { status: init.status, body: text, headers: { ...init.headers }, operation, outcome: outcomeOf(init.status, text) }
}

function send(res: http.ServerResponse, req: http.IncomingMessage, { status, body, headers }: Pick<Answer, 'status' | 'body' | 'headers'>): void {
  const text = body === null || req.method === 'HEAD' ? undefined : body
  const all = securedHeaders(headers)
  if (!res.destroyed) res.writeHead(status, text === undefined ? all : { ...all, 'content-length': String(Buffer.byteLength(text)) }).end(text)
}

/** The listener's request handler: `GET /healthz`, else every answer, counted and logged in one line (no body, no secret). */
export function adminApiHandler(deps: Deps): http.RequestListener {
  return (req, res) => {
    if (pathOf(req) === '/healthz') {
      const ok = req.method === 'GET' || req.method === 'HEAD'
      return send(res, req, ok ? { status: 200, body: '{"status":"ok"}', headers: { 'content-type': 'application/json' } } : json(405, methodNotAllowed('GET').toBody(), 'invalid', { allow: 'GET' }))
    }
    const started = performance.now()
    void answer(deps, req)
      .catch((e: unknown): Answer => {
        const { status, body, headers } = errorAnswer(e, deps)
        return json(status, body, status >= 500 ? 'error' : 'invalid', headers)
      })
      .then((answered) => {
        send(res, req, answered)
        deps.metrics.adminApiCall(answered.operation, answered.outcome)
        if (deps.log.isLevelEnabled('info')) {
          deps.log.info(
            {
              method: req.method,
              path: loggablePath(req.url ?? '/'),
              operation: answered.operation,
              outcome: answered.outcome,
              status: answered.status,
              ms: Math.round(performance.now() - started),
            },
            'admin API request',
          )
        }
      })
  }
}

/**
 * Starts the Admin API when ADMIN_PORT is set; resolves once it listens, and rejects when the address cannot be taken
 * (the process then fails its start-up). Off (null) otherwise.
 */
export async function startAdminApiListener(deps: Deps): Promise<http.Server | null> {
  const where = deps.config.adminApi
  return where ? listenOnPortOfItsOwn(adminApiHandler(deps), where) : null
}
