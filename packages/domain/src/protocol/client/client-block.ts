import type { SqlRunner } from '../../kernel/db/sql'
import { clientBlocked } from '../../kernel/errors'
import { canonicalWalletAddress } from '../owner/canonical-wallet-address'
import { isClientBlocked } from './client-block.repo'

// Blocking a client instance (docs/protocol.md §2.16). A client instance is its wallet address, the `client` its
// grants store; a block names it in its canonical form (canonical-wallet-address.ts), so another spelling of the same
// address (a host in capitals, a trailing slash, a default port) is refused too.

/** The form a block names a wallet address in. */
export const blockedClientKey = (walletAddress: string): string => canonicalWalletAddress(walletAddress) ?? walletAddress

/**
 * Refuses a blocked client: 401 invalid_client. The grant request calls it before the client's keys are fetched
 * (nothing is fetched for a blocked client) and again inside the transaction that stores the grant (docs/protocol.md
 * §3 Races); continuations and token management read the block with their grant instead (grant.repo.ts,
 * access-token.repo.ts).
 * @throws GnapError invalid_client 401
 */
export async function refuseBlockedClient(db: SqlRunner, walletAddress: string): Promise<void> {
  if (await isClientBlocked(db, blockedClientKey(walletAddress))) throw clientBlocked()
}
