import type { Deps } from '../deps'
import { GnapError } from '../errors'
import { verifySignatureAs401, type RequestAuth } from '../client/request-auth'
import { authenticateContinuation } from './continue-grant'
import { revokeGrant } from './revoke-grant'

/**
 * DELETE /continue/{id} — cancel a pending grant or revoke an issued one (PROTOCOL.md §2.3).
 * @throws GnapError invalid_request (404 unknown id), invalid_continuation, invalid_client
 */
export async function cancelGrant(deps: Deps, input: { continueId: string; auth: RequestAuth }): Promise<void> {
  const { grant } = await authenticateContinuation(
    deps,
    input.continueId,
    input.auth,
    () => new GnapError('invalid_request', 'unknown continuation id', 404),
    verifySignatureAs401,
  )
  await revokeGrant(deps, grant.id)
}

