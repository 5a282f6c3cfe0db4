import { INTERACTION_COOKIE, readCookie } from '@gnap/domain/kernel'
import { startInteraction } from '@gnap/domain/protocol'
import { frontChannelRoute } from '../../../../server/edge/front-channel'

export const dynamic = 'force-dynamic'

// id-provider.yaml get-interact
export const GET = frontChannelRoute(
  (deps, req, params) =>
    startInteraction(deps, {
      interactionId: params.id ?? '',
      nonce: params.nonce ?? '',
      session: readCookie(req.headers.get('cookie'), INTERACTION_COOKIE),
    }),
  // The contract's endpoint: JSON unless the caller prefers a page (docs/protocol.md §2.8 "Pages or JSON").
  'json',
)
