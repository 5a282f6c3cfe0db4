import { INTERACTION_COOKIE, OWNER_COOKIE, readCookie } from '@gnap/domain/kernel'
import { decideConsent } from '@gnap/domain/protocol'
import { frontChannelRoute, seeOther } from '../../../../../server/edge/front-channel'
import { readForm } from '../../../../../server/edge/body'

export const dynamic = 'force-dynamic'

// Approve or Deny on the consent screen; then the browser goes to the finish URL.
export const POST = frontChannelRoute(async (deps, req, params) => {
  const form = await readForm(req)
  const result = await decideConsent(deps, {
    interactionId: params.id ?? '',
    nonce: params.nonce ?? '',
    interactionSession: readCookie(req.headers.get('cookie'), INTERACTION_COOKIE),
    ownerSession: readCookie(req.headers.get('cookie'), OWNER_COOKIE),
    csrf: form.get('csrf'),
    choice: form.get('choice'),
  })
  // After a form post the redirect is a 303, so the browser follows it with a GET.
  return result.kind === 'redirect' ? seeOther(result.location) : result
})
