import { admitGrantRequestFromIp, parseGrantRequest, requestGrant } from '@gnap/domain/protocol'
import { answers, gnapRoute, otherMethods } from '../server/edge/gnap-route'
import { callerAddress, callerIp } from '../server/edge/caller-ip'

export const dynamic = 'force-dynamic'

// auth-server.yaml post-request. Every attempt counts against the caller's address first (429 request_denied);
// the client's own allowance is counted once its signature verified (requestGrant), and a directed identity's also
// against its address's share of the allowance directed identities share (docs/protocol.md §4.5): that address is
// the socket's when no proxy is trusted, so it is known even where the per-IP limit is not.
export const POST = gnapRoute(
  { admit: (deps, req) => admitGrantRequestFromIp(deps, callerIp(req, deps.config)), parse: parseGrantRequest },
  ({ deps, req, input, auth }) => requestGrant(deps, input, auth(), callerAddress(req, deps.config)),
)

// The grant endpoint is POST only; a person opening the server's root in a browser lands on the admin console.
export function GET(): Response {
  return answers.temporaryRedirect('/admin')
}

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST')
