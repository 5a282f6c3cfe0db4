import type { Deps } from '../deps'
import { GnapError } from '../../kernel/errors'
import { findInteractionForStep } from './find-interaction'
import { identifyIdpCaller, refuseOtherTenantsIdp } from './check-idp-secret'
import { limitSecretFailures } from '../rate-limit/secret-failure-limit'
import { decideInteraction } from './decide-interaction'

/**
 * POST /grant/{id}/{nonce}/{accept|reject} — the owner's decision as an identity provider reports it, recorded once
 * (docs/protocol.md §2.10). The grant itself changes only when the browser comes back to the finish URL.
 * @throws GnapError invalid_interaction (401 secret, 400 state), request_denied (429, too many wrong secrets), invalid_request (400), unknown_interaction (404), user_denied (401)
 */
export async function recordConsent(
  deps: Deps,
  input: { interactionId: string; nonce: string; choice: string; idpSecret: string | null; ip?: string | null },
): Promise<void> {
  const caller = await limitSecretFailures(deps, 'idp', input.ip ?? null, () => identifyIdpCaller(deps, input.idpSecret, 'invalid_interaction'))
  if (input.choice !== 'accept' && input.choice !== 'reject') throw new GnapError('invalid_request', 'choice must be accept or reject')
  const interaction = await findInteractionForStep(deps, input.interactionId, input.nonce)
  if (!interaction) throw new GnapError('unknown_interaction', 'unknown interaction')
  refuseOtherTenantsIdp(deps, caller, interaction.grant, 'invalid_interaction')
  await decideInteraction(deps, interaction, input.choice === 'accept' ? 'approved' : 'denied', null)
}
