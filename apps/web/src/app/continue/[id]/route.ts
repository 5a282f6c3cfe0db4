import { cancelGrant, continueGrant, parseContinueRequest } from '@gnap/domain/protocol'
import { gnapRoute, otherMethods } from '../../../server/edge/gnap-route'

export const dynamic = 'force-dynamic'

// auth-server.yaml post-continue
export const POST = gnapRoute({ parse: parseContinueRequest }, ({ deps, input, params, auth }) =>
  continueGrant(deps, { ...input, continueId: params.id ?? '', auth: auth() }),
)

// auth-server.yaml delete-continue
export const DELETE = gnapRoute({}, async ({ deps, params, auth }) => {
  await cancelGrant(deps, { continueId: params.id ?? '', auth: auth() })
  return null
})

export const { GET, PUT, PATCH, OPTIONS } = otherMethods('POST, DELETE')
