import type { Deps } from '../deps'
import { GnapError } from '../errors'
import { rowToAccessItem } from '../access/access.repo'
import type { AccessItem } from '../access/access.wire'
import { describeAccessItem, type AccessDescription } from '../access/describe-access'
import { isInteractionExpired, type FinalizedReason, type GrantState, type InteractionState } from '../grant/grant-state'
import { findGrantForConsole, findOwnerSummary } from './console.repo'
import {
  buildHistory,
  grantStatus,
  toTokenChain,
  type ClientView,
  type GrantStatusName,
  type HistoryEvent,
  type InteractionView,
  type TokenView,
} from './admin-views'

export interface AccessItemView {
  /** The item as granted (the request's wire form). */
  item: AccessItem
  /** The same in plain words, as the owner saw it on the consent screen. */
  description: AccessDescription
}

export interface GrantDetail {
  id: string
  continueId: string
  status: GrantStatusName
  state: GrantState
  finalizedReason: FinalizedReason | null
  client: ClientView
  createdAt: Date
  updatedAt: Date
  finalizedAt: Date | null
  interaction: InteractionView | null
  accessItems: AccessItemView[]
  /** In rotation order, first to current. */
  tokens: TokenView[]
  history: HistoryEvent[]
}

/**
 * A grant as the console's detail page shows it: client, state and its history with timestamps, the interaction's
 * outcome, each access item raw and in plain words, and its tokens in rotation order.
 * @throws GnapError invalid_request (404) for an unknown grant
 */
export async function getGrantDetail(deps: Deps, id: string): Promise<GrantDetail> {
  const grant = await findGrantForConsole(deps.db, id)
  if (!grant) throw new GnapError('invalid_request', 'unknown grant', 404)
  const now = deps.clock()
  const i = grant.interaction
  const owner = i?.ownerId ? await findOwnerSummary(deps.db, i.ownerId) : null

  let interaction: InteractionView | null = null
  if (i) {
    const state = i.state as InteractionState
    interaction = {
      state,
      outcome:
        state === 'APPROVED' ? 'approved' : state === 'DENIED' ? 'denied' : isInteractionExpired(i, now) ? 'expired without a decision' : 'awaiting decision',
      startModes: parseStartModes(grant.interactStart),
      finishMethod: grant.finishMethod,
      finishUri: grant.finishUri,
      createdAt: i.createdAt,
      expiresAt: i.expiresAt,
      decidedAt: i.decidedAt,
      decidedBy: owner,
      finishedAt: i.finishedAt,
      refUsedAt: i.refUsedAt,
    }
  }

  return {
    id: grant.id,
    continueId: grant.continueId,
    status: grantStatus(grant),
    state: grant.state as GrantState,
    finalizedReason: grant.finalizedReason as FinalizedReason | null,
    client: { walletAddress: grant.client, name: grant.clientName },
    createdAt: grant.createdAt,
    updatedAt: grant.updatedAt,
    finalizedAt: grant.finalizedAt,
    interaction,
    accessItems: grant.accessItems.map((row) => {
      const item = rowToAccessItem(row)
      return { item, description: describeAccessItem(item) }
    }),
    tokens: toTokenChain(grant.accessTokens, now),
    history: buildHistory({ grant, interaction: i, tokens: grant.accessTokens, now }),
  }
}

/** `interactStart` is stored as the start modes joined with spaces. */
const parseStartModes = (text: string | null): string[] => (text ? text.split(' ').filter((m) => m !== '') : [])
