import { TRPCError } from '@trpc/server'
import type { TestDeps } from '@gnap/domain/testing'
import { handleRestRequest, REST_OPERATIONS } from '../src/rest'
import type { Caller } from './procedures'

/**
 * A caller whose every call goes over the REST form (docs/protocol.md §2.18) with `key`: the procedure's path and
 * input become the operation's method, path and JSON body, and a refusal becomes the TRPCError of the answer's code.
 * A procedure without a REST form answers 404, as the REST handler does for a path it does not know.
 */
export function restCaller(t: TestDeps, key: string): Caller {
  const call = async (procedure: string, input: Record<string, unknown> = {}) => {
    const op = REST_OPERATIONS.find((o) => o.procedure === procedure)
    if (!op) throw new TRPCError({ code: 'NOT_FOUND', message: `${procedure} has no REST form` })
    const body = { ...input }
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = String(body[name])
      delete body[name]
      return encodeURIComponent(value)
    })
    const req = new Request(`http://localhost/api/v1${path}`, { method: op.method, headers: { authorization: `Bearer ${key}` } })
    const res = await handleRestRequest(req, { deps: t.deps, basePath: '/api/v1', ip: null, body: op.body ? JSON.stringify(body) : null })
    const answer = (await res.json()) as { error?: { code: TRPCError['code']; message: string } }
    if (answer.error) throw new TRPCError({ code: answer.error.code, message: answer.error.message })
    return answer
  }
  const group = (router: string) => new Proxy({}, { get: (_, name: string) => (input?: Record<string, unknown>) => call(`${router}.${name}`, input) })
  return new Proxy({}, { get: (_, router: string) => group(router) }) as Caller
}
