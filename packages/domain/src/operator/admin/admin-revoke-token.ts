import type { Deps } from '../../protocol/deps'
import { findTokenByManagementId, revokeLiveTokens } from '../../protocol/access-token/access-token.repo'
import { findAccessItems } from '../../protocol/access/access.repo'
import { recordEvent } from '../../protocol/events/outbox.repo'
import { tokenRevokedEvent } from '../../protocol/events/grant-events'
import { consoleEventActor } from '../../protocol/events/webhook-events'
import { insertAuditEntry } from '../audit/audit.repo'
import { auditedTenantOfGrant } from './admin-revoke-grant'
import { ConsoleError } from './console-error'
import type { ConsoleActor } from './roles'
import { tokenVisibleTo } from './tenant-scope'

/**
 * An administrator revokes one token, live or expired (as DELETE /token/{id} does: an expired token could still be
 * rotated back to life); its grant is left as it is. The audit row and the access_token.revoked event are written in
 * the same transaction.
 * @throws ConsoleError not_found for an unknown management id (or another tenant's token, for a bound key), conflict for a token already rotated or revoked
 */
export async function adminRevokeToken(
  deps: Deps,
  input: { managementId: string; actor: ConsoleActor },
): Promise<{ managementId: string; grantId: string }> {
  const now = deps.clock()
  const managementId = input.managementId.trim().toLowerCase()
  // A token of another tenant's grant, for a key bound to a tenant, is unknown (tenant-scope.ts). A grant's tenant
  // never changes, so this check before the transaction cannot race.
  if (!(await tokenVisibleTo(deps, input.actor, managementId))) throw new ConsoleError('not_found', 'unknown token')
  const grantId = await deps.sql.transaction(async (tx) => {
    const token = await findTokenByManagementId(tx, managementId)
    if (!token) throw new ConsoleError('not_found', 'unknown token')
    // The conditional update decides a race with a rotation or another revoke.
    if ((await revokeLiveTokens(tx, { id: token.id }, now)) === 0) {
      throw new ConsoleError('conflict', `the token was already ${token.state === 'rotated' ? 'rotated' : 'revoked'}`)
    }
    await insertAuditEntry(tx, {
      actor: input.actor.label,
      action: 'token.revoke',
      target: `token:${managementId}`,
      detail: `of grant ${token.grantId}`,
      now,
      tenantId: await auditedTenantOfGrant(tx, token.grantId, deps.config),
    })
    await recordEvent(
      tx,
      tokenRevokedEvent(token.grant, await findAccessItems(tx, token.grantId), token.managementId, consoleEventActor(input.actor)),
      now,
      deps.config,
    )
    return token.grantId
  })
  deps.log.info({ grantId, by: input.actor.kind, actorId: input.actor.id }, 'access token revoked by an administrator')
  deps.metrics.tokensRevoked(1)
  return { managementId, grantId }
}
