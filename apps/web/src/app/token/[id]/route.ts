import { GnapError, revokeAccessToken, rotateAccessToken } from '@gnap/domain'
import { gnapRoute, otherMethods } from '../../../server/gnap-route'

export const dynamic = 'force-dynamic'

// auth-server.yaml post-token. A body (e.g. RFC 9635 §6.1.1 key rotation) is not supported by Open Payments.
export const POST = gnapRoute(async ({ deps, body, params, auth }) => {
  if (body !== undefined) throw new GnapError('invalid_rotation', 'rotation takes no request body')
  return rotateAccessToken(deps, { managementId: params.id ?? '', auth: auth() })
})

// auth-server.yaml delete-token
export const DELETE = gnapRoute(async ({ deps, params, auth }) => {
  await revokeAccessToken(deps, { managementId: params.id ?? '', auth: auth() })
  return null
})

const other = otherMethods('POST, DELETE')
export const GET = other.notAllowed
export const PUT = other.notAllowed
export const PATCH = other.notAllowed
export const OPTIONS = other.options
