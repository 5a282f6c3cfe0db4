import { listenerSpan } from './listener-span'
import type http from 'node:http'
import { execute, getOperationAST, GraphQLError, Kind, parse, validate, type DocumentNode, type OperationDefinitionNode } from 'graphql'
import { loggablePath, methodNotAllowed, pathNotFound, type AdminApiOperation, type AdminApiOutcome } from '@gnap/domain/kernel'
import type { Deps } from '@gnap/domain/protocol'
import { authenticateAdminApiRequest } from '@gnap/domain/operator'
import { errorAnswer, parseJsonBody, securedHeaders } from './gnap-route'
import { listenOnPortOfItsOwn, readNodeBody } from './introspection-listener'
import { checkBody, JSON_LIMITS } from './body'
import { adminApiRoot, adminApiSchema, operationOfFields } from '../admin-api/admin-api-schema'

// Rafiki's auth Admin API (docs/admin-api.md): `POST /graphql` on a port of its own (ADMIN_PORT, bound to ADMIN_HOST:
// loopback unless set), and `GET /healthz`. Each request is signed with a tenant's API secret (admin-api-signature.ts
// in the domain): unsigned, wrongly signed, old or replayed requests answer 401 before anything is read. The GraphQL is
// `graphql`'s own parse, validate and execute over the schema of admin-api-schema.ts, answered as JSON (GraphQL over
// HTTP with `application/json`): 200 with `data` (and `errors` from resolvers), 400 with `errors` alone for a request
// that cannot run (no query, a syntax error, an invalid document, bad variables). Each call is counted by operation
// and outcome (gnap_admin_api_calls_total) and logged in one line, without its body.

interface Answer {
  status: number
  body: string | null
  headers: Record<string, string>
  operation: AdminApiOperation
  outcome: AdminApiOutcome
}

/** At most this many root fields in one request: each `grants` may read 100 grants and their details. */
const MAX_ROOT_FIELDS = 5
/** At most this many tokens in a document: the largest of the test wallet's documents has about 150. */
const MAX_TOKENS = 2000

const json = (
  status: number,
  body: object,
  outcome: AdminApiOutcome,
  headers: Record<string, string> = {},
  operation: AdminApiOperation = 'other',
): Answer => ({
  status,
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json', ...headers },
  operation,
  outcome,
})

/** A request GraphQL cannot run: 400, with its one error. */
const requestError = (message: string, code: string, operation: AdminApiOperation = 'other'): Answer =>
  json(400, { errors: [{ message, extensions: { code } }] }, 'invalid', {}, operation)

/** The request's path, without its query. */
function pathOf(req: http.IncomingMessage): string {
  const url = req.url ?? '/'
  const query = url.indexOf('?')
  return query < 0 ? url : url.slice(0, query)
}

interface GraphqlRequest {
  document: DocumentNode
  operation: OperationDefinitionNode
  variables: Record<string, unknown> | undefined
  operationName: string | undefined
}

/** The GraphQL request a body carries, parsed and with its operation found; an Answer (400) when it carries none. */
function graphqlRequestOf(body: unknown): GraphqlRequest | Answer {
  const { query, variables, operationName } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>
  if (typeof query !== 'string') return requestError('the body must carry `query`, a string', 'BAD_REQUEST')
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables)))
    return requestError('`variables` must be an object', 'BAD_REQUEST')
  if (operationName != null && typeof operationName !== 'string') return requestError('`operationName` must be a string', 'BAD_REQUEST')
  let document: DocumentNode
  try {
    document = parse(query, { maxTokens: MAX_TOKENS })
  } catch (e) {
    return requestError(e instanceof GraphQLError ? e.message : 'syntax error', 'GRAPHQL_PARSE_FAILED')
  }
  const operation = getOperationAST(document, operationName ?? undefined)
  if (!operation) return requestError('no operation to run: name one with `operationName`', 'BAD_REQUEST')
  return {
    document,
    operation,
    variables: (variables ?? undefined) as Record<string, unknown> | undefined,
    operationName: operationName ?? undefined,
  }
}

/** Errors of a request that could not run, with the code Rafiki's server gives them. */
const withCode = (errors: readonly GraphQLError[], code: string) =>
  errors.map((e) => ({ message: e.message, ...(e.locations ? { locations: e.locations } : {}), extensions: { code } }))

/** The outcome of an executed operation: the code of its first error, if any. */
function outcomeOf(errors: readonly GraphQLError[] | undefined): AdminApiOutcome {
  const code = errors?.[0]?.extensions['code']
  if (!errors?.length) return 'ok'
  return code === 'NOT_FOUND' ? 'not_found' : code === 'INTERNAL_SERVER_ERROR' ? 'error' : 'invalid'
}

async function answer(deps: Deps, req: http.IncomingMessage): Promise<Answer> {
  const settings = deps.config.adminApi!
  if (pathOf(req) !== '/graphql') throw pathNotFound()
  if (req.method !== 'POST') return json(405, methodNotAllowed('POST').toBody(), 'invalid', { allow: 'POST' })
  const contentType = Array.isArray(req.headers['content-type']) ? null : (req.headers['content-type'] ?? null)
  const { body } = parseJsonBody(contentType, checkBody(await readNodeBody(req), JSON_LIMITS))
  const request = graphqlRequestOf(body)
  const fields = 'document' in request ? request.operation.selectionSet.selections.map((s) => (s.kind === Kind.FIELD ? s.name.value : '…')) : []
  const operation = operationOfFields(fields)
  // The signature covers the body as parsed (its canonical JSON): what GraphQL reads is what was signed.
  const auth = await authenticateAdminApiRequest(deps, req.headers, body ?? {}, settings)
  if (!auth.ok) {
    const tenantId = typeof req.headers['tenant-id'] === 'string' ? req.headers['tenant-id'].slice(0, 64) : undefined
    deps.log.info({ refusal: auth.refusal, tenantId }, 'admin API: signature refused')
    return json(401, { errors: [{ message: 'Unauthorized', extensions: { code: 'UNAUTHENTICATED' } }] }, 'unauthorized', {}, operation)
  }
  if (!('document' in request)) return request
  if (request.operation.operation === 'subscription') return requestError('subscriptions are not supported', 'BAD_REQUEST', operation)
  if (fields.length > MAX_ROOT_FIELDS)
    return requestError(`at most ${MAX_ROOT_FIELDS} fields at the root of one request`, 'BAD_USER_INPUT', operation)
  const schema = adminApiSchema()
  const invalid = validate(schema, request.document)
  if (invalid.length > 0) return json(400, { errors: withCode(invalid, 'GRAPHQL_VALIDATION_FAILED') }, 'invalid', {}, operation)
  const result = await execute({
    schema,
    document: request.document,
    rootValue: adminApiRoot,
    contextValue: { deps, caller: auth.caller },
    variableValues: request.variables,
    operationName: request.operationName,
  })
  // Without `data`, the operation never ran (its variables did not fit): a request error.
  if (!('data' in result) || result.data === undefined)
    return json(400, { errors: withCode(result.errors ?? [], 'BAD_USER_INPUT') }, 'invalid', {}, operation)
  return json(200, result, outcomeOf(result.errors), {}, operation)
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
      return send(
        res,
        req,
        ok
          ? { status: 200, body: '{"status":"ok"}', headers: { 'content-type': 'application/json' } }
          : json(405, methodNotAllowed('GET').toBody(), 'invalid', { allow: 'GET' }),
      )
    }
    const started = performance.now()
    void listenerSpan(req, 'admin-api', '/graphql', (setStatus) =>
      answer(deps, req)
        .catch((e: unknown): Answer => {
          const { status, body, headers } = errorAnswer(e, deps)
          return json(status, body, status >= 500 ? 'error' : 'invalid', headers)
        })
        .then((answered) => {
          send(res, req, answered)
          setStatus(answered.status)
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
        }),
    )
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
