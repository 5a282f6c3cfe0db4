import type { Deps } from '../deps'
import { GnapError, interactRefReused, unknownInteractRef } from '../../kernel/errors'
import { rowToAccessItem } from '../access/access.repo'
import { insertAccessToken } from '../access-token/access-token.repo'
import type { RequestAuth } from '../client/request-auth'
import { findGrantById, moveGrant } from './grant.repo'
import { expireOverdueGrantNow } from './expire-grants'
import { recordEvents } from '../events/outbox.repo'
import { grantIssuedEvents } from '../events/grant-events'
import { useInteractRef } from '../interaction/interaction.repo'
import { isExpiredGrant, isIssued, isOverdue, isRejected, isRevoked, secondsUntilContinue } from './grant-state'
import { toAccessTokenJson, toContinueJson, toSubjectJson, type ContinueRequest, type GrantResponseJson } from './grant.wire'
import { findGrantSubjectIds } from './grant-subject.repo'
import { authenticateContinuation } from './continuation-auth'

/**
 * POST /continue/{id} — continue a grant with an interact_ref, or poll it (docs/protocol.md §2.2).
 * @throws GnapError invalid_continuation, invalid_client, user_denied, invalid_interaction, too_many_attempts, request_denied,
 *   too_fast
 */
export async function continueGrant(deps: Deps, input: ContinueRequest & { continueId: string; auth: RequestAuth }): Promise<GrantResponseJson> {
  const { config } = deps
  const { grant, continueToken } = await authenticateContinuation(deps, input.continueId, input.auth, 'post-continue')

  if (isRevoked(grant)) throw new GnapError('invalid_continuation', 'the grant was revoked')
  if (isRejected(grant)) throw new GnapError('user_denied', 'the resource owner denied the grant')
  if (isExpiredGrant(grant)) throw interactionExpired()
  if (isIssued(grant)) {
    if (input.interactRef) throw interactRefReused()
    throw new GnapError('request_denied', 'the grant was already issued; it can only be revoked')
  }

  const now = deps.clock()
  // The first touch of a grant whose interaction expired finalizes it, with its grant.expired event (docs/protocol.md
  // §3); a finish that moved it at the same instant wins instead, and the client continues again.
  if (isOverdue(grant, grant.interaction, now)) {
    if (await expireOverdueGrantNow(deps, grant.id, now)) {
      deps.log.info({ grantId: grant.id }, 'grant finalized: interaction expired')
      deps.metrics.grant('expired')
      throw interactionExpired()
    }
    // Another request moved it first: expired by a concurrent touch (the same answer), or approved by a finish.
    const current = await findGrantById(deps.sql, grant.id)
    if (current && isExpiredGrant(current)) throw interactionExpired()
    throw new GnapError('request_denied', 'the grant changed state; continue again')
  }
  const wait = secondsUntilContinue(grant.continueNotBefore, now)
  if (wait > 0) throw tooFast(wait)

  if (input.interactRef) {
    if (!grant.interaction || grant.interaction.interactRef !== input.interactRef) {
      throw unknownInteractRef()
    }
    if (grant.state === 'pending') throw new GnapError('request_denied', 'the interaction has not been approved')
  } else {
    if (grant.finishMethod) throw new GnapError('request_denied', 'grant cannot be polled: continue with the interact_ref')
    if (grant.state === 'pending') {
      // The wait is decided by the update itself (docs/protocol.md §3 Races): of polls read concurrently, only the
      // first to restart the clock is answered; the others find the new not-before time and are too early.
      const continueNotBefore = new Date(now.getTime() + config.waitSeconds * 1000)
      const moved = await moveGrant(deps.sql, grant.id, [{ state: 'pending' }], { state: 'pending', now, continueNotBefore }, { continuableAt: now })
      if (!moved) {
        const current = await findGrantById(deps.sql, grant.id)
        const left = current?.state === 'pending' ? secondsUntilContinue(current.continueNotBefore, now) : 0
        throw left > 0 ? tooFast(left) : new GnapError('request_denied', 'the grant changed state; continue again')
      }
      return { continue: toContinueJson(config, grant.continueId, continueToken, config.waitSeconds) }
    }
  }

  // The grant is approved: issue its one token, and answer the subject the owner confirmed (docs/protocol.md §2.2
  // step 7). A subject-only grant has no access and issues no token. The conditional updates decide races: only one
  // request ever moves the grant from approved to finalized/issued, and writes grant.issued (and subject.confirmed).
  const access = grant.accessItems.map(rowToAccessItem)
  const subIds = await findGrantSubjectIds(deps.sql, grant.id)
  const token = await deps.sql.transaction(async (tx) => {
    if (input.interactRef && grant.interaction && !(await useInteractRef(tx, grant.interaction.id, now))) throw interactRefReused()
    const moved = await moveGrant(tx, grant.id, [{ state: 'approved' }], { state: 'finalized', finalizedReason: 'issued', now })
    if (!moved) {
      throw input.interactRef ? interactRefReused() : new GnapError('request_denied', 'the grant was already issued; it can only be revoked')
    }
    const issued = access.length > 0 ? await insertAccessToken(tx, { grantId: grant.id, expiresIn: config.accessTokenExpirySeconds, now }) : null
    const ownerId = grant.interaction?.ownerId ?? null
    await recordEvents(tx, grantIssuedEvents(grant, access, { managementId: issued?.managementId ?? null, subIds, ownerId }), now, deps.config)
    return issued
  })
  deps.log.info({ grantId: grant.id, token: token !== null, subjects: subIds.length }, 'grant issued after interaction')
  deps.metrics.grant('issued')
  if (token) deps.metrics.tokenIssued()
  return {
    ...(token ? { access_token: toAccessTokenJson(config, token, access) } : {}),
    ...(subIds.length > 0 ? { subject: toSubjectJson(subIds) } : {}),
    continue: toContinueJson(config, grant.continueId, continueToken),
  }
}

/** RFC 9635 §3.6 invalid_interaction: "the interaction modes in use have expired" (docs/protocol.md §2.2). */
const interactionExpired = (): GnapError =>
  new GnapError('invalid_interaction', 'the interaction expired before the grant was approved: request a new grant')

const tooFast = (wait: number): GnapError => new GnapError('too_fast', `continued too early: wait ${wait} s before continuing`)
