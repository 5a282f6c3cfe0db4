import type { Deps } from '../deps'
import { serverUrl } from '../../kernel/config/config'
import { hashSecret, newSecret } from '../../kernel/secrets'
import { setInteractionSession } from './interaction.repo'
import { checkInteractionStep } from './interaction-steps'
import { withQuery, type FrontChannelResult } from './front-channel'
import { identityProviderUrl } from '../tenant/tenants'

/**
 * GET /interact/{id}/{nonce} — the owner's browser arrives from the client (docs/protocol.md §2.7). Binds a session
 * to the interaction and sends the owner to the identity provider (with the name and URI stored at grant time) or
 * to the built-in consent screen: its tenant's (docs/protocol.md §2.21).
 * What it answers for an unknown, used, expired or decided interaction is the start row of INTERACTION_STEPS.
 */
export async function startInteraction(
  deps: Deps,
  input: { interactionId: string; nonce: string; session?: string | null },
): Promise<FrontChannelResult> {
  const checked = await checkInteractionStep(deps, 'start', { ...input, session: input.session ?? null })
  if ('result' in checked) return checked.result
  const { interaction } = checked
  const { grant } = interaction
  const now = deps.clock()
  const session = newSecret()
  await setInteractionSession(deps.sql, interaction.id, hashSecret(session))
  // The grant's tenant's identity provider when it has one, else the built-in consent screen (docs/protocol.md §2.21).
  const idp = await identityProviderUrl(deps, grant)
  const location = idp
    ? withQuery(idp, {
        interactId: interaction.id,
        nonce: interaction.nonce,
        clientName: grant.clientName ?? '',
        clientUri: grant.client,
      })
    : serverUrl(deps.config, 'interact', interaction.id, interaction.nonce, 'consent')
  const maxAgeSeconds = Math.max(1, Math.ceil((interaction.expiresAt.getTime() - now.getTime()) / 1000))
  return { kind: 'redirect', location, session: { value: session, maxAgeSeconds } }
}
