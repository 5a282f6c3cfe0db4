import type { Deps } from '../deps'
import { GnapError } from '../errors'
import { secretsEqual } from '../secrets'
import { rowToAccessItem } from '../access/access.repo'
import type { AccessItem } from '../access/access.wire'
import { isInteractionExpired, isRejected, isRevoked, type GrantStatus, type InteractionState } from '../grant/grant-state'
import { findInteraction, type InteractionWithGrant } from './interaction.repo'

// The identity-provider API (id-provider.yaml), compatible with the reference server's so existing identity
// providers plug in. Authenticated by the `x-idp-secret` header.

function checkIdpSecret(deps: Deps, presented: string | null, code: 'invalid_request' | 'invalid_interaction'): void {
  const expected = deps.config.identityServerSecret
  // Digests are compared, so a secret of another length is a plain 401, never a crash (PROTOCOL.md §8.6).
  if (!expected || !presented || !secretsEqual(presented, expected)) throw new GnapError(code, 'invalid x-idp-secret', 401)
}

/**
 * GET /grant/{id}/{nonce} — what the owner is asked to consent to (PROTOCOL.md §2.9).
 * @throws GnapError invalid_request (401), unknown_interaction (404)
 */
export async function getGrantForConsent(
  deps: Deps,
  input: { interactionId: string; nonce: string; idpSecret: string | null },
): Promise<{ grantId: string; access: AccessItem[]; state: InteractionState }> {
  checkIdpSecret(deps, input.idpSecret, 'invalid_request')
  const interaction = await findInteraction(deps.db, input.interactionId, input.nonce)
  if (!interaction || isRevoked(interaction.grant as GrantStatus)) throw new GnapError('unknown_interaction', 'unknown interaction')
  return {
    grantId: interaction.grant.id,
    access: interaction.grant.accessItems.map(rowToAccessItem),
    state: interaction.state as InteractionState,
  }
}

/**
 * POST /grant/{id}/{nonce}/{accept|reject} — the owner's decision, recorded once (PROTOCOL.md §2.10). The grant
 * itself changes only when the browser comes back to the finish URL.
 * @throws GnapError invalid_interaction (401 secret, 400 state), invalid_request (400), unknown_interaction (404), user_denied (401)
 */
export async function recordConsent(
  deps: Deps,
  input: { interactionId: string; nonce: string; choice: string; idpSecret: string | null },
): Promise<void> {
  checkIdpSecret(deps, input.idpSecret, 'invalid_interaction')
  if (input.choice !== 'accept' && input.choice !== 'reject') throw new GnapError('invalid_request', 'choice must be accept or reject')
  const interaction = await findInteraction(deps.db, input.interactionId, input.nonce)
  if (!interaction) throw new GnapError('unknown_interaction', 'unknown interaction')
  await decideInteraction(deps, interaction, input.choice === 'accept' ? 'APPROVED' : 'DENIED', null)
}

/**
 * Records the owner's decision on an interaction, once: the one place where a consent is taken, whether through
 * the identity-provider API or the built-in consent screen (PROTOCOL.md §2.10). The grant itself changes only when
 * the browser comes back to the finish URL.
 * @throws GnapError user_denied (401), invalid_interaction (400)
 */
export async function decideInteraction(
  deps: Deps,
  interaction: InteractionWithGrant,
  decision: 'APPROVED' | 'DENIED',
  ownerId: string | null,
): Promise<void> {
  const grant = interaction.grant as GrantStatus
  if (isRevoked(grant) || isRejected(grant)) throw new GnapError('user_denied', 'the grant was revoked or denied')
  const now = deps.clock()
  if (interaction.state !== 'PENDING' || isInteractionExpired(interaction, now) || grant.state !== 'pending') {
    throw new GnapError('invalid_interaction', 'the interaction is not awaiting a decision', 400)
  }
  const { count } = await deps.db.interaction.updateMany({
    where: { id: interaction.id, state: 'PENDING' },
    data: { state: decision, decidedAt: now, ownerId },
  })
  if (count !== 1) throw new GnapError('invalid_interaction', 'the interaction is not awaiting a decision', 400)
  deps.log.info({ grantId: interaction.grantId, decision }, 'consent recorded')
}
