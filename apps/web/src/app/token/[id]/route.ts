import { parseRotateRequest, revokeAccessToken, rotateAccessToken } from '@gnap/domain/protocol'
import { gnapRoute, otherMethods } from '../../../server/edge/gnap-route'

export const dynamic = 'force-dynamic'

// auth-server.yaml post-token
export const POST = gnapRoute({ parse: parseRotateRequest }, ({ deps, params, auth }) =>
  rotateAccessToken(deps, { managementId: params.id ?? '', auth: auth() }),
)

// auth-server.yaml delete-token
export const DELETE = gnapRoute({}, async ({ deps, params, auth }) => {
  await revokeAccessToken(deps, { managementId: params.id ?? '', auth: auth() })
  return null
})

export const { GET, PUT, PATCH, OPTIONS } = otherMethods('POST, DELETE')
