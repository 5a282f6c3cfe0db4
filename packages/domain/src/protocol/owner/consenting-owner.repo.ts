import type { SqlRunner } from '../../kernel/db/sql'

// The owner query of the consent screen (docs/protocol.md §2.11), also used by the owner import: an owner and the
// wallet addresses they own. Every other statement about owners is the operator side's (operator/owner/owner.repo.ts).

/** An owner's name, tenant (null: the operator's or implicit one) and the wallet addresses they own; null when no owner has this id. */
export async function findOwnerWithWalletAddresses(
  db: SqlRunner,
  id: string,
): Promise<{ id: string; name: string; status: string; tenantId: string | null; walletAddresses: string[] } | null> {
  const [owner] = await db.all<{ id: string; name: string; status: string; tenantId: string | null }>(
    `SELECT "id", "name", "status", "tenantId" FROM "Owner" WHERE "id" = $1`,
    [id],
  )
  if (!owner) return null
  const rows = await db.all<{ url: string }>(`SELECT "url" FROM "OwnerWalletAddress" WHERE "ownerId" = $1`, [id])
  return { ...owner, walletAddresses: rows.map((r) => r.url) }
}
