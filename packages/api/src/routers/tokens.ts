import { adminRevokeToken, getTokenChain, getTokenDetail } from '@gnap/domain/operator'
import { operator, router, viewer } from '../trpc'
import { GrantIdForChainInputSchema, ManagementIdInputSchema, TokenChainSchema, TokenDetailSchema, TokenRevokedSchema } from '../schemas'

export const tokensRouter = router({
  /** A grant's tokens from the first to the current one. NOT_FOUND for an unknown grant. */
  chain: viewer.query(
    ['GET', '/grants/{grantId}/tokens', 'A grant’s tokens from the first to the current one'],
    GrantIdForChainInputSchema,
    TokenChainSchema,
    (deps, { grantId, actor }) => getTokenChain(deps, grantId, actor),
  ),

  /** The token page: a token by the management id of its manage URL, with its grant. NOT_FOUND. */
  byManagementId: viewer.query(
    ['GET', '/tokens/{managementId}', 'A token by its management id'],
    ManagementIdInputSchema,
    TokenDetailSchema,
    (deps, { managementId, actor }) => getTokenDetail(deps, managementId, actor),
  ),

  /** Revokes one live (or expired) token, with an audit row. NOT_FOUND; CONFLICT when already rotated or revoked. */
  revoke: operator.mutation(
    ['POST', '/tokens/{managementId}/revoke', 'Revokes one token'],
    ManagementIdInputSchema,
    TokenRevokedSchema,
    adminRevokeToken,
  ),
})
