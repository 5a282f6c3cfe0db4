import { z } from 'zod'
import type { Deps } from '../deps'
import { findLatestClientNames, groupClients } from './console.repo'

export const ListClientsInputSchema = z.strictObject({
  /** A prefix of the wallet address (exact characters, no wildcards). */
  search: z.string().trim().max(2048).optional(),
  limit: z.number().int().min(1).max(100).default(50),
})

type ListClientsInput = z.input<typeof ListClientsInputSchema>

interface ClientSummary {
  walletAddress: string
  /** The name the client gave in its latest grant. */
  name: string | null
  grants: number
  lastGrantAt: Date | null
}

/**
 * The clients (wallet addresses) that requested grants, most grants first: for the console's client filter.
 * @throws ZodError for input out of range
 */
export async function listClients(deps: Deps, input: ListClientsInput): Promise<ClientSummary[]> {
  const { search, limit } = ListClientsInputSchema.parse(input)
  const groups = await groupClients(deps.reads, { prefix: search || null, take: limit })
  const names = await findLatestClientNames(
    deps.reads,
    groups.map((g) => g.client),
  )
  return groups.map((g) => ({
    walletAddress: g.client,
    name: names.get(g.client) ?? null,
    grants: g._count._all,
    lastGrantAt: g._max.createdAt,
  }))
}
