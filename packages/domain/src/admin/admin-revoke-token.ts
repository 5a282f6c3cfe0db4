import type { Deps } from '../deps'
import { GnapError } from '../errors'
import { revokeLiveTokens } from '../access-token/access-token.repo'
import { insertAuditEntry } from './admin.repo'
import { findTokenForConsole } from './console.repo'
import type { AdminIdentity } from './admin-session'

/**
 * An administrator revokes one token, live or expired (as DELETE /token/{id} does: an expired token could still be
 * rotated back to life); its grant is left as it is. The audit row is written in the same transaction.
 * @throws GnapError invalid_request (404) for an unknown management id, (409) for a token already rotated or revoked
 */
export async function adminRevokeToken(
  deps: Deps,
  input: { managementId: string; admin: AdminIdentity },
): Promise<{ managementId: string; grantId: string }> {
  const now = deps.clock()
  const managementId = input.managementId.trim().toLowerCase()
  const grantId = await deps.db.$transaction(async (tx) => {
    const token = await findTokenForConsole(tx, managementId)
    if (!token) throw new GnapError('invalid_request', 'unknown token', 404)
    // The conditional update decides a race with a rotation or another revoke.
    if ((await revokeLiveTokens(tx, { id: token.id }, now)) === 0) {
      throw new GnapError('invalid_request', `the token was already ${token.state === 'rotated' ? 'rotated' : 'revoked'}`, 409)
    }
    await insertAuditEntry(tx, { actor: input.admin.email, action: 'token.revoke', target: `token:${managementId}`, detail: `of grant ${token.grantId}`, now })
    return token.grantId
  })
  deps.log.info({ grantId, admin: input.admin.id }, 'access token revoked by an administrator')
  return { managementId, grantId }
}
