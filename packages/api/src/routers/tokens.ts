import { adminRevokeToken, getTokenChain, getTokenDetail } from '@gnap/domain/operator'
import { viewerProcedure, operatorProcedure, router } from '../trpc'
import { GrantIdForChainInputSchema, ManagementIdInputSchema, TokenChainSchema, TokenDetailSchema, TokenRevokedSchema } from '../schemas'

export const tokensRouter = router({
  /** A grant's tokens from the first to the current one. NOT_FOUND for an unknown grant. */
  chain: viewerProcedure
    .meta({ rest: { method: 'GET', path: '/grants/{grantId}/tokens', summary: 'A grant’s tokens from the first to the current one' } })
    .input(GrantIdForChainInputSchema)
    .output(TokenChainSchema)
    .query(({ ctx, input }) => getTokenChain(ctx.deps, input.grantId)),

  /** The token page: a token by the management id of its manage URL, with its grant. NOT_FOUND. */
  byManagementId: viewerProcedure
    .meta({ rest: { method: 'GET', path: '/tokens/{managementId}', summary: 'A token by its management id' } })
    .input(ManagementIdInputSchema)
    .output(TokenDetailSchema)
    .query(({ ctx, input }) => getTokenDetail(ctx.deps, input.managementId)),

  /** Revokes one live (or expired) token, with an audit row. NOT_FOUND; CONFLICT when already rotated or revoked. */
  revoke: operatorProcedure
    .meta({ rest: { method: 'POST', path: '/tokens/{managementId}/revoke', summary: 'Revokes one token' } })
    .input(ManagementIdInputSchema)
    .output(TokenRevokedSchema)
    .mutation(({ ctx, input }) => adminRevokeToken(ctx.deps, { managementId: input.managementId, actor: ctx.actor })),
})
