import type { Deps } from '../deps'
import { serverUrl } from '../../kernel/config/config'
import { isExpiredGrant, isInteractionSession } from '../grant/grant-state'
import { findSession } from '../../kernel/session/find-session'
import type { SessionRow } from '../../kernel/session/session.repo'
import { findOwnerWithWalletAddresses } from '../owner/consenting-owner.repo'
import type { InteractionWithGrant } from '../interaction/interaction.repo'
import { findInteractionForStep } from '../interaction/find-interaction'
import { page, withQuery, type FrontChannelResult } from '../interaction/front-channel'
import { findGrantSubjectIds } from '../grant/grant-subject.repo'

// What the built-in consent screen's steps share (used when no IDENTITY_SERVER_URL is set): the owner signs in,
// reads what the client asks for in plain words, and approves or denies. The decision goes through
// decideInteraction, the same as the identity-provider API's, and the browser then goes to the usual finish URL.

export interface ConsentInput {
  interactionId: string
  nonce: string
  /** The interaction session cookie set when the interaction started. */
  interactionSession: string | null
  /** The owner's session cookie, when signed in. */
  ownerSession: string | null
}

/** The client as the consent screen names it: the name it gave (else its wallet address) and its wallet address. */
export interface ConsentClient {
  name: string
  walletAddress: string
}

type Checked =
  | {
      interaction: InteractionWithGrant
      client: ConsentClient
      /** The wallet addresses the client asks the owner to confirm they control (a subject request); often none. */
      subIds: string[]
    }
  | { result: FrontChannelResult }

/** The checks every consent step shares: a known interaction, this browser's session, still awaiting a decision. */
export async function checkInteraction(deps: Deps, input: ConsentInput): Promise<Checked> {
  const interaction = await findInteractionForStep(deps, input.interactionId, input.nonce)
  if (!interaction) {
    return {
      result: page(
        400,
        'unknown_interaction',
        'Unknown request',
        'This authorization link is not valid. Go back to the app that sent you here and start again.',
      ),
    }
  }
  if (!isInteractionSession(interaction, input.interactionSession)) {
    return {
      result: page(
        401,
        'invalid_request',
        'Invalid session',
        'This page must be opened from the link the app gave you, in the same browser. Go back to the app and start again.',
      ),
    }
  }
  const { grant } = interaction
  // A grant whose interaction expired is finalized as expired by now (docs/protocol.md §3), and answered as expired.
  const expired = isExpiredGrant(grant)
  if (!expired && (grant.state === 'finalized' || interaction.finishedAt)) {
    return {
      result: page(
        403,
        'invalid_interaction',
        'Request already handled',
        'This request has already been completed or cancelled. There is nothing left to do here.',
      ),
    }
  }
  if (expired) {
    if (grant.finishUri)
      return { result: { kind: 'redirect', location: withQuery(grant.finishUri, { result: 'invalid_interaction', message: 'interaction expired' }) } }
    return { result: page(403, 'invalid_interaction', 'Request expired', 'This request has expired. Go back to the app and start again.') }
  }
  if (interaction.state !== 'pending') {
    // Decided but the browser never reached the finish step (a reload, a double click): finish it now.
    return { result: { kind: 'redirect', location: finishUrl(deps, interaction) } }
  }
  const subIds = await findGrantSubjectIds(deps.sql, grant.id)
  return { interaction, client: { name: grant.clientName ?? grant.client, walletAddress: grant.client }, subIds }
}

export const finishUrl = (deps: Deps, i: { id: string; nonce: string }) => serverUrl(deps.config, 'interact', i.id, i.nonce, 'finish')

/** The signed-in owner of a live owner session, with the wallet addresses they own; null otherwise. */
export async function ownerOf(
  deps: Deps,
  sessionValue: string | null,
): Promise<{ session: SessionRow; owner: { id: string; name: string; disabled: boolean }; walletAddresses: string[] } | null> {
  const session = await findSession(deps.sql, 'owner', sessionValue, deps.clock())
  if (!session) return null
  const owner = await findOwnerWithWalletAddresses(deps.sql, session.subjectId)
  return owner
    ? { session, owner: { id: owner.id, name: owner.name, disabled: owner.status === 'disabled' }, walletAddresses: owner.walletAddresses }
    : null
}

/** What a disabled owner sees instead of a consent request (docs/protocol.md §2.13): they can decide nothing. */
export const accountDisabledPage = (): FrontChannelResult =>
  page(
    403,
    'request_denied',
    'Account disabled',
    'This account is disabled, so it cannot approve or deny this request. Contact the provider of your wallet to have it enabled again.',
  )
