import type { Deps } from '../deps'
import { grantEndpoint, serverUrl } from '../../kernel/config/config'
import { moveGrant } from '../grant/grant.repo'
import { rowToAccessItem } from '../access/access.repo'
import { recordEvent } from '../events/outbox.repo'
import { grantDecidedEvent } from '../events/grant-events'
import { finishInteractionOnce } from './interaction.repo'
import { checkInteractionStep, INTERACTION_STEPS, stepPage } from './interaction-steps'
import { finishHash } from './finish-hash'
import { withQuery, type FrontChannelResult } from './front-channel'

/**
 * GET /interact/{id}/{nonce}/finish — the identity provider sends the owner back (docs/protocol.md §2.8). One
 * finish per interaction: the grant moves (approved or rejected, with its grant.approved or grant.rejected event) only
 * from pending, and a replayed finish URL redirects nobody. What it answers for an interaction it cannot finish is the
 * finish row of INTERACTION_STEPS.
 */
export async function finishInteraction(
  deps: Deps,
  input: { interactionId: string; nonce: string; session: string | null },
): Promise<FrontChannelResult> {
  const checked = await checkInteractionStep(deps, 'finish', input)
  if ('result' in checked) return checked.result
  const { interaction } = checked
  const { grant } = interaction
  const now = deps.clock()
  const finishUri = grant.finishUri

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
      await recordEvent(tx, grantDecidedEvent(grant, grant.accessItems.map(rowToAccessItem), approved, interaction.ownerId), now, deps.config)
      return true
    })
    .catch((e: unknown) => {
      if (e instanceof StaleFinish) return false
      throw e
    })
  // Lost to a concurrent finish: the link is used up.
  if (!changed) return stepPage(INTERACTION_STEPS.finish.handled)
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
    // The grant endpoint the client was given (docs/protocol.md §2.21, §5): a tenant's `AUTH_SERVER_URL/{tenantId}`.
    grantEndpoint: grant.tenantId === null ? grantEndpoint(deps.config.authServerUrl) : serverUrl(deps.config, grant.tenantId),
  })
  return { kind: 'redirect', location: withQuery(finishUri, { hash, interact_ref: interaction.interactRef }) }
}

/** Thrown inside the finish transaction to roll back the interaction marker when the grant moved meanwhile. */
class StaleFinish extends Error {}
