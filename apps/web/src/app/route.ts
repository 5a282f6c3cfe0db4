import { admitGrantRequestFromIp, parseGrantRequest, requestGrant } from '@gnap/domain/protocol'
import { answers, gnapRoute, otherMethods } from '../server/edge/gnap-route'
import { callerIp } from '../server/edge/caller-ip'

export const dynamic = 'force-dynamic'

// auth-server.yaml post-request. Every attempt counts against the caller's address first (429 request_denied);
// the client's own allowance is counted once its signature verified (requestGrant).
export const POST = gnapRoute(
  { admit: (deps, req) => admitGrantRequestFromIp(deps, callerIp(req, deps.config)), parse: parseGrantRequest },
  ({ deps, input, auth }) => requestGrant(deps, input, auth()),
)

// The grant endpoint is POST only; a person opening the server's root in a browser lands on the admin console.
export function GET(): Response {
  return answers.temporaryRedirect('/admin')
}

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST')
