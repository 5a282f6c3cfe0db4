import { admitGrantRequestFromIp, parseGrantRequest, requestGrant } from '@gnap/domain/protocol'
import { gnapRoute, otherMethods } from '../../../server/edge/gnap-route'
import { callerAddress, callerIp } from '../../../server/edge/caller-ip'

export const dynamic = 'force-dynamic'

// POST /{tenantId}, a tenant's grant endpoint (docs/protocol.md §2.21), rewritten here by next.config.ts: §2.1 for
// that tenant, with the same limits as `POST /`. The signature covers the URL the client was given, `/{tenantId}`.
export const POST = gnapRoute(
  {
    admit: (deps, req) => admitGrantRequestFromIp(deps, callerIp(req, deps.config)),
    parse: parseGrantRequest,
    targetPath: (params) => `/${params.tenantId ?? ''}`,
  },
  ({ deps, req, input, auth, params }) => requestGrant(deps, input, auth(), callerAddress(req, deps.config), params.tenantId ?? ''),
)

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST')
