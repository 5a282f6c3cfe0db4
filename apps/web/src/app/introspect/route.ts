import { introspectForResourceServer } from '@gnap/domain/protocol'
import { callerAddress } from '../../server/edge/caller-ip'
import { gnapRoute, otherMethods } from '../../server/edge/gnap-route'

export const dynamic = 'force-dynamic'

// token-introspection.yaml post-introspect, for resource servers holding the introspection secret. The same use case
// serves the introspection listener (server/edge/introspection-listener.ts): the secret, its failure limit (docs/protocol.md
// §2.6), the body's shape and the lookup are all in it, so both answer alike.
export const POST = gnapRoute({ parse: (json) => json }, ({ deps, req, input }) =>
  introspectForResourceServer(deps, { authorization: req.headers.get('authorization'), ip: callerAddress(req, deps.config) }, input),
)

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST')
