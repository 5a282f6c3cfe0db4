import { INTERACTION_COOKIE, readCookie } from '@gnap/domain/kernel'
import type { finishInteraction } from '@gnap/domain/protocol'
import { frontChannelRoute } from '../../../../server/edge/front-channel'

/**
 * The GET of one step of an interaction (start, finish): the interaction id and nonce from the path, the interaction
 * cookie's session. The contract's endpoint: JSON unless the caller prefers a page (docs/protocol.md §2.8 "Pages or
 * JSON").
 */
export function interactionStepRoute(step: typeof finishInteraction) {
  return frontChannelRoute(
    (deps, req, params) =>
      step(deps, {
        interactionId: params.id ?? '',
        nonce: params.nonce ?? '',
        session: readCookie(req.headers.get('cookie'), INTERACTION_COOKIE),
      }),
    'json',
  )
}
