import type { Deps } from '../deps'
import type { RequestAuth } from '../client/request-auth'
import { authenticateContinuation } from './continuation-auth'
import { revokeGrant } from './revoke-grant'

/**
 * DELETE /continue/{id} — cancel a pending grant or revoke an issued one (docs/protocol.md §2.3).
 * @throws GnapError invalid_request (404 unknown id), invalid_continuation, invalid_client
 */
export async function cancelGrant(deps: Deps, input: { continueId: string; auth: RequestAuth }): Promise<void> {
  const { grant } = await authenticateContinuation(deps, input.continueId, input.auth, 'delete-continue')
  await revokeGrant(deps, grant.id)
}
