import { adminRevokeGrant, getGrantDetail, listGrants, ListGrantsInputSchema } from '@gnap/domain/operator'
import { operator, router, viewer } from '../trpc'
import { GrantDetailSchema, GrantIdInputSchema, GrantPageSchema, GrantRevokedSchema } from '../schemas'

export const grantsRouter = router({
  /** The grants table: filters (AND), sort, keyset pages. BAD_REQUEST for a stale or foreign cursor. */
  list: viewer.query(['POST', '/grants/search', 'Lists grants: filters, sort and keyset pages'], ListGrantsInputSchema, GrantPageSchema, listGrants),

  /** One grant with its client, history, interaction, access items in plain words and tokens. NOT_FOUND. */
  byId: viewer.query(
    ['GET', '/grants/{id}', 'One grant with its client, history, access and tokens'],
    GrantIdInputSchema,
    GrantDetailSchema,
    (deps, { id, actor }) => getGrantDetail(deps, id, actor),
  ),

  /** Revokes the grant as DELETE /continue does, with an audit row. NOT_FOUND; CONFLICT when already revoked or rejected. */
  revoke: operator.mutation(
    ['POST', '/grants/{id}/revoke', 'Revokes a grant and its live tokens'],
    GrantIdInputSchema,
    GrantRevokedSchema,
    (deps, { id, actor }) => adminRevokeGrant(deps, { grantId: id, actor }),
  ),
})
