// Validates response bodies against the vendored OpenAPI files (packages/domain/openapi), the contract every
// answer of the server must meet. The few answers the contract does not list are allowed here by name only:
// they are the deliberate deviations the README lists (docs/protocol.md §2).
import fs from 'node:fs'
import path from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { parse } from 'yaml'

/** `auth-server` is 1.3.0; `auth-server-1.1.0` the contract before it, for the answers to 1.1.0 clients (SOURCES.md). */
export type SpecName = 'auth-server' | 'auth-server-1.1.0' | 'token-introspection' | 'id-provider' | 'wallet-address-server'

const openapiDir = path.resolve(import.meta.dirname, '../../openapi')
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true })
addFormats(ajv)
ajv.addFormat('uint64', /^(0|[1-9][0-9]{0,19})$/)

const docs = new Map<SpecName, Record<string, unknown>>()
function load(spec: SpecName): Record<string, unknown> {
  let doc = docs.get(spec)
  if (!doc) {
    doc = parse(fs.readFileSync(path.join(openapiDir, `${spec}.yaml`), 'utf8')) as Record<string, unknown>
    ajv.addSchema({ ...doc, $id: `${spec}.yaml` })
    docs.set(spec, doc)
  }
  return doc
}

/** Answers the contract does not list, allowed as deliberate deviations: `operationId status code`. */
export const ALLOWED_DEVIATIONS = new Set([
  'post-continue 401 too_many_attempts', // RFC 9635 §5.1: an interact_ref is good for one use
  'post-continue 401 user_denied', // RFC 9635 §3.6: the owner denied the grant
  'post-continue 401 invalid_interaction', // RFC 9635 §3.6: the interaction expired before the grant was approved
  'post-continue 400 invalid_request', // malformed continue body
  'post-request 413 invalid_request',
  'post-continue 413 invalid_request',
  'post-token 413 invalid_request',
  'post-request 429 request_denied', // rate limit on grant requests, with Retry-After
  'post-request 404 invalid_request', // POST /{tenantId} of an unknown or deleted tenant (docs/protocol.md §2.21)
  'post-introspect 401 invalid_client', // introspection is authenticated (not in the contract)
  'post-introspect 400 invalid_request',
  'post-introspect 413 invalid_request',
  // too many wrong shared secrets from one caller (docs/protocol.md §2.6, §2.9, §2.10), with Retry-After
  'post-introspect 429 request_denied',
  'get-grant 429 request_denied',
  'post-grant-choice 429 request_denied',
])

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1')

/**
 * Throws with the validator's findings when a response does not meet the contract. `path` is the spec's path
 * template (`/continue/{id}`); introspection is `/` in its file.
 */
export function assertMatchesSpec(spec: SpecName, specPath: string, method: string, status: number, body: unknown): void {
  const doc = load(spec)
  const op = ((doc.paths as Record<string, Record<string, Record<string, unknown>>>)[specPath] ?? {})[method.toLowerCase()]
  if (!op) throw new Error(`${spec}: no operation ${method} ${specPath}`)
  const operationId = String(op.operationId)
  const responses = op.responses as Record<string, { content?: Record<string, { schema?: unknown }> }>
  const code = (body as { error?: { code?: string } } | null)?.error?.code
  if (code && ALLOWED_DEVIATIONS.has(`${operationId} ${status} ${code}`)) return
  const response = responses[String(status)]
  if (!response) throw new Error(`${operationId}: status ${status} is not in the contract (body ${JSON.stringify(body)})`)
  const content = response.content?.['application/json']
  if (!content?.schema) {
    if (body !== null && body !== undefined && body !== '') throw new Error(`${operationId} ${status}: the contract has no body, got one`)
    return
  }
  const pointer = `${spec}.yaml#/paths/${escapePointer(specPath)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`
  const validate = ajv.getSchema(pointer) ?? ajv.compile({ $ref: pointer })
  if (!validate(body)) {
    throw new Error(`${operationId} ${status} violates ${spec}.yaml: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body)}`)
  }
}

/**
 * The validator's findings when a request body does not meet the contract's request schema for the operation, or
 * null when it does: to show which request forms the contract itself allows (the `client` forms, say).
 */
export function requestSpecErrors(spec: SpecName, specPath: string, method: string, body: unknown): string | null {
  const doc = load(spec)
  const op = ((doc.paths as Record<string, Record<string, Record<string, unknown>>>)[specPath] ?? {})[method.toLowerCase()]
  if (!op) throw new Error(`${spec}: no operation ${method} ${specPath}`)
  const pointer = `${spec}.yaml#/paths/${escapePointer(specPath)}/${method.toLowerCase()}/requestBody/content/application~1json/schema`
  const validate = ajv.getSchema(pointer) ?? ajv.compile({ $ref: pointer })
  return validate(body) ? null : ajv.errorsText(validate.errors)
}
