import { finishInteraction } from '@gnap/domain'
import { SESSION_COOKIE, frontChannelRoute, readCookie } from '../../../../../server/front-channel'

export const dynamic = 'force-dynamic'

// id-provider.yaml get-finish-interaction
export const GET = frontChannelRoute((deps, req, params) =>
  finishInteraction(deps, { interactionId: params.id ?? '', nonce: params.nonce ?? '', session: readCookie(req, SESSION_COOKIE) }),
)
