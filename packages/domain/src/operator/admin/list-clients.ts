import { z } from 'zod'
import type { Deps } from '../../protocol/deps'
import { blockedClientKey } from '../../protocol/client/client-block'
import { thumbprintOfClient } from '../../protocol/client/client-instance'
import { findBlockedAmong, findClientBlocks } from '../../protocol/client/client-block.repo'
import { clientsWithGrantsIn, findLatestClientNames, groupClients } from './console.repo'
import { EVERY_TENANT, grantScope, type TenantBound } from './tenant-scope'

export const ListClientsInputSchema = z.strictObject({
  /** A prefix of the wallet address (exact characters, no wildcards). */
  search: z.string().trim().max(2048).optional(),
  limit: z.number().int().min(1).max(100).default(50),
})

interface ClientSummary {
  walletAddress: string
  /** The name the client gave in its latest grant. */
  name: string | null
  /** A directed identity's key thumbprint (RFC 7638, docs/protocol.md §4.5); null for a wallet address. */
  thumbprint: string | null
  grants: number
  lastGrantAt: Date | null
  /** Whether an operator blocked it (docs/protocol.md §2.16). */
  blocked: boolean
}

/**
 * The clients (wallet addresses) that requested grants, most grants first, with whether each is blocked: the
 * console's clients page and its client filter.
 * The input is ListClientsInputSchema's output: the router's `.input()` has parsed it.
 */
export async function listClients(
  deps: Deps,
  { search, limit, actor }: z.output<typeof ListClientsInputSchema> & { actor?: TenantBound | undefined },
): Promise<ClientSummary[]> {
  // A key bound to a tenant sees the clients of its tenant's grants, counted over those only (tenant-scope.ts).
  const scope = grantScope(deps, actor)
  const groups = await groupClients(deps.reads, { prefix: search || null, take: limit, scope })
  const clients = groups.map((g) => g.client)
  const [names, blocked] = await Promise.all([
    findLatestClientNames(deps.reads, clients, scope),
    findBlockedAmong(deps.sql, [...new Set(clients.map(blockedClientKey))]),
  ])
  return groups.map((g) => ({
    walletAddress: g.client,
    name: names.get(g.client) ?? null,
    thumbprint: thumbprintOfClient(g.client),
    grants: g._count._all,
    lastGrantAt: g._max.createdAt,
    blocked: blocked.has(blockedClientKey(g.client)),
  }))
}

/** Blocks listed at most. */
export const CLIENT_BLOCKS_SHOWN = 100

/**
 * The blocked clients, newest block first, with why, by whom and when (also those that never asked for a grant). A key
 * bound to a tenant sees only the blocks of its tenant's clients (those with a grant of its tenant).
 */
export async function listClientBlocks(
  deps: Deps,
  { actor = EVERY_TENANT }: { actor?: TenantBound | undefined } = {},
): Promise<{ walletAddress: string; reason: string; blockedBy: string; blockedAt: Date }[]> {
  let rows = await findClientBlocks(deps.sql, CLIENT_BLOCKS_SHOWN)
  if (actor.tenantId !== null) {
    const ours = await clientsWithGrantsIn(
      deps.reads,
      rows.map((r) => r.client),
      grantScope(deps, actor),
    )
    rows = rows.filter((r) => ours.has(r.client))
  }
  return rows.map((r) => ({ walletAddress: r.client, reason: r.reason, blockedBy: r.blockedBy, blockedAt: r.createdAt }))
}
