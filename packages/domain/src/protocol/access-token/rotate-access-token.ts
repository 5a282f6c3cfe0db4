import type { Deps } from '../deps'
import { unknownManagementId } from '../../kernel/errors'
import type { RequestAuth } from '../client/request-auth'
import { findAccessItems } from '../access/access.repo'
import { holdGrantState } from '../grant/grant.repo'
import { isRevoked } from '../grant/grant-state'
import { toAccessTokenJson, type AccessTokenJson } from '../grant/grant.wire'
import { insertAccessToken, markRotated } from './access-token.repo'
import { authenticateTokenManagement } from './management-auth'
import { recordEvent } from '../events/outbox.repo'
import { tokenRotatedEvent } from '../events/grant-events'

/**
 * POST /token/{id} — rotate an access token (docs/protocol.md §2.4, RFC 9635 §6.1). One transaction: the old
 * token is marked rotated only if still live, its successor is inserted with the same access, and the
 * access_token.rotated event is written; an expired token still rotates.
 * @throws GnapError invalid_client (401), invalid_rotation (404)
 */
export async function rotateAccessToken(deps: Deps, input: { managementId: string; auth: RequestAuth }): Promise<{ access_token: AccessTokenJson }> {
  const { config, sql } = deps
  const token = await authenticateTokenManagement(deps, input.managementId, input.auth, 'post-token')
  if (token.state !== 'active' || isRevoked(token.grant)) throw unknownManagementId()
  const now = deps.clock()
  const { issued, access } = await sql.transaction(async (tx) => {
    // A revocation racing this rotation either sees the successor or makes this rotation fail (grant.repo.ts).
    if (!(await holdGrantState(tx, token.grantId, token.grant))) throw unknownManagementId()
    if (!(await markRotated(tx, token.id, now))) throw unknownManagementId()
    const issued = await insertAccessToken(tx, { grantId: token.grantId, expiresIn: config.accessTokenExpirySeconds, now, previousId: token.id })
    const access = await findAccessItems(tx, token.grantId)
    await recordEvent(
      tx,
      tokenRotatedEvent(token.grant, access, { managementId: issued.managementId, previousManagementId: token.managementId }),
      now,
      deps.config,
    )
    return { issued, access }
  })
  deps.log.info({ grantId: token.grantId, tokenId: issued.id, previousId: token.id }, 'access token rotated')
  deps.metrics.tokenRotated()
  return { access_token: toAccessTokenJson(config, issued, access) }
}
