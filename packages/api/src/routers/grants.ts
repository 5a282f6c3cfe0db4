import { adminRevokeGrant, getGrantDetail, listGrants, ListGrantsInputSchema } from '@gnap/domain/operator'
import { viewerProcedure, operatorProcedure, router } from '../trpc'
import { GrantDetailSchema, GrantIdInputSchema, GrantPageSchema, GrantRevokedSchema } from '../schemas'

export const grantsRouter = router({
  /** The grants table: filters (AND), sort, keyset pages. BAD_REQUEST for a stale or foreign cursor. */
  list: viewerProcedure
    .meta({ rest: { method: 'POST', path: '/grants/search', summary: 'Lists grants: filters, sort and keyset pages' } })
    .input(ListGrantsInputSchema)
    .output(GrantPageSchema)
    .query(({ ctx, input }) => listGrants(ctx.deps, input)),

  /** One grant with its client, history, interaction, access items in plain words and tokens. NOT_FOUND. */
  byId: viewerProcedure
    .meta({ rest: { method: 'GET', path: '/grants/{id}', summary: 'One grant with its client, history, access and tokens' } })
    .input(GrantIdInputSchema)
    .output(GrantDetailSchema)
    .query(({ ctx, input }) => getGrantDetail(ctx.deps, input.id)),

  /** Revokes the grant as DELETE /continue does, with an audit row. NOT_FOUND; CONFLICT when already revoked or rejected. */
  revoke: operatorProcedure
    .meta({ rest: { method: 'POST', path: '/grants/{id}/revoke', summary: 'Revokes a grant and its live tokens' } })
    .input(GrantIdInputSchema)
    .output(GrantRevokedSchema)
    .mutation(({ ctx, input }) => adminRevokeGrant(ctx.deps, { grantId: input.id, actor: ctx.actor })),
})
