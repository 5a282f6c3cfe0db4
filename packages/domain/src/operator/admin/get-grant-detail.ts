import type { Deps } from '../../protocol/deps'
import { rowToAccessItem } from '../../protocol/access/access.repo'
import type { AccessItem } from '../../protocol/access/access.wire'
import { describeAccessItem, type AccessDescription } from '../../protocol/access/describe-access'
import { canRevoke, grantStatusName, isInteractionExpired, type GrantStatus, type InteractionState } from '../../protocol/grant/grant-state'
import { expireOverdueGrants } from '../../protocol/grant/expire-grants'
import { findGrantForConsole, findOwnerSummary } from './console.repo'
import { ConsoleError } from './console-error'
import { tenantOfGrant } from '../../protocol/tenant/tenants'
import { EVERY_TENANT, grantScope, type TenantBound } from './tenant-scope'
import { buildHistory, toClientView, toTokenChain, type GrantRow, type HistoryEvent, type InteractionView, type TokenView } from './admin-views'

export interface AccessItemView {
  /** The item as granted (the request's wire form). */
  item: AccessItem
  /** The same in plain words, as the owner saw it on the consent screen. */
  description: AccessDescription
}

/** A grant's row in the console's list, with all the detail page shows besides. */
export interface GrantDetail extends Omit<GrantRow, 'accessTypes'> {
  /** Whether an administrator may still revoke it (`canRevoke`: the same rule as DELETE /continue/{id}). */
  revocable: boolean
  interaction: InteractionView | null
  accessItems: AccessItemView[]
  /** The wallet addresses of a subject request, which the owner was asked to confirm they control (docs/protocol.md §2.11). */
  subjects: string[]
  /** In rotation order, first to current. */
  tokens: TokenView[]
  history: HistoryEvent[]
}

/**
 * A grant as the console's detail page shows it: client, state and its history with timestamps, the interaction's
 * outcome, each access item raw and in plain words, the subject's wallet addresses, and its tokens in rotation order.
 * @throws ConsoleError not_found for an unknown grant (and another tenant's, for a key bound to a tenant)
 */
export async function getGrantDetail(deps: Deps, id: string, actor: TenantBound = EVERY_TENANT): Promise<GrantDetail> {
  // A console read finalizes overdue grants first (docs/protocol.md §3).
  await expireOverdueGrants(deps)
  // Another tenant's grant, for a key bound to a tenant, is unknown (tenant-scope.ts).
  const grant = await findGrantForConsole(deps.reads, id, grantScope(deps, actor))
  if (!grant) throw new ConsoleError('not_found', 'unknown grant')
  const now = deps.clock()
  const i = grant.interaction
  const owner = i?.ownerId ? await findOwnerSummary(deps.reads, i.ownerId) : null

  const status = { state: grant.state, finalizedReason: grant.finalizedReason } as GrantStatus

  let interaction: InteractionView | null = null
  if (i) {
    const state = i.state as InteractionState
    interaction = {
      state,
      outcome:
        state === 'approved'
          ? 'approved'
          : state === 'denied'
            ? 'denied'
            : isInteractionExpired(i, now)
              ? 'expired without a decision'
              : 'awaiting decision',
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
    status: grantStatusName(status),
    state: status.state,
    finalizedReason: status.finalizedReason,
    revocable: canRevoke(status),
    client: toClientView(grant.client, grant.clientName),
    tenantId: tenantOfGrant(deps, grant),
    createdAt: grant.createdAt,
    updatedAt: grant.updatedAt,
    finalizedAt: grant.finalizedAt,
    interaction,
    accessItems: grant.accessItems.map((row) => {
      const item = rowToAccessItem(row)
      return { item, description: describeAccessItem(item) }
    }),
    subjects: grant.subjects.map((s) => s.subId),
    tokens: toTokenChain(grant.accessTokens, now),
    history: buildHistory({ grant, interaction: i, tokens: grant.accessTokens, now }),
  }
}

/** `interactStart` is stored as the start modes joined with spaces. */
const parseStartModes = (text: string | null): string[] => (text ? text.split(' ').filter((m) => m !== '') : [])
