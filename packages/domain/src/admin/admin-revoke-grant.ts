import type { Deps } from '../deps'
import { revokeGrantInTransaction } from '../grant/revoke-grant'
import { insertAuditEntry } from './audit.repo'
import { ConsoleError } from './console-error'
import type { AdminIdentity } from './admin-session'

/**
 * An administrator revokes a grant: exactly what DELETE /continue/{id} does (pending or approved →
 * finalized/revoked, finalized/issued → finalized/revoked, every live token revoked; the client's next continue,
 * rotation or introspection fails), with the audit row written in the same transaction.
 * @throws ConsoleError not_found for an unknown grant, conflict for a grant already revoked or rejected
 */
export async function adminRevokeGrant(
  deps: Deps,
  input: { grantId: string; admin: AdminIdentity },
): Promise<{ grantId: string; revokedTokens: number }> {
  const now = deps.clock()
  const result = await deps.sql.transaction(async (tx) => {
    const revocation = await revokeGrantInTransaction(tx, input.grantId, now)
    if (revocation.outcome === 'revoked') {
      await insertAuditEntry(tx, {
        actor: input.admin.email,
        action: 'grant.revoke',
        target: `grant:${input.grantId}`,
        detail: `${revocation.revokedTokens} live token${revocation.revokedTokens === 1 ? '' : 's'} revoked`,
        now,
      })
    }
    return revocation
  })
  switch (result.outcome) {
    case 'unknown':
      throw new ConsoleError('not_found', 'unknown grant')
    case 'already-revoked':
      throw new ConsoleError('conflict', 'the grant was already revoked')
    case 'unchanged':
      throw new ConsoleError('conflict', 'the grant was rejected: there is nothing to revoke')
    case 'revoked':
      deps.log.info({ grantId: input.grantId, admin: input.admin.id }, 'grant revoked by an administrator')
      return { grantId: input.grantId, revokedTokens: result.revokedTokens }
  }
}
