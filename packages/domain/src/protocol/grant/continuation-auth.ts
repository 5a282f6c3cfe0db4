import type { Deps } from '../deps'
import { GnapError, clientBlocked, unknownContinuationId, unknownGrantToCancel } from '../../kernel/errors'
import type { RequestAuth } from '../client/request-auth'
import { secretMatches } from '../../kernel/secrets'
import { findGrantByContinueId, type GrantWithRelations } from './grant.repo'
import { storedClient } from '../client/client-instance'

/**
 * Authenticates a request on a continuation URI (POST and DELETE /continue/{id}, docs/protocol.md §2.2 steps 2–4
 * and §2.3): the grant the id names, its continuation token in `Authorization: GNAP`, then the signature by the
 * grant client's key (RFC 9635 §5, §7.3): for a directed identity, the key stored with the grant (docs/protocol.md §4.5).
 * @throws GnapError invalid_continuation (401; unknown id: 404 on POST), invalid_request (unknown id: 404 on DELETE),
 *   invalid_client (401 also for a blocked client)
 */
export async function authenticateContinuation(
  deps: Deps,
  continueId: string,
  auth: RequestAuth,
  operation: 'post-continue' | 'delete-continue',
): Promise<{ grant: GrantWithRelations; continueToken: string }> {
  if (!auth.token) throw new GnapError('invalid_continuation', 'missing continuation token: use Authorization: GNAP <token>')
  const grant = await findGrantByContinueId(deps.sql, continueId)
  if (!grant) throw operation === 'post-continue' ? unknownContinuationId() : unknownGrantToCancel()
  if (!secretMatches(auth.token, grant.continueTokenHash)) {
    throw new GnapError('invalid_continuation', 'the continuation token does not belong to this grant')
  }
  // Once the continuation token is shown, and before the client's keys are fetched (docs/protocol.md §2.16).
  if (grant.clientBlocked) throw clientBlocked()
  await auth.verifySignature(storedClient(grant), operation)
  return { grant, continueToken: auth.token }
}
