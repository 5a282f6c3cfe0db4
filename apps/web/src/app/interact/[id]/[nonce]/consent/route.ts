import { INTERACTION_COOKIE, OWNER_COOKIE, readCookie } from '@gnap/domain/kernel'
import { getConsentScreen } from '@gnap/domain/protocol'
import { frontChannelRoute, render } from '../../../../../server/edge/front-channel'
import { consentPage, formState, notYoursPage, signInPage } from '../../../../../server/pages/pages'

export const dynamic = 'force-dynamic'

// The built-in consent screen (when IDENTITY_SERVER_URL is not set): sign in, then Approve or Deny.
export const GET = frontChannelRoute(async (deps, req, params) => {
  const screen = await getConsentScreen(deps, {
    interactionId: params.id ?? '',
    nonce: params.nonce ?? '',
    interactionSession: readCookie(req.headers.get('cookie'), INTERACTION_COOKIE),
    ownerSession: readCookie(req.headers.get('cookie'), OWNER_COOKIE),
  })
  switch (screen.kind) {
    case 'sign-in':
      return signInPage(
        screen.client,
        formState.shown(new URL(req.url).searchParams.has('failed') ? 'The email or password is not right. Try again.' : null),
      )
    case 'consent':
      return consentPage(screen)
    case 'not-yours':
      return notYoursPage(screen)
    default:
      return render(deps, req, params, screen)
  }
})
