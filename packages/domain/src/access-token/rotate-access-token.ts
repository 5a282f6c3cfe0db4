import type { Deps } from '../deps'
import { holdGrantState } from '../grant/grant.repo'
import { GnapError } from '../errors'
import { verifySignatureAs401, type RequestAuth } from '../client/request-auth'
import { rowToAccessItem } from '../access/access.repo'
import { secretMatches } from '../secrets'
import { isRevoked, type GrantStatus } from '../grant/grant-state'
import type { AccessTokenJson } from '../grant/grant.wire'
import { toAccessTokenJson } from '../grant/grant-response'
import { sqlOf } from '../db/client'
import { findAccessItemRows, findTokenByManagementId, insertAccessToken, markRotated } from './access-token.repo'

/**
 * Finds the token a management URI names and authenticates the request against it: a GNAP token that is
 * this very token's value, and a signature by the grant client's key (PROTOCOL.md §2.4 steps 1–3, §2.5).
 * @throws GnapError invalid_client, or `unknownIdError()` when no token has this management id
 */
export async function authenticateTokenManagement(
  deps: Deps,
  managementId: string,
  auth: RequestAuth,
  unknownIdError: () => GnapError,
) {
  if (!auth.token) throw new GnapError('invalid_client', 'missing access token: use Authorization: GNAP <token>')
  const token = await findTokenByManagementId(sqlOf(deps.db), managementId)
  if (!token) throw unknownIdError()
  await verifySignatureAs401(auth, token.grant.client)
  if (!secretMatches(auth.token, token.valueHash)) {
    throw new GnapError('invalid_client', 'the access token is not the one this management URI names')
  }
  return token
}

/**
 * POST /token/{id} — rotate an access token (PROTOCOL.md §2.4, RFC 9635 §6.1). One transaction: the old
 * token is marked rotated only if still live and its successor is inserted with the same access; an expired
 * token still rotates.
 * @throws GnapError invalid_client (401), invalid_rotation (404)
 */
export async function rotateAccessToken(deps: Deps, input: { managementId: string; auth: RequestAuth }): Promise<{ access_token: AccessTokenJson }> {
  const { config } = deps
  const unknown = () => new GnapError('invalid_rotation', 'no live token at this management URI', 404)
  const token = await authenticateTokenManagement(deps, input.managementId, input.auth, unknown)
  if (token.state !== 'active' || isRevoked(token.grant as GrantStatus)) throw unknown()

  const now = deps.clock()
  const sql = sqlOf(deps.db)
  const issued = await sql.transaction(async (tx) => {
    // A revocation racing this rotation either sees the successor or makes this rotation fail (grant.repo.ts).
    if (!(await holdGrantState(tx, token.grantId, token.grant as GrantStatus))) throw unknown()
    if (!(await markRotated(tx, token.id, now))) throw unknown()
    return insertAccessToken(tx, { grantId: token.grantId, expiresIn: config.accessTokenExpirySeconds, now, previousId: token.id })
  })
  // Access items never change once a grant is made: read after the transaction, which stays three statements.
  const access = (await findAccessItemRows(sql, token.grantId)).map(rowToAccessItem)
  deps.log.info({ grantId: token.grantId, tokenId: issued.id, previousId: token.id }, 'access token rotated')
  return { access_token: toAccessTokenJson(config, issued, access) }
}
