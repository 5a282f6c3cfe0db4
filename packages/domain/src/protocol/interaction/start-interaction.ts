import type { Deps } from '../deps'
import { serverUrl } from '../../kernel/config/config'
import { hashSecret, newSecret } from '../../kernel/secrets'
import { isExpiredGrant, isInteractionSession } from '../grant/grant-state'
import { setInteractionSession } from './interaction.repo'
import { findInteractionForStep } from './find-interaction'
import { page, withQuery, type FrontChannelResult } from './front-channel'

/**
 * GET /interact/{id}/{nonce} — the owner's browser arrives from the client (docs/protocol.md §2.7). Binds a session
 * to the interaction and sends the owner to the identity provider (with the name and URI stored at grant time) or
 * to the built-in consent screen.
 *
 * A decided or expired interaction sends the browser back to the client's finish URI only when it carries the
 * interaction's session (the browser that started it); any other browser gets a page with a link, so a stale
 * interaction link cannot be used as an open redirect to whatever finish URI a client registered.
 */
export async function startInteraction(
  deps: Deps,
  input: { interactionId: string; nonce: string; session?: string | null },
): Promise<FrontChannelResult> {
  const interaction = await findInteractionForStep(deps, input.interactionId, input.nonce)
  if (!interaction) {
    return page(
      400,
      'unknown_interaction',
      'Unknown request',
      'This authorization link is not valid. Go back to the app that sent you here and start again.',
    )
  }
  const { grant } = interaction
  // A grant whose interaction expired is finalized as expired by now (docs/protocol.md §3), and answered as expired.
  const expired = isExpiredGrant(grant)
  if (!expired && (grant.state === 'finalized' || interaction.finishedAt)) {
    return page(
      403,
      'invalid_interaction',
      'Request already handled',
      'This request has already been completed or cancelled. There is nothing left to do here.',
    )
  }
  const now = deps.clock()
  if (expired || interaction.state !== 'pending') {
    const message = expired ? 'interaction expired' : 'interaction already decided'
    const back = grant.finishUri ? withQuery(grant.finishUri, { result: 'invalid_interaction', message }) : null
    if (back && isInteractionSession(interaction, input.session ?? null)) return { kind: 'redirect', location: back }
    return page(
      403,
      'invalid_interaction',
      expired ? 'Request expired' : 'Request already decided',
      expired ? 'This request has expired. Go back to the app and start again.' : 'You have already answered this request.',
      back ? { href: back, text: `Go back to ${new URL(back).host}` } : undefined,
    )
  }
  const session = newSecret()
  await setInteractionSession(deps.sql, interaction.id, hashSecret(session))
  // An external identity provider when one is configured, else the built-in consent screen.
  const location = deps.config.identityServerUrl
    ? withQuery(deps.config.identityServerUrl, {
        interactId: interaction.id,
        nonce: interaction.nonce,
        clientName: grant.clientName ?? '',
        clientUri: grant.client,
      })
    : serverUrl(deps.config, 'interact', interaction.id, interaction.nonce, 'consent')
  const maxAgeSeconds = Math.max(1, Math.ceil((interaction.expiresAt.getTime() - now.getTime()) / 1000))
  return { kind: 'redirect', location, session: { value: session, maxAgeSeconds } }
}
