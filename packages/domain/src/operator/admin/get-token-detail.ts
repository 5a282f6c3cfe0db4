import type { Deps } from '../../protocol/deps'
import { grantStatusName, type GrantStatus, type GrantStatusName } from '../../protocol/grant/grant-state'
import { findGrantSummary, findTokenForConsole } from './console.repo'
import { toClientView, toTokenView, type ClientView, type TokenView } from './admin-views'
import { ConsoleError } from './console-error'
import { EVERY_TENANT, grantScope, type TenantBound } from './tenant-scope'

export interface TokenDetail {
  token: TokenView
  grant: { id: string; status: GrantStatusName; client: ClientView }
}

/**
 * The token a management id names (the id in its manage URL, which resource servers and clients quote), with its
 * grant: the console's token page.
 * @throws ConsoleError not_found when no token has this management id (or it is another tenant's, for a bound key)
 */
export async function getTokenDetail(deps: Deps, managementId: string, actor: TenantBound = EVERY_TENANT): Promise<TokenDetail> {
  const token = await findTokenForConsole(deps.reads, managementId.trim().toLowerCase())
  if (!token) throw new ConsoleError('not_found', 'unknown token')
  // A token of another tenant's grant, for a key bound to a tenant, is unknown too (tenant-scope.ts).
  const grant = await findGrantSummary(deps.reads, token.grantId, grantScope(deps, actor))
  if (!grant) throw new ConsoleError('not_found', 'unknown token')
  return {
    token: toTokenView(token, { replaces: token.previous?.managementId ?? null, replacedBy: token.next?.managementId ?? null }, deps.clock()),
    grant: { id: grant.id, status: grantStatusName(grant as GrantStatus), client: toClientView(grant.client, grant.clientName) },
  }
}
