import { authenticateResourceServer, introspectToken, limitSecretFailures, parseIntrospectRequest } from '@gnap/domain'
import { callerIp } from '../../server/caller-ip'
import { gnapRoute, otherMethods } from '../../server/gnap-route'

export const dynamic = 'force-dynamic'

// token-introspection.yaml post-introspect, for resource servers holding the introspection secret.
export const POST = gnapRoute(
  {
    // Wrong secrets are counted per caller address (docs/protocol.md §2.6): past the limit, 429 before comparing.
    authorize: (deps, req) =>
      limitSecretFailures(deps, 'introspection', callerIp(req, deps.config), () =>
        authenticateResourceServer(deps, req.headers.get('authorization')),
      ),
    parse: parseIntrospectRequest,
  },
  ({ deps, input }) => introspectToken(deps, input),
)

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST')
