import type { Deps } from '../deps'
import { GnapError } from '../../kernel/errors'
import { rowToAccessItem } from '../access/access.repo'
import type { AccessItem } from '../access/access.wire'
import { isRevoked } from '../grant/grant-state'
import { findInteractionForStep } from './find-interaction'
import { toWireInteractionState, type WireInteractionState } from './interaction.wire'
import { identifyIdpCaller, refuseOtherTenantsIdp } from './check-idp-secret'
import { limitSecretFailures } from '../rate-limit/secret-failure-limit'
import { findGrantSubjectIds } from '../grant/grant-subject.repo'
import { toSubjectJson, type SubjectJson } from '../grant/grant.wire'

/**
 * GET /grant/{id}/{nonce} — what the owner is asked to consent to (docs/protocol.md §2.9), for an identity
 * provider (id-provider.yaml, compatible with the reference server's so existing identity providers plug in).
 * @throws GnapError invalid_request (401), request_denied (429, too many wrong secrets), unknown_interaction (404)
 */
export async function getGrantForConsent(
  deps: Deps,
  input: { interactionId: string; nonce: string; idpSecret: string | null; ip?: string | null },
): Promise<{ grantId: string; access: AccessItem[]; subject?: SubjectJson; state: WireInteractionState }> {
  const caller = await limitSecretFailures(deps, 'idp', input.ip ?? null, () => identifyIdpCaller(deps, input.idpSecret, 'invalid_request'))
  const interaction = await findInteractionForStep(deps, input.interactionId, input.nonce)
  if (!interaction || isRevoked(interaction.grant)) throw new GnapError('unknown_interaction', 'unknown interaction')
  refuseOtherTenantsIdp(deps, caller, interaction.grant, 'invalid_request')
  // The subject the client asks the owner to confirm, when it asked (docs/protocol.md §2.9); `access` is empty for a
  // subject-only grant.
  const subIds = await findGrantSubjectIds(deps.sql, interaction.grant.id)
  return {
    grantId: interaction.grant.id,
    access: interaction.grant.accessItems.map(rowToAccessItem),
    ...(subIds.length > 0 ? { subject: toSubjectJson(subIds) } : {}),
    state: toWireInteractionState(interaction.state),
  }
}
