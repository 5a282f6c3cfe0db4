import { z } from 'zod'
import type { Deps } from '../../protocol/deps'
import { expireOverdueGrants } from '../../protocol/grant/expire-grants'
import { grantStatusName, GRANT_STATUS_NAMES, type GrantStatus, type GrantStatusName } from '../../protocol/grant/grant-state'
import type { AccessType } from '../../protocol/access/access.wire'
import { blockedClientKey } from '../../protocol/client/client-block'
import { findClientBlock } from '../../protocol/client/client-block.repo'
import { thumbprintOfClient } from '../../protocol/client/client-instance'
import { findAuditEntriesAbout } from '../audit/audit.repo'
import { tokenStatus, type TokenStatus } from './admin-views'
import { ConsoleError } from './console-error'
import { EVERY_TENANT, grantScope, type TenantBound } from './tenant-scope'
import {
  clientsWithGrantsIn,
  CLIENT_ROWS_SHOWN,
  countGrantsOfClient,
  findGrantsOfClient,
  findLastActivityOfClient,
  findLatestClientNames,
  findTokensOfClient,
} from './console.repo'

export const ClientAddressInputSchema = z.strictObject({
  /** The client's wallet address as its grants store it. */
  walletAddress: z.string().trim().min(1).max(2048),
})

export interface ClientBlockView {
  reason: string
  blockedBy: string
  blockedAt: Date
}

export interface ClientDetail {
  walletAddress: string
  /** The name the client gave in its latest grant. */
  name: string | null
  /** A directed identity's key thumbprint (RFC 7638, docs/protocol.md §4.5); null for a wallet address. */
  thumbprint: string | null
  /** The block on it, if an operator blocked it (docs/protocol.md §2.16). */
  block: ClientBlockView | null
  grantCounts: Record<GrantStatusName, number>
  /** Newest first, at most CLIENT_ROWS_SHOWN. */
  grants: { id: string; status: GrantStatusName; accessTypes: AccessType[]; createdAt: Date; updatedAt: Date }[]
  /** Newest first, at most CLIENT_ROWS_SHOWN. */
  tokens: { managementId: string; grantId: string; status: TokenStatus; issuedAt: Date; expiresAt: Date }[]
  /** The latest grant request, continuation, or token issued or rotated. */
  lastActivityAt: Date | null
  audit: { id: string; actor: string; action: string; detail: string | null; createdAt: Date }[]
}

/**
 * One client on the console: its block, its grants and tokens (newest first), its last activity and the audit entries
 * about it. A wallet address no grant names is shown too (empty), so it can be blocked before it asks; not to a key
 * bound to a tenant, for which a client without a grant of its tenant is unknown.
 * @throws ConsoleError not_found for a key bound to a tenant, when the client has no grant of that tenant
 * The input is ClientAddressInputSchema's output, parsed by the router's `.input()`.
 */
export async function getClientDetail(
  deps: Deps,
  input: z.output<typeof ClientAddressInputSchema> & { actor?: TenantBound | undefined },
): Promise<ClientDetail> {
  const { walletAddress, actor = EVERY_TENANT } = input
  // A console read finalizes overdue grants first, so none is counted as pending (docs/protocol.md §3).
  await expireOverdueGrants(deps)
  const key = blockedClientKey(walletAddress)
  const now = deps.clock()
  const scope = grantScope(deps, actor)
  // For a key bound to a tenant, a client is its tenant's when it has a grant of that tenant; any other is unknown
  // (tenant-scope.ts). Blocks and their audit entries reach every tenant: such a key sees the block, not the entries.
  const bound = actor.tenantId !== null
  if (bound && (await clientsWithGrantsIn(deps.reads, [walletAddress], scope)).size === 0) throw new ConsoleError('not_found', 'unknown client')
  const [names, block, counts, grants, tokens, lastActivityAt, audit] = await Promise.all([
    findLatestClientNames(deps.reads, [walletAddress], scope),
    findClientBlock(deps.sql, key),
    countGrantsOfClient(deps.reads, walletAddress, scope),
    findGrantsOfClient(deps.reads, walletAddress, CLIENT_ROWS_SHOWN, scope),
    findTokensOfClient(deps.reads, walletAddress, CLIENT_ROWS_SHOWN, scope),
    findLastActivityOfClient(deps.reads, walletAddress, scope),
    bound ? [] : findAuditEntriesAbout(deps.sql, `client:${key}`, 50),
  ])
  const grantCounts = Object.fromEntries(GRANT_STATUS_NAMES.map((s) => [s, 0])) as Record<GrantStatusName, number>
  for (const c of counts) grantCounts[grantStatusName(c as GrantStatus)] += c._count._all
  return {
    walletAddress,
    name: names.get(walletAddress) ?? null,
    thumbprint: thumbprintOfClient(walletAddress),
    block: block ? { reason: block.reason, blockedBy: block.blockedBy, blockedAt: block.createdAt } : null,
    grantCounts,
    grants: grants.map((g) => ({
      id: g.id,
      status: grantStatusName(g as GrantStatus),
      accessTypes: [...new Set(g.accessItems.map((a) => a.type as AccessType))],
      createdAt: g.createdAt,
      updatedAt: g.updatedAt,
    })),
    tokens: tokens.map((t) => ({
      managementId: t.managementId,
      grantId: t.grantId,
      status: tokenStatus(t, now),
      issuedAt: t.createdAt,
      expiresAt: t.expiresAt,
    })),
    lastActivityAt,
    audit,
  }
}
