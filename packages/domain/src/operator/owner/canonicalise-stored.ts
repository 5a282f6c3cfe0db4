import type { Sql } from '../../kernel/db/sql'
import { canonicalWalletAddress } from '../../protocol/owner/canonical-wallet-address'
import { findStoredAddressesToCheck, ownerAddressExists, rewriteStoredAddress } from './stored-wallet-addresses.repo'

// Run at every start (prisma/seed.ts), after the migrations: the stored wallet addresses that the SQL migration
// 20261127210000_canonical_wallet_addresses could not bring to the canonical form (docs/protocol.md §6, "Wallet
// address identifiers"): dot segments and percent-encoding, which need the WHATWG URL parser. Without it, a grant
// stored before the canonical form with `https://wallet.example/x/../alice` stays invisible to Alice's /account and
// to the console's disable, delete and remove-wallet-address (docs/security.md). Values already canonical are read
// and left alone, so a second start changes nothing.

export interface StoredAddressRewrite {
  /** Distinct stored values rewritten to their canonical form. */
  rewritten: number
  /** Owner wallet addresses left as they were: another owner address has, or would get, the same canonical form. */
  collisions: string[]
}

export async function canonicaliseStoredWalletAddresses(sql: Sql): Promise<StoredAddressRewrite> {
  const candidates = (await findStoredAddressesToCheck(sql))
    .map((c) => ({ ...c, canonical: canonicalWalletAddress(c.value) }))
    .filter((c): c is typeof c & { canonical: string } => c.canonical !== null && c.canonical !== c.value)
  // Two owner addresses that would become one are both left, as the SQL migration does: picking one would pick an owner.
  const ownerTargets = new Map<string, number>()
  for (const c of candidates) if (c.isOwnerAddress) ownerTargets.set(c.canonical, (ownerTargets.get(c.canonical) ?? 0) + 1)
  const collisions: string[] = []
  let rewritten = 0
  for (const c of candidates) {
    await sql.transaction(async (tx) => {
      // Another instance starting on the same database may have rewritten it a moment ago: then nothing collides.
      const owned = c.isOwnerAddress && (await ownerAddressExists(tx, c.value))
      const collides = owned && ((ownerTargets.get(c.canonical) ?? 0) > 1 || (await ownerAddressExists(tx, c.canonical)))
      if (collides) collisions.push(c.value)
      await rewriteStoredAddress(tx, c.value, c.canonical, owned && !collides)
    })
    rewritten++
  }
  return { rewritten, collisions }
}
