import type { Deps } from '../deps'
import { GnapError } from '../errors'
import { findGrantSummary, findTokenForConsole } from './console.repo'
import { grantStatus, toTokenView, type ClientView, type GrantStatusName, type TokenView } from './admin-views'

export interface TokenDetail {
  token: TokenView
  grant: { id: string; status: GrantStatusName; client: ClientView }
}

/**
 * The token a management id names (the id in its manage URL, which resource servers and clients quote), with its
 * grant: the console's token page.
 * @throws GnapError invalid_request (404) when no token has this management id
 */
export async function getTokenDetail(deps: Deps, managementId: string): Promise<TokenDetail> {
  const token = await findTokenForConsole(deps.db, managementId.trim().toLowerCase())
  if (!token) throw new GnapError('invalid_request', 'unknown token', 404)
  const grant = await findGrantSummary(deps.db, token.grantId)
  if (!grant) throw new GnapError('invalid_request', 'unknown token', 404)
  return {
    token: toTokenView(token, { replaces: token.previous?.managementId ?? null, replacedBy: token.next?.managementId ?? null }, deps.clock()),
    grant: { id: grant.id, status: grantStatus(grant), client: { walletAddress: grant.client, name: grant.clientName } },
  }
}
