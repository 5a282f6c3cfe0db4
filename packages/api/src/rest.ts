import { TRPCError } from '@trpc/server'
import { getHTTPStatusCodeFromError } from '@trpc/server/http'
import { z } from 'zod'
import { isGnapError, UNAVAILABLE_RETRY_AFTER_SECONDS } from '@gnap/domain/kernel'
import { type Deps } from '@gnap/domain/protocol'
import { createContext } from './context'
import { appRouter, createCaller } from './root'
import { publicMessage } from './trpc'

// The REST form of the operator procedures (docs/protocol.md §2.18) for back ends that do not speak tRPC: each
// operation below names one procedure of the router, runs through the same caller (its role check, input and output
// schemas, rate limit and audit), and the OpenAPI document is generated from the same zod schemas. API keys only:
// cookies are never read here, so no browser session can be ridden and no CSRF is needed.

export interface RestOperation {
  method: 'GET' | 'POST'
  /** Under the base path, OpenAPI style: `/grants/{id}`. Path parameters are fields of the procedure's input. */
  path: string
  /** The procedure it calls: `grants.byId`. */
  procedure: string
  summary: string
  /** Whether the procedure's other input fields come as a JSON body (searches with filters). */
  body: boolean
}

/** Every REST operation: the reads of every role, the operator's revocations, and the admin's webhook management. */
export const REST_OPERATIONS: readonly RestOperation[] = [
  { method: 'POST', path: '/grants/search', procedure: 'grants.list', summary: 'Lists grants: filters, sort and keyset pages', body: true },
  { method: 'GET', path: '/grants/{id}', procedure: 'grants.byId', summary: 'One grant with its client, history, access and tokens', body: false },
  { method: 'POST', path: '/grants/{id}/revoke', procedure: 'grants.revoke', summary: 'Revokes a grant and its live tokens (operator)', body: false },
  {
    method: 'GET',
    path: '/grants/{grantId}/tokens',
    procedure: 'tokens.chain',
    summary: 'A grant’s tokens from the first to the current one',
    body: false,
  },
  { method: 'GET', path: '/tokens/{managementId}', procedure: 'tokens.byManagementId', summary: 'A token by its management id', body: false },
  { method: 'POST', path: '/tokens/{managementId}/revoke', procedure: 'tokens.revoke', summary: 'Revokes one token (operator)', body: false },
  { method: 'POST', path: '/clients/search', procedure: 'clients.list', summary: 'Client wallet addresses with their grant counts', body: true },
  { method: 'POST', path: '/owners/search', procedure: 'owners.list', summary: 'Lists owners, by name, email or wallet address', body: true },
  { method: 'GET', path: '/owners/{ownerId}', procedure: 'owners.byId', summary: 'One owner with wallet addresses, grants and history', body: false },
  { method: 'POST', path: '/audit/search', procedure: 'audit.list', summary: 'The audit log, newest first, in keyset pages', body: true },
  { method: 'POST', path: '/stats/overview', procedure: 'stats.overview', summary: 'Grant and token figures over a period', body: true },
  // Webhooks (docs/webhooks.md): every role reads the endpoints and their delivery log; admin keys manage them.
  {
    method: 'GET',
    path: '/webhooks',
    procedure: 'webhooks.list',
    summary: 'Webhook endpoints with their event types and delivery counts',
    body: false,
  },
  {
    method: 'POST',
    path: '/webhooks',
    procedure: 'webhooks.create',
    summary: 'Adds a webhook endpoint; the answer carries its signing secret, once (admin)',
    body: true,
  },
  { method: 'GET', path: '/webhooks/{id}', procedure: 'webhooks.byId', summary: 'One webhook endpoint', body: false },
  {
    method: 'POST',
    path: '/webhooks/{id}/update',
    procedure: 'webhooks.update',
    summary: 'Changes an endpoint’s URL, description or event types (admin)',
    body: true,
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/enabled',
    procedure: 'webhooks.setEnabled',
    summary: 'Enables or disables an endpoint (admin)',
    body: true,
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/rotate-secret',
    procedure: 'webhooks.rotateSecret',
    summary: 'A new signing secret, carried once by the answer; the old one signs too for the overlap (admin)',
    body: true,
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/test',
    procedure: 'webhooks.sendTest',
    summary: 'Sends a webhook.test event to the endpoint (admin)',
    body: false,
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/delete',
    procedure: 'webhooks.delete',
    summary: 'Deletes an endpoint with its deliveries (admin)',
    body: false,
  },
  {
    method: 'POST',
    path: '/webhooks/{endpointId}/deliveries/search',
    procedure: 'webhooks.deliveries',
    summary: 'An endpoint’s delivery log, newest first, in keyset pages',
    body: true,
  },
  {
    method: 'POST',
    path: '/webhook-deliveries/{deliveryId}/replay',
    procedure: 'webhooks.replay',
    summary: 'Sends a failed delivery again (admin)',
    body: false,
  },
]

type AnyProcedure = { _def: { type: 'query' | 'mutation' | 'subscription'; inputs: z.ZodType[]; output?: z.ZodType } }
const procedureOf = (path: string): AnyProcedure => {
  const p = (appRouter._def.procedures as unknown as Record<string, AnyProcedure | undefined>)[path]
  if (!p) throw new Error(`no procedure ${path}`)
  return p
}

const pathParams = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '')

// ---------------------------------------------------------------------------------------------------------------
// The OpenAPI document

type JsonSchema = Record<string, unknown>

/** A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect); dates cross JSON as RFC 3339 date-time strings. */
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const js = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: (ctx) => {
      if ((ctx.zodSchema as { _zod: { def: { type: string } } })._zod.def.type === 'date') {
        ctx.jsonSchema.type = 'string'
        ctx.jsonSchema.format = 'date-time'
      }
    },
  }) as JsonSchema
  delete js.$schema
  return js
}

const errorSchema: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'tRPC’s code: UNAUTHORIZED, FORBIDDEN, NOT_FOUND, CONFLICT, BAD_REQUEST, TOO_MANY_REQUESTS…' },
        message: { type: 'string' },
      },
    },
  },
}

const errorResponse = (description: string, headers?: Record<string, unknown>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
})

const retryAfter = { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer', minimum: 1 } } }

/** The OpenAPI 3.1 document of the REST form, served at `<basePath>/openapi.json`. */
export function openApiDocument(serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const op of REST_OPERATIONS) {
    const proc = procedureOf(op.procedure)
    const input = proc._def.inputs[0]
    const params = pathParams(op.path)
    const inputSchema = input ? jsonSchemaOf(input, 'input') : { type: 'object', properties: {} }
    const properties = { ...((inputSchema.properties as Record<string, JsonSchema> | undefined) ?? {}) }
    for (const p of params) delete properties[p]
    const required = ((inputSchema.required as string[] | undefined) ?? []).filter((r) => !params.includes(r))
    const bodySchema = { ...inputSchema, properties, ...(required.length ? { required } : { required: undefined }) }
    if (!required.length) delete bodySchema.required
    const operation: Record<string, unknown> = {
      operationId: op.procedure.replace('.', '_'),
      summary: op.summary,
      tags: [op.procedure.split('.')[0]],
      parameters: params.map((name) => ({
        name,
        in: 'path',
        required: true,
        schema: (inputSchema.properties as Record<string, JsonSchema>)[name] ?? { type: 'string' },
      })),
      ...(op.body ? { requestBody: { required: false, content: { 'application/json': { schema: bodySchema } } } } : {}),
      responses: {
        '200': { description: 'OK', content: { 'application/json': { schema: proc._def.output ? jsonSchemaOf(proc._def.output, 'output') : {} } } },
        '400': errorResponse('Bad input'),
        '401': errorResponse('No API key, or an unknown, expired or revoked one'),
        '403': errorResponse('The key’s role may not do this'),
        '404': errorResponse('Unknown id'),
        '409': errorResponse('Not possible in the current state (already revoked, a delivery that is not failed, too many endpoints)'),
        '429': errorResponse('Over the key’s per-minute limit', retryAfter),
        '503': errorResponse('The database is unreachable for now', retryAfter),
      },
    }
    paths[op.path] = { ...(paths[op.path] ?? {}), [op.method.toLowerCase()]: operation }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'GNAP authorization server: operator API',
      version: '1',
      description:
        'The console’s reads, revocations and webhook management for back ends, authenticated with an API key (`Authorization: Bearer gnap_ak_…`). ' +
        'Each operation runs the console procedure it names, with the key’s role; dates are RFC 3339 strings.',
    },
    servers: [{ url: serverUrl }],
    security: [{ apiKey: [] }],
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key made on the console’s API keys page' } },
      schemas: { Error: errorSchema },
    },
    paths,
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Serving

/** Turns RFC 3339 strings into Dates where the procedure's input schema takes a date (JSON has no dates). */
function reviveDates(schema: z.ZodType | undefined, value: unknown): unknown {
  if (!schema) return value
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> & { type: string } } })._zod.def
  switch (def.type) {
    case 'date':
      return typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value) ? new Date(value) : value
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return reviveDates(def.innerType as z.ZodType, value)
    case 'pipe':
      return reviveDates(def.in as z.ZodType, value)
    case 'array':
      return Array.isArray(value) ? value.map((v) => reviveDates(def.element as z.ZodType, v)) : value
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
      const shape = def.shape as Record<string, z.ZodType>
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, reviveDates(shape[k], v)]))
    }
    default:
      return value
  }
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  Response.json(body, { status, headers: { 'cache-control': 'no-store', ...headers } })

const refusal = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  json(status, { error: { code, message } }, headers)

/** RFC 6750 §3: what a 401 says about the scheme. */
const CHALLENGE = { 'www-authenticate': 'Bearer realm="gnap-operator-api"' }

function match(method: string, path: string): { op: RestOperation; params: Record<string, string> } | { allow: string } | null {
  const allow: string[] = []
  for (const op of REST_OPERATIONS) {
    const re = new RegExp('^' + op.path.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)') + '$')
    const m = re.exec(path)
    if (!m) continue
    if (op.method !== method) {
      allow.push(op.method)
      continue
    }
    const params: Record<string, string> = {}
    for (const [k, v] of Object.entries(m.groups ?? {})) {
      try {
        params[k] = decodeURIComponent(v)
      } catch {
        params[k] = v
      }
    }
    return { op, params }
  }
  return allow.length ? { allow: allow.join(', ') } : null
}

export interface RestRequestOptions {
  deps: Deps
  /** The path the operations are served under: `/api/v1`. */
  basePath: string
  ip: string | null
  /** The body, already read within the size cap (POST); null for none. */
  body: string | null
}

/**
 * Answers one REST request: 404 for an unknown path, 405 with Allow for a wrong method, and the procedure's answer
 * or refusal otherwise, as JSON (`{"error":{"code","message"}}`, with Retry-After on 429 and 503).
 */
export async function handleRestRequest(req: Request, opts: RestRequestOptions): Promise<Response> {
  const pathname = new URL(req.url).pathname
  const sub = pathname.startsWith(opts.basePath) ? pathname.slice(opts.basePath.length) || '/' : pathname
  const found = match(req.method, sub)
  if (!found) return refusal(404, 'NOT_FOUND', 'no such operation: see openapi.json')
  if ('allow' in found) return refusal(405, 'METHOD_NOT_SUPPORTED', `use ${found.allow}`, { allow: found.allow })
  const { op, params } = found

  const authorization = req.headers.get('authorization')
  if (authorization === null || !/^Bearer(\s|$)/i.test(authorization)) {
    return refusal(401, 'UNAUTHORIZED', 'send an API key: Authorization: Bearer gnap_ak_…', CHALLENGE)
  }
  let body: unknown = {}
  if (op.body && opts.body !== null && opts.body.trim() !== '') {
    try {
      body = JSON.parse(opts.body)
    } catch {
      return refusal(400, 'BAD_REQUEST', 'the body is not JSON')
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return refusal(400, 'BAD_REQUEST', 'the body must be a JSON object')
  } else if (!op.body && opts.body !== null && opts.body.trim() !== '') {
    return refusal(400, 'BAD_REQUEST', 'this operation takes no body')
  }
  const proc = procedureOf(op.procedure)
  const input = reviveDates(proc._def.inputs[0], { ...(body as object), ...params })

  try {
    // Cookies are never read here: the REST form is for API keys alone.
    const ctx = await createContext({ deps: opts.deps, sessionValue: null, csrfToken: null, authorization, ip: opts.ip })
    const call = op.procedure.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], createCaller(ctx)) as (
      i: unknown,
    ) => Promise<unknown>
    const result = await (proc._def.inputs.length ? call(input) : (call as () => Promise<unknown>)())
    return json(200, result)
  } catch (e) {
    const error = e instanceof TRPCError ? e : new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: e })
    if (error.code === 'INTERNAL_SERVER_ERROR' && !(e instanceof TRPCError))
      opts.deps.log.error({ err: e, path: op.procedure }, 'rest operation failed')
    const status = getHTTPStatusCodeFromError(error)
    const headers: Record<string, string> = status === 401 ? { ...CHALLENGE } : {}
    const wait =
      error.code === 'SERVICE_UNAVAILABLE' ? UNAVAILABLE_RETRY_AFTER_SECONDS : isGnapError(error.cause) ? (error.cause.retryAfterSeconds ?? 0) : 0
    if (wait > 0) headers['retry-after'] = String(wait)
    return refusal(status, error.code, publicMessage(error), headers)
  }
}
