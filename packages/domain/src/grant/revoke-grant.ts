import type { Deps } from '../deps'
import { GnapError } from '../errors'
import { revokeLiveTokens } from '../access-token/access-token.repo'
import { moveGrant } from './grant.repo'

/**
 * Revokes a grant and every live token of it, in one transaction: pending or approved → finalized/revoked,
 * finalized/issued → finalized/revoked; a rejected grant is left as it is. Used by DELETE /continue/{id}
 * and by administrators.
 * @throws GnapError invalid_continuation when the grant was already revoked
 */
export async function revokeGrantById(deps: Deps, grantId: string): Promise<'revoked' | 'unchanged'> {
  const now = deps.clock()
  return deps.db.$transaction(async (tx) => {
    const grant = await tx.grant.findUnique({ where: { id: grantId }, select: { state: true, finalizedReason: true } })
    if (!grant) throw new GnapError('invalid_request', 'unknown grant', 404)
    if (grant.state === 'finalized' && grant.finalizedReason === 'revoked') {
      throw new GnapError('invalid_continuation', 'the grant was already revoked')
    }
    if (grant.state === 'finalized' && grant.finalizedReason === 'rejected') return 'unchanged'
    const moved = await moveGrant(
      tx,
      grantId,
      [{ state: 'pending' }, { state: 'approved' }, { state: 'finalized', finalizedReason: 'issued' }],
      { state: 'finalized', finalizedReason: 'revoked', now },
    )
    if (!moved) throw new GnapError('invalid_continuation', 'the grant was already revoked')
    await revokeLiveTokens(tx, { grantId }, now)
    deps.log.info({ grantId }, 'grant revoked')
    return 'revoked'
  })
}
