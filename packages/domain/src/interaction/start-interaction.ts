import type { Deps } from '../deps'
import { hashSecret, newSecret } from '../secrets'
import { isInteractionExpired } from '../grant/grant-state'
import { findInteraction } from './interaction.repo'
import { page, withQuery, type FrontChannelResult } from './front-channel'

/**
 * GET /interact/{id}/{nonce} — the owner's browser arrives from the client (PROTOCOL.md §2.7). Binds a session
 * to the interaction and sends the owner to the identity provider with the name and URI stored at grant time.
 */
export async function startInteraction(deps: Deps, input: { interactionId: string; nonce: string }): Promise<FrontChannelResult> {
  const interaction = await findInteraction(deps.db, input.interactionId, input.nonce)
  if (!interaction) {
    return page(400, 'unknown_interaction', 'Unknown request', 'This authorization link is not valid. Go back to the app that sent you here and start again.')
  }
  const { grant } = interaction
  if (grant.state === 'finalized' || interaction.finishedAt) {
    return page(403, 'invalid_interaction', 'Request already handled', 'This request has already been completed or cancelled. There is nothing left to do here.')
  }
  const now = deps.clock()
  const expired = isInteractionExpired(interaction, now)
  if (expired || interaction.state !== 'PENDING') {
    const message = expired ? 'interaction expired' : 'interaction already decided'
    if (grant.finishUri) return { kind: 'redirect', location: withQuery(grant.finishUri, { result: 'invalid_interaction', message }) }
    return page(403, 'invalid_interaction', expired ? 'Request expired' : 'Request already decided', expired ? 'This request has expired. Go back to the app and start again.' : 'You have already answered this request.')
  }
  if (!deps.config.identityServerUrl) {
    return page(500, 'request_denied', 'Consent is unavailable', 'This server has no consent screen configured. Please contact its operator.')
  }

  const session = newSecret()
  await deps.db.interaction.update({ where: { id: interaction.id }, data: { sessionHash: hashSecret(session) } })
  const location = withQuery(deps.config.identityServerUrl, {
    interactId: interaction.id,
    nonce: interaction.nonce,
    clientName: grant.clientName ?? '',
    clientUri: grant.client,
  })
  const maxAgeSeconds = Math.max(1, Math.ceil((interaction.expiresAt.getTime() - now.getTime()) / 1000))
  return { kind: 'redirect', location, session: { value: session, maxAgeSeconds } }
}
