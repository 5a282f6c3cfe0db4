import { z } from 'zod'
import type { Deps } from '../../protocol/deps'
import { ACCESS_TYPES } from '../../protocol/access/access.wire'
import { canonicalWalletAddress } from '../../protocol/owner/canonical-wallet-address'
import { findGrantIdsBySearch, findGrantPage, type GrantListFilters } from './console.repo'
import { FINALIZED_REASONS, GRANT_STATES } from '../../protocol/grant/grant-state'
import { expireOverdueGrants } from '../../protocol/grant/expire-grants'
import { toGrantRow, type GrantRow } from './admin-views'
import { tenantOfGrant, rowsOfTenant } from '../../protocol/tenant/tenants'
import { grantScope, type TenantBound } from './tenant-scope'
import { decodeCursor, encodeCursor } from './page-cursor'

export const GRANT_PAGE_MAX = 100

export const ListGrantsInputSchema = z.strictObject({
  cursor: z.string().min(1).max(512).nullish(),
  limit: z.number().int().min(1).max(GRANT_PAGE_MAX).default(50),
  sort: z
    .strictObject({
      field: z.enum(['createdAt', 'updatedAt']).default('createdAt'),
      direction: z.enum(['asc', 'desc']).default('desc'),
    })
    .default({ field: 'createdAt', direction: 'desc' }),
  filters: z
    .strictObject({
      state: z.enum(GRANT_STATES).optional(),
      finalizedReason: z.enum(FINALIZED_REASONS).optional(),
      client: z
        .strictObject({
          value: z.string().trim().min(1).max(2048),
          match: z.enum(['exact', 'prefix']).default('exact'),
        })
        .optional(),
      accessType: z.enum(ACCESS_TYPES).optional(),
      /** Grants whose access names this wallet address (the resource owner's side), exactly, in its canonical form. */
      walletAddress: z
        .string()
        .trim()
        .min(1)
        .max(2048)
        .overwrite((w) => canonicalWalletAddress(w) ?? w)
        .optional(),
      /** Inclusive. */
      createdFrom: z.date().optional(),
      /** Exclusive. */
      createdTo: z.date().optional(),
      /** Grants of this tenant (docs/protocol.md §2.21): the operator tenant's include those of `POST /`. */
      tenantId: z.string().trim().toLowerCase().min(1).max(64).optional(),
      /** A grant id, continuation id or token management id, exactly; blank means no search. */
      search: z.string().trim().max(200).optional(),
    })
    .default({}),
})

export type ListGrantsInput = z.input<typeof ListGrantsInputSchema>

export interface GrantPage {
  items: GrantRow[]
  /** Null on the last page. */
  nextCursor: string | null
}

/**
 * The console's grants table: filters combined with AND, sorted by creation or last change, in pages of at most
 * 100 with a keyset cursor that is stable under equal timestamps (ties broken by id) and stays valid when its row
 * is deleted. A search that is not an id finds nothing.
 * The input is ListGrantsInputSchema's output: the router's `.input()` has parsed it.
 * @throws ConsoleError bad_request for a malformed cursor or one made for another
 *   sort order
 */
export async function listGrants(
  deps: Deps,
  { cursor, limit, sort, filters, actor }: z.output<typeof ListGrantsInputSchema> & { actor?: TenantBound | undefined },
): Promise<GrantPage> {
  // A console read finalizes overdue grants first, so the list and its filters show them as expired (docs/protocol.md §3).
  await expireOverdueGrants(deps)
  const ordering = `${sort.field}:${sort.direction}`
  const after = cursor ? decodeCursor(ordering, cursor) : null

  const { search, tenantId, ...rest } = filters
  // A key bound to a tenant sees its tenant's grants only (tenant-scope.ts); the tenant filter narrows within that.
  const scopes = [grantScope(deps, actor), ...(tenantId === undefined ? [] : [rowsOfTenant(deps, tenantId)])]
  const repoFilters: GrantListFilters = { ...rest, scopes }
  if (search) {
    const ids = await findGrantIdsBySearch(deps.reads, search.toLowerCase())
    if (ids.length === 0) return { items: [], nextCursor: null }
    repoFilters.ids = ids
  }

  const rows = await findGrantPage(deps.reads, { filters: repoFilters, field: sort.field, direction: sort.direction, after, take: limit + 1 })
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  return {
    items: page.map((g) => toGrantRow(g, tenantOfGrant(deps, g))),
    nextCursor: rows.length > limit && last ? encodeCursor(ordering, { value: last[sort.field], id: last.id }) : null,
  }
}
