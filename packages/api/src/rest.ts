import { TRPCError } from '@trpc/server'
import { getHTTPStatusCodeFromError } from '@trpc/server/http'
import { z } from 'zod'
import { isGnapError, UNAVAILABLE_RETRY_AFTER_SECONDS } from '@gnap/domain/kernel'
import { type Deps } from '@gnap/domain/protocol'
import { CONSOLE_ERROR_STATUS, type AdminRole, type ConsoleErrorCode } from '@gnap/domain/operator'
import { createContext } from './context'
import { appRouter, createCaller } from './root'
import { publicMessage, trpcCodeOf, type ProcedureMeta, type RestMeta } from './trpc'

// The REST form of the operator procedures (docs/protocol.md §2.18) for back ends that do not speak tRPC: each
// procedure that declares `meta.rest` (its method, path and summary, next to its role in trpc.ts) is served here and
// runs through the same caller (its role check, input and output schemas, rate limit and audit), and the OpenAPI
// document is generated from the same zod schemas. Nothing here names a procedure: both walk the router. API keys
// only: cookies are never read here, so no browser session can be ridden and no CSRF is needed.

type AnyProcedure = {
  _def: { type: 'query' | 'mutation' | 'subscription'; inputs: z.ZodType[]; output?: z.ZodType; meta?: ProcedureMeta }
}

export interface RestOperation extends RestMeta {
  /** The procedure it calls: `grants.byId`. */
  procedure: string
  /** The lowest role that may call it, from the procedure's meta (docs/protocol.md §2.14). */
  role: AdminRole
  /** Whether the procedure's input has fields beyond the path's: they come as a JSON body (POST only). */
  body: boolean
}

/** The field names of an object input schema (through optional and default wrappers); none for no input. */
function inputFields(schema: z.ZodType | undefined): string[] {
  if (!schema) return []
  const js = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> }
  return Object.keys(js.properties ?? {})
}

/** Every REST operation, in the router's order: walked from the procedures' meta, never listed by hand. */
function restOperations(): RestOperation[] {
  const procedures = appRouter._def.procedures as unknown as Record<string, AnyProcedure>
  const ops: RestOperation[] = []
  for (const [procedure, proc] of Object.entries(procedures)) {
    const meta = proc._def.meta
    if (!meta?.rest) continue
    // A people-only procedure is never served to API keys (docs/protocol.md §2.18), so it has no REST form.
    if (meta.peopleOnly) throw new Error(`${procedure} is people-only and cannot have a REST form`)
    if (!meta.role) throw new Error(`${procedure} has a REST form but no role`)
    const params = pathParams(meta.rest.path)
    const fields = inputFields(proc._def.inputs[0])
    for (const p of params) if (!fields.includes(p)) throw new Error(`${procedure}: the path's {${p}} is no field of its input`)
    const body = meta.rest.method === 'POST' && fields.some((f) => !params.includes(f))
    ops.push({ ...meta.rest, procedure, role: meta.role, body })
  }
  return ops
}

function pathParams(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '')
}

/** Every REST operation (docs/protocol.md §2.18): the procedures whose meta declares a REST form. */
export const REST_OPERATIONS: readonly RestOperation[] = restOperations()

const procedureOf = (path: string): AnyProcedure => (appRouter._def.procedures as unknown as Record<string, AnyProcedure>)[path]!

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
      'x-role': op.role,
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
        [CONSOLE_ERROR_STATUS.bad_request]: errorResponse('Bad input'),
        [CONSOLE_ERROR_STATUS.unauthorized]: errorResponse('No API key, or an unknown, expired or revoked one'),
        [CONSOLE_ERROR_STATUS.forbidden]: errorResponse('The key’s role may not do this'),
        [CONSOLE_ERROR_STATUS.not_found]: errorResponse('Unknown id'),
        [CONSOLE_ERROR_STATUS.conflict]: errorResponse(
          'Not possible in the current state (already revoked or blocked, a delivery that is not failed, too many endpoints)',
        ),
        [CONSOLE_ERROR_STATUS.too_many_requests]: errorResponse('Over the key’s per-minute limit', retryAfter),
        [CONSOLE_ERROR_STATUS.service_unavailable]: errorResponse('The database is unreachable for now', retryAfter),
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

/**
 * A refusal of the REST form: `{"error":{"code","message"}}` with the status of its console code
 * (CONSOLE_ERROR_STATUS, the table tRPC's answers read too). Also for the route that serves this form in apps/web.
 */
export const restRefusal = (kind: ConsoleErrorCode, message: string, headers: Record<string, string> = {}) =>
  json(CONSOLE_ERROR_STATUS[kind], { error: { code: trpcCodeOf(kind), message } }, headers)

/** The HTTP status of a procedure's refusal: the console's table for its codes, tRPC's own for the rest (500). */
function statusOf(error: TRPCError): number {
  const kind = error.code.toLowerCase()
  return kind in CONSOLE_ERROR_STATUS ? CONSOLE_ERROR_STATUS[kind as ConsoleErrorCode] : getHTTPStatusCodeFromError(error)
}

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
  if (!found) return restRefusal('not_found', 'no such operation: see openapi.json')
  if ('allow' in found) return restRefusal('method_not_supported', `use ${found.allow}`, { allow: found.allow })
  const { op, params } = found

  const authorization = req.headers.get('authorization')
  if (authorization === null || !/^Bearer(\s|$)/i.test(authorization)) {
    return restRefusal('unauthorized', 'send an API key: Authorization: Bearer gnap_ak_…', CHALLENGE)
  }
  let body: unknown = {}
  if (op.body && opts.body !== null && opts.body.trim() !== '') {
    try {
      body = JSON.parse(opts.body)
    } catch {
      return restRefusal('bad_request', 'the body is not JSON')
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return restRefusal('bad_request', 'the body must be a JSON object')
  } else if (!op.body && opts.body !== null && opts.body.trim() !== '') {
    return restRefusal('bad_request', 'this operation takes no body')
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
    const status = statusOf(error)
    const headers: Record<string, string> = error.code === 'UNAUTHORIZED' ? { ...CHALLENGE } : {}
    const wait =
      error.code === 'SERVICE_UNAVAILABLE' ? UNAVAILABLE_RETRY_AFTER_SECONDS : isGnapError(error.cause) ? (error.cause.retryAfterSeconds ?? 0) : 0
    if (wait > 0) headers['retry-after'] = String(wait)
    return json(status, { error: { code: error.code, message: publicMessage(error) } }, headers)
  }
}
