import type { Deps } from '../deps'
import type { RequestAuth } from '../client/request-auth'
import { findAccessItems } from '../access/access.repo'
import { recordEvent } from '../events/outbox.repo'
import { CLIENT_ACTOR, tokenRevokedEvent } from '../events/grant-events'
import { revokeLiveTokens } from './access-token.repo'
import { authenticateTokenManagement } from './management-auth'

/**
 * DELETE /token/{id} — revoke an access token (docs/protocol.md §2.5, RFC 9635 §6.2). Once authenticated it always
 * succeeds: a live token is revoked, an expired one too (RFC 9635 §6.2: the client is done with it, and an expired
 * token could otherwise still be rotated back to life); a rotated or revoked one is left as it is. A token revoked
 * here gets its access_token.revoked event in the same transaction.
 * @throws GnapError invalid_client (401, also for an unknown management id)
 */
export async function revokeAccessToken(deps: Deps, input: { managementId: string; auth: RequestAuth }): Promise<void> {
  const token = await authenticateTokenManagement(deps, input.managementId, input.auth, 'delete-token')
  const now = deps.clock()
  const revoked = await deps.sql.transaction(async (tx) => {
    // The conditional update decides a race with a rotation or another revoke: only the one that revokes writes the event.
    const count = await revokeLiveTokens(tx, { id: token.id }, now)
    if (count > 0)
      await recordEvent(
        tx,
        tokenRevokedEvent(token.grant, await findAccessItems(tx, token.grantId), token.managementId, CLIENT_ACTOR),
        now,
        deps.config,
      )
    return count
  })
  if (revoked > 0) {
    deps.log.info({ grantId: token.grantId, tokenId: token.id }, 'access token revoked')
    deps.metrics.tokensRevoked(revoked)
  }
}
