import { INTERACTION_COOKIE, readCookie } from '@gnap/domain/kernel'
import { finishInteraction } from '@gnap/domain/protocol'
import { frontChannelRoute } from '../../../../../server/edge/front-channel'

export const dynamic = 'force-dynamic'

// id-provider.yaml get-finish-interaction
export const GET = frontChannelRoute(
  (deps, req, params) =>
    finishInteraction(deps, {
      interactionId: params.id ?? '',
      nonce: params.nonce ?? '',
      session: readCookie(req.headers.get('cookie'), INTERACTION_COOKIE),
    }),
  // The contract's endpoint: JSON unless the caller prefers a page (docs/protocol.md §2.8 "Pages or JSON").
  'json',
)
