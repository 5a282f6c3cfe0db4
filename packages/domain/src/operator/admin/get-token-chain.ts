import type { Deps } from '../../protocol/deps'
import { findGrantSummary, findTokensOfGrant } from './console.repo'
import { toTokenChain, type TokenView } from './admin-views'
import { ConsoleError } from './console-error'
import { EVERY_TENANT, grantScope, type TenantBound } from './tenant-scope'

/**
 * The tokens of a grant from the first to the current one, following `previousId`: when each was issued, rotated
 * (and into which token), revoked, and whether it expired. Never a token value or hash. Tokens removed by the
 * retention job (dead for ACCESS_TOKEN_DELETION_DAYS) are missing: the chain then starts at the oldest kept.
 * @throws ConsoleError not_found for an unknown grant (and another tenant's, for a key bound to a tenant)
 */
export async function getTokenChain(
  deps: Deps,
  grantId: string,
  actor: TenantBound = EVERY_TENANT,
): Promise<{ grantId: string; tokens: TokenView[] }> {
  const [grant, tokens] = await Promise.all([findGrantSummary(deps.reads, grantId, grantScope(deps, actor)), findTokensOfGrant(deps.reads, grantId)])
  if (!grant) throw new ConsoleError('not_found', 'unknown grant')
  return { grantId, tokens: toTokenChain(tokens, deps.clock()) }
}
