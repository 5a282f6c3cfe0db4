import type { SqlRunner } from '../../kernel/db/sql'

// The statements of the start-time rewrite of stored wallet addresses (canonicalise-stored.ts): the columns that hold
// one, and the values in them the SQL migration 20261127210000_canonical_wallet_addresses could not bring to the
// canonical form (dot segments and percent-encoding, docs/protocol.md §6).

/** Stored values with a dot segment or a percent sign, in any of the three columns; each once. */
export async function findStoredAddressesToCheck(db: SqlRunner): Promise<{ value: string; isOwnerAddress: boolean }[]> {
  const suspect = (column: string) => `("${column}" LIKE '%/.%' OR "${column}" LIKE '%!%%' ESCAPE '!')`
  const rows = await db.all<{ value: string; owner: number }>(
    `SELECT "identifier" AS "value", 0 AS "owner" FROM "AccessItem" WHERE "identifier" IS NOT NULL AND ${suspect('identifier')}
     UNION SELECT "client", 0 FROM "Grant" WHERE ${suspect('client')}
     UNION SELECT "url", 1 FROM "OwnerWalletAddress" WHERE ${suspect('url')}`,
  )
  const byValue = new Map<string, boolean>()
  for (const r of rows) byValue.set(r.value, (byValue.get(r.value) ?? false) || Number(r.owner) === 1)
  return [...byValue].map(([value, isOwnerAddress]) => ({ value, isOwnerAddress }))
}

/** Whether an owner's wallet address is stored as `url` exactly. */
export async function ownerAddressExists(db: SqlRunner, url: string): Promise<boolean> {
  return (await db.all(`SELECT 1 FROM "OwnerWalletAddress" WHERE "url" = $1`, [url])).length > 0
}

/** Rewrites `from` to `to` in the grants' access items and clients, and in the owners' wallet addresses when asked. */
export async function rewriteStoredAddress(tx: SqlRunner, from: string, to: string, ownerAddress: boolean): Promise<void> {
  await tx.run(`UPDATE "AccessItem" SET "identifier" = $2 WHERE "identifier" = $1`, [from, to])
  await tx.run(`UPDATE "Grant" SET "client" = $2 WHERE "client" = $1`, [from, to])
  if (ownerAddress) await tx.run(`UPDATE "OwnerWalletAddress" SET "url" = $2 WHERE "url" = $1`, [from, to])
}
