import type { Deps } from '../deps'
import { isGnapError } from '../../kernel/errors'
import { csrfMatches } from '../../kernel/session/csrf'
import { ownsGrant } from '../owner/owns-access'
import { decideInteraction } from '../interaction/decide-interaction'
import { page, type FrontChannelResult } from '../interaction/front-channel'
import { accountDisabledPage, checkInteraction, finishUrl, ownerOf, type ConsentInput } from './consent-checks'

/**
 * POST /interact/{id}/{nonce}/decision — the owner's Approve or Deny. Needs the interaction's session, the owner's
 * session, the form's CSRF token and ownership of every resource and wallet address the grant names; then records the decision and
 * sends the browser to the finish URL.
 */
export async function decideConsent(deps: Deps, input: ConsentInput & { csrf: string | null; choice: string | null }): Promise<FrontChannelResult> {
  const checked = await checkInteraction(deps, input)
  if ('result' in checked) return checked.result
  const { interaction, subIds } = checked
  const signedIn = await ownerOf(deps, input.ownerSession)
  if (!signedIn) return page(401, 'invalid_request', 'Signed out', 'Your session has ended. Go back to the request and sign in again.')
  if (signedIn.owner.disabled) return accountDisabledPage()
  if (!csrfMatches(signedIn.session, input.csrf)) {
    return page(403, 'invalid_request', 'Request refused', 'This form could not be verified. Go back to the request and try again.')
  }
  if (input.choice !== 'approve' && input.choice !== 'deny') {
    return page(400, 'invalid_request', 'Unknown choice', 'Choose Approve or Deny.')
  }
  // Refused here too, not only left off the screen: a hand-made form post proves nothing (docs/protocol.md §2.11).
  if (
    !ownsGrant(
      signedIn.walletAddresses,
      interaction.grant.accessItems.map((r) => r.identifier),
      subIds,
    )
  ) {
    return page(
      403,
      'invalid_interaction',
      'Not your account',
      'This request is about wallet addresses that do not belong to the account you are signed in with. Sign out and sign in with the account that owns them, or go back to the app.',
    )
  }
  try {
    await decideInteraction(deps, interaction, input.choice === 'approve' ? 'approved' : 'denied', signedIn.owner.id)
  } catch (e) {
    // Lost a race with another decision for the same interaction (a second tab): finishing sorts it out.
    if (!isGnapError(e)) throw e
  }
  return { kind: 'redirect', location: finishUrl(deps, interaction) }
}
