import { authenticateResourceServer, introspectToken, parseIntrospectRequest } from '@gnap/domain'
import { gnapRoute, otherMethods } from '../../server/gnap-route'

export const dynamic = 'force-dynamic'

// token-introspection.yaml post-introspect, for resource servers holding the introspection secret.
export const POST = gnapRoute(
  {
    authorize: (deps, req) => authenticateResourceServer(deps, req.headers.get('authorization')),
    parse: parseIntrospectRequest,
  },
  ({ deps, input }) => introspectToken(deps, input),
)

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST')
