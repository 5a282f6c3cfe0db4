import { parseGrantRequest, requestGrant } from '@gnap/domain'
import { gnapRoute } from '../server/gnap-route'

export const dynamic = 'force-dynamic'

// auth-server.yaml post-request
export const POST = gnapRoute(async ({ deps, body, auth }) => {
  const request = parseGrantRequest(body)
  return requestGrant(deps, request, auth())
})
