import type { Deps } from '../deps'
import { GnapError, interactionNotAwaitingDecision } from '../../kernel/errors'
import { isInteractionExpired, isRejected, isRevoked } from '../grant/grant-state'
import { decideInteractionOnce, type InteractionWithGrant } from './interaction.repo'

/**
 * Records the owner's decision on an interaction, once: the one place where a consent is taken, whether through
 * the identity-provider API or the built-in consent screen (docs/protocol.md §2.10). The grant itself changes only
 * when the browser comes back to the finish URL.
 * @throws GnapError user_denied (401), invalid_interaction (400)
 */
export async function decideInteraction(
  deps: Deps,
  interaction: InteractionWithGrant,
  decision: 'approved' | 'denied',
  ownerId: string | null,
): Promise<void> {
  const { grant } = interaction
  if (isRevoked(grant) || isRejected(grant)) throw new GnapError('user_denied', 'the grant was revoked or denied')
  const now = deps.clock()
  if (interaction.state !== 'pending' || isInteractionExpired(interaction, now) || grant.state !== 'pending') {
    throw interactionNotAwaitingDecision()
  }
  // The conditional update decides a race with another decision (a second tab, the identity provider twice).
  if (!(await decideInteractionOnce(deps.sql, interaction.id, { state: decision, now, ownerId }))) throw interactionNotAwaitingDecision()
  deps.log.info({ grantId: interaction.grantId, decision }, 'consent recorded')
}
