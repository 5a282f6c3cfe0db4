import type { Deps } from '../deps'
import { GnapError, clientBlocked, unknownManagementId } from '../../kernel/errors'
import type { RequestAuth } from '../client/request-auth'
import { secretMatches } from '../../kernel/secrets'
import { findTokenByManagementId, type TokenWithGrant } from './access-token.repo'
import { storedClient } from '../client/client-instance'

/**
 * Authenticates a request on a token management URI (POST and DELETE /token/{id}, docs/protocol.md §2.4 steps 1–3
 * and §2.5): a GNAP token that is this very token's value, and a signature by the grant client's key (RFC 9635 §6); for
 * a directed identity, the key stored with the grant (docs/protocol.md §4.5).
 * The id is looked up before the signature is checked.
 * @throws GnapError invalid_client (401; also for an unknown id on DELETE, and for a blocked client), invalid_rotation (unknown id on POST: 404)
 */
export async function authenticateTokenManagement(
  deps: Deps,
  managementId: string,
  auth: RequestAuth,
  operation: 'post-token' | 'delete-token',
): Promise<TokenWithGrant> {
  if (!auth.token) throw new GnapError('invalid_client', 'missing access token: use Authorization: GNAP <token>')
  const token = await findTokenByManagementId(deps.sql, managementId)
  if (!token) throw operation === 'post-token' ? unknownManagementId() : new GnapError('invalid_client', 'unknown access token')
  // Once the token itself is shown, and before the client's keys are fetched (docs/protocol.md §2.16).
  if (token.clientBlocked && secretMatches(auth.token, token.valueHash)) throw clientBlocked()
  await auth.verifySignature(storedClient(token.grant), operation)
  if (!secretMatches(auth.token, token.valueHash)) {
    throw new GnapError('invalid_client', 'the access token is not the one this management URI names')
  }
  return token
}
