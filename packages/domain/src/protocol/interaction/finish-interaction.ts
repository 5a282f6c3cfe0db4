import type { Deps } from '../deps'
import { grantEndpoint, serverUrl } from '../../kernel/config/config'
import { isExpiredGrant, isInteractionSession } from '../grant/grant-state'
import { moveGrant } from '../grant/grant.repo'
import { rowToAccessItem } from '../access/access.repo'
import { recordEvent } from '../events/outbox.repo'
import { grantDecidedEvent } from '../events/grant-events'
import { finishInteractionOnce } from './interaction.repo'
import { findInteractionForStep } from './find-interaction'
import { finishHash } from './finish-hash'
import { page, withQuery, type FrontChannelResult } from './front-channel'

/**
 * GET /interact/{id}/{nonce}/finish — the identity provider sends the owner back (docs/protocol.md §2.8). One
 * finish per interaction: the grant moves (approved or rejected, with its grant.approved or grant.rejected event) only
 * from pending, and a replayed finish URL redirects nobody.
 */
export async function finishInteraction(
  deps: Deps,
  input: { interactionId: string; nonce: string; session: string | null },
): Promise<FrontChannelResult> {
  const interaction = await findInteractionForStep(deps, input.interactionId, input.nonce)
  if (!interaction) return page(404, 'unknown_interaction', 'Unknown request', 'This authorization link is not valid.')
  if (!isInteractionSession(interaction, input.session)) {
    return page(
      401,
      'invalid_request',
      'Invalid session',
      'This page must be opened in the browser that started the request. Go back to the app and start again.',
    )
  }
  const { grant } = interaction
  // A grant whose interaction expired is finalized as expired by now (docs/protocol.md §3), and answered as expired.
  const expired = isExpiredGrant(grant)
  if (!expired && (grant.state === 'finalized' || interaction.finishedAt)) {
    return page(404, 'unknown_interaction', 'Request already handled', 'This request has already been completed or cancelled.')
  }
  const now = deps.clock()
  const finishUri = grant.finishUri
  if (expired) {
    if (finishUri) return { kind: 'redirect', location: withQuery(finishUri, { result: 'invalid_interaction', message: 'interaction expired' }) }
    return page(401, 'invalid_interaction', 'Request expired', 'This request has expired. Go back to the app and start again.')
  }
  if (interaction.state === 'pending') {
    if (finishUri) return { kind: 'redirect', location: withQuery(finishUri, { result: 'grant_invalid' }) }
    return page(
      401,
      'invalid_interaction',
      'Request not answered',
      'This request has not been approved or denied yet: the interaction is not active.',
    )
  }

  const approved = interaction.state === 'approved'
  const changed = await deps.sql
    .transaction(async (tx) => {
      if (!(await finishInteractionOnce(tx, interaction.id, now))) return false
      const moved = await moveGrant(
        tx,
        grant.id,
        [{ state: 'pending' }],
        approved ? { state: 'approved', now } : { state: 'finalized', finalizedReason: 'rejected', now },
      )
      if (!moved) throw new StaleFinish()
      await recordEvent(tx, grantDecidedEvent(grant, grant.accessItems.map(rowToAccessItem), approved, interaction.ownerId), now)
      return true
    })
    .catch((e: unknown) => {
      if (e instanceof StaleFinish) return false
      throw e
    })
  if (!changed) return page(404, 'unknown_interaction', 'Request already handled', 'This request has already been completed or cancelled.')
  deps.log.info({ grantId: grant.id, approved }, 'interaction finished')
  deps.metrics.grant(approved ? 'approved' : 'rejected')

  if (!finishUri) {
    if (!approved) return { kind: 'accepted', message: 'Denied. You can return to the app.' }
    // Approved on the built-in consent screen: the owner has an account page here, where they can take it back.
    const link = interaction.ownerId ? { href: serverUrl(deps.config, 'account'), text: 'See and manage the apps you have connected' } : undefined
    return { kind: 'accepted', message: 'Approved. You can return to the app.', ...(link ? { link } : {}) }
  }
  if (!approved) return { kind: 'redirect', location: withQuery(finishUri, { result: 'grant_rejected' }) }
  const hash = finishHash({
    clientNonce: grant.clientNonce ?? '',
    asNonce: interaction.nonce,
    interactRef: interaction.interactRef,
    grantEndpoint: grantEndpoint(deps.config.authServerUrl),
  })
  return { kind: 'redirect', location: withQuery(finishUri, { hash, interact_ref: interaction.interactRef }) }
}

/** Thrown inside the finish transaction to roll back the interaction marker when the grant moved meanwhile. */
class StaleFinish extends Error {}
