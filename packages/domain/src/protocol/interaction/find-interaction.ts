import type { Deps } from '../deps'
import { isOverdue } from '../grant/grant-state'
import { expireOverdueGrantNow } from '../grant/expire-grants'
import { findInteraction, type InteractionWithGrant } from './interaction.repo'

/**
 * An interaction by its id and AS nonce, with its grant, for the steps the owner's browser and the identity provider
 * take (docs/protocol.md §2.7–§2.11). A grant still pending whose interaction expired is first finalized as expired
 * with its grant.expired event (docs/protocol.md §3), so every step sees it as it now is. When a concurrent request
 * moved the grant first (a finish at the same instant), the interaction is read again and the step answers what won.
 */
export async function findInteractionForStep(deps: Deps, id: string, nonce: string): Promise<InteractionWithGrant | null> {
  const interaction = await findInteraction(deps.sql, id, nonce)
  const now = deps.clock()
  if (!interaction || !isOverdue(interaction.grant, interaction, now)) return interaction
  if (!(await expireOverdueGrantNow(deps, interaction.grant.id, now))) return findInteraction(deps.sql, id, nonce)
  deps.log.info({ grantId: interaction.grant.id }, 'grant finalized: interaction expired')
  deps.metrics.grant('expired')
  return { ...interaction, grant: { ...interaction.grant, state: 'finalized', finalizedReason: 'expired', finalizedAt: now, updatedAt: now } }
}
