import { handleRestRequest, restRefusal as refuse } from '@gnap/api'
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '@gnap/domain/kernel'
import { depsOrUnavailable } from '../../../../server/process/deps'
import { callerIp } from '../../../../server/edge/caller-ip'
import { JSON_LIMITS, readBody } from '../../../../server/edge/body'
import { tracedRoute } from '../../../../server/edge/request-span'

export const dynamic = 'force-dynamic'

const BASE_PATH = '/api/v1'

// The REST form of the operator procedures for back ends with an API key (docs/protocol.md §2.18), described by
// `/api/v1/openapi.json`. Cookies are never read here. Errors are JSON: `{"error":{"code","message"}}`.

// One span per request, named by the route template: the path holds ids (request-span.ts).
const handler = tracedRoute('/api/v1/[...path]', serve)

async function serve(req: Request): Promise<Response> {
  const deps = await depsOrUnavailable()
  // docs/protocol.md §9: the database is unreachable for now.
  if (!deps)
    return refuse('service_unavailable', 'the service is temporarily unavailable: try again later', {
      'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS),
    })
  let body: string | null = null
  if (req.method === 'POST') {
    const read = await readBody(req, JSON_LIMITS)
    if (read.kind === 'too-large') return refuse('payload_too_large', 'request too large')
    if (read.kind === 'too-deep') return refuse('bad_request', 'request nested too deep')
    body = new TextDecoder().decode(read.bytes)
  }
  return handleRestRequest(req, { deps, basePath: BASE_PATH, ip: callerIp(req, deps.config), body })
}

const notAllowed = () => refuse('method_not_supported', 'use GET or POST', { allow: 'GET, POST' })

export { handler as GET, handler as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE }
