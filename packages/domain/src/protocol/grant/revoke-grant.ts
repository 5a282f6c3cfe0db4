import type { Deps } from '../deps'
import type { SqlRunner } from '../../kernel/db/sql'
import { GnapError, unknownGrant } from '../../kernel/errors'
import { revokeLiveTokens, revokeLiveTokensOfClient } from '../access-token/access-token.repo'
import { findAccessItems, findAccessItemsOfGrants } from '../access/access.repo'
import { recordEvent, recordEvents, type EventTenancy } from '../events/outbox.repo'
import { CLIENT_ACTOR, grantRevokedEvent } from '../events/grant-events'
import type { EventActor } from '../events/webhook-events'
import { finalizeGrantsOfClient, findGrantById, moveGrant, type StateMatch } from './grant.repo'
import { expireGrantInTransaction } from './expire-grants'
import { isExpiredGrant, isRejected, isRevoked } from './grant-state'

export type GrantRevocation =
  { outcome: 'revoked'; revokedTokens: number } | { outcome: 'unchanged' | 'already-revoked' | 'unknown'; revokedTokens: 0 }

/** The states a revocation moves to finalized/revoked (docs/protocol.md §2.3); a rejected grant stays as it is. */
const REVOCABLE: StateMatch[] = [{ state: 'pending' }, { state: 'approved' }, { state: 'finalized', finalizedReason: 'issued' }]

/**
 * The revocation itself, inside the caller's transaction: pending or approved → finalized/revoked,
 * finalized/issued → finalized/revoked, every live token revoked (tokens already rotated or revoked keep their
 * first time, docs/protocol.md §8.12); a rejected or expired grant is left as it is, and a pending one whose
 * interaction expired becomes expired. Shared by DELETE /continue/{id} and the
 * administrators' revoke, so both do exactly the same; the admin action writes its audit row in the same
 * transaction. The move writes its event in the same transaction too: grant.revoked naming `actor`, or
 * grant.expired; a revocation that moves nothing writes none.
 */
export async function revokeGrantInTransaction(
  tx: SqlRunner,
  grantId: string,
  now: Date,
  actor: EventActor,
  tenancy?: EventTenancy,
): Promise<GrantRevocation> {
  const grant = await findGrantById(tx, grantId)
  if (!grant) return { outcome: 'unknown', revokedTokens: 0 }
  if (isRevoked(grant)) return { outcome: 'already-revoked', revokedTokens: 0 }
  if (isRejected(grant) || isExpiredGrant(grant)) return { outcome: 'unchanged', revokedTokens: 0 }
  // A pending grant whose interaction expired is finalized as expired, not revoked: the first touch (docs/protocol.md §3).
  if (grant.state === 'pending' && (await expireGrantInTransaction(tx, grantId, now, tenancy))) return { outcome: 'unchanged', revokedTokens: 0 }
  const moved = await moveGrant(tx, grantId, REVOCABLE, {
    state: 'finalized',
    finalizedReason: 'revoked',
    now,
  })
  // Another request moved it first: only a revocation can move a grant out of these states for good.
  if (!moved) return { outcome: 'already-revoked', revokedTokens: 0 }
  const revokedTokens = await revokeLiveTokens(tx, { grantId }, now)
  await recordEvent(tx, grantRevokedEvent(grant, await findAccessItems(tx, grantId), revokedTokens, actor), now, tenancy)
  return { outcome: 'revoked', revokedTokens }
}

/**
 * Revokes every grant of a client (its wallet address as stored) and every live token of them, inside the caller's
 * transaction: the same transitions as revokeGrantInTransaction, in two statements whatever the number of grants
 * (blocking a client, docs/protocol.md §2.16), and one grant.revoked event per grant revoked, naming `actor`. The
 * numbers of grants and tokens revoked.
 */
export async function revokeGrantsOfClientInTransaction(
  tx: SqlRunner,
  client: string,
  now: Date,
  actor: EventActor,
  tenancy?: EventTenancy,
): Promise<{ grants: number; tokens: number }> {
  const grantIds = await finalizeGrantsOfClient(tx, client, REVOCABLE, { finalizedReason: 'revoked', now })
  const tokenGrantIds = await revokeLiveTokensOfClient(tx, client, now)
  const tokensOf = new Map<string, number>()
  for (const id of tokenGrantIds) tokensOf.set(id, (tokensOf.get(id) ?? 0) + 1)
  const access = await findAccessItemsOfGrants(tx, grantIds)
  await recordEvents(
    tx,
    grantIds.map((id) => grantRevokedEvent({ id, client }, access.get(id) ?? [], tokensOf.get(id) ?? 0, actor)),
    now,
    tenancy,
  )
  return { grants: grantIds.length, tokens: tokenGrantIds.length }
}

/**
 * Revokes a grant and every live token of it, in one transaction: pending or approved → finalized/revoked,
 * finalized/issued → finalized/revoked; a rejected grant is left as it is. Used by DELETE /continue/{id}.
 * @throws GnapError invalid_continuation when the grant was already revoked, invalid_request for an unknown grant
 */
export async function revokeGrant(deps: Deps, grantId: string): Promise<'revoked' | 'unchanged'> {
  const now = deps.clock()
  return deps.sql.transaction(async (tx) => {
    const result = await revokeGrantInTransaction(tx, grantId, now, CLIENT_ACTOR, deps.config)
    switch (result.outcome) {
      case 'unknown':
        throw unknownGrant()
      case 'already-revoked':
        throw new GnapError('invalid_continuation', 'the grant was already revoked')
      case 'unchanged':
        return 'unchanged'
      case 'revoked':
        deps.log.info({ grantId }, 'grant revoked')
        deps.metrics.grant('revoked')
        deps.metrics.tokensRevoked(result.revokedTokens)
        return 'revoked'
    }
  })
}
