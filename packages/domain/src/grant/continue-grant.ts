import type { Deps } from '../deps'
import { GnapError } from '../errors'
import { rowToAccessItem } from '../access/access.repo'
import { insertAccessToken } from '../access-token/access-token.repo'
import type { RequestAuth } from '../client/request-auth'
import { secretMatches } from '../secrets'
import { sqlOf } from '../db/client'
import { findGrantByContinueId, moveGrant, useInteractRef, type GrantWithRelations } from './grant.repo'
import { isIssued, isRejected, isRevoked, secondsUntilContinue, type GrantStatus } from './grant-state'
import type { GrantResponseJson } from './grant.wire'
import { toAccessTokenJson, toContinueJson } from './grant-response'

/**
 * Finds the grant a continuation request names and authenticates the request against it: the continuation
 * token, then the signature by the grant client's key (PROTOCOL.md §2.2 steps 2–4, shared with cancel).
 * @throws GnapError invalid_continuation (401, 404 unknown id), invalid_client
 */
export async function authenticateContinuation(
  deps: Deps,
  continueId: string,
  auth: RequestAuth,
  unknownIdError: () => GnapError,
  verify: (auth: RequestAuth, walletAddress: string) => Promise<void> = (a, w) => a.verifySignature(w),
): Promise<{ grant: GrantWithRelations; continueToken: string }> {
  if (!auth.token) throw new GnapError('invalid_continuation', 'missing continuation token: use Authorization: GNAP <token>')
  const grant = await findGrantByContinueId(sqlOf(deps.db), continueId)
  if (!grant) throw unknownIdError()
  if (!secretMatches(auth.token, grant.continueTokenHash)) {
    throw new GnapError('invalid_continuation', 'the continuation token does not belong to this grant')
  }
  await verify(auth, grant.client)
  return { grant, continueToken: auth.token }
}

// RFC 9635 §5.1: an interaction reference is good for one use; PROTOCOL.md §2.2 answers a reuse with 401.
const refUsed = () => new GnapError('too_many_attempts', 'the interaction reference was already used', 401)

/**
 * POST /continue/{id} — continue a grant with an interact_ref, or poll it (PROTOCOL.md §2.2).
 * @throws GnapError invalid_continuation, invalid_client, user_denied, too_many_attempts, request_denied, too_fast
 */
export async function continueGrant(
  deps: Deps,
  input: { continueId: string; interactRef: string | null; auth: RequestAuth },
): Promise<GrantResponseJson> {
  const { config } = deps
  const { grant, continueToken } = await authenticateContinuation(
    deps,
    input.continueId,
    input.auth,
    () => new GnapError('invalid_continuation', 'unknown continuation id', 404),
  )
  const status = grant as GrantStatus

  if (isRevoked(status)) throw new GnapError('invalid_continuation', 'the grant was revoked')
  if (isRejected(status)) throw new GnapError('user_denied', 'the resource owner denied the grant')
  if (isIssued(status)) {
    if (input.interactRef) throw refUsed()
    throw new GnapError('request_denied', 'the grant was already issued; it can only be revoked')
  }

  const now = deps.clock()
  const wait = secondsUntilContinue(grant.continueNotBefore, now)
  if (wait > 0) throw new GnapError('too_fast', `continued too early: wait ${wait} s before continuing`)

  if (input.interactRef) {
    if (!grant.interaction || grant.interaction.interactRef !== input.interactRef) {
      throw new GnapError('invalid_continuation', 'unknown interaction reference', 404)
    }
    if (grant.state === 'pending') throw new GnapError('request_denied', 'the interaction has not been approved')
  } else {
    if (grant.finishMethod) throw new GnapError('request_denied', 'grant cannot be polled: continue with the interact_ref')
    if (grant.state === 'pending') {
      const continueNotBefore = new Date(now.getTime() + config.waitSeconds * 1000)
      const moved = await moveGrant(sqlOf(deps.db), grant.id, [{ state: 'pending' }], { state: 'pending', now, continueNotBefore })
      if (!moved) throw new GnapError('request_denied', 'the grant changed state; continue again')
      return { continue: toContinueJson(config, grant.continueId, continueToken, config.waitSeconds) }
    }
  }

  // The grant is approved: issue its one token. The conditional updates decide races: only one request
  // ever moves the grant from approved to finalized/issued.
  const access = grant.accessItems.map(rowToAccessItem)
  const token = await sqlOf(deps.db).transaction(async (tx) => {
    if (input.interactRef && grant.interaction && !(await useInteractRef(tx, grant.interaction.id, now))) throw refUsed()
    const moved = await moveGrant(tx, grant.id, [{ state: 'approved' }], { state: 'finalized', finalizedReason: 'issued', now })
    if (!moved) {
      throw input.interactRef
        ? refUsed()
        : new GnapError('request_denied', 'the grant was already issued; it can only be revoked')
    }
    return insertAccessToken(tx, { grantId: grant.id, expiresIn: config.accessTokenExpirySeconds, now })
  })
  deps.log.info({ grantId: grant.id }, 'grant issued after interaction')
  return {
    access_token: toAccessTokenJson(config, token, access),
    continue: toContinueJson(config, grant.continueId, continueToken),
  }
}
