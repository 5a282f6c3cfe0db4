import {
  blockClient,
  BlockClientInputSchema,
  ClientAddressInputSchema,
  getClientDetail,
  listClientBlocks,
  listClients,
  ListClientsInputSchema,
  unblockClient,
  UnblockClientInputSchema,
} from '@gnap/domain/operator'
import { operator, router, viewer } from '../trpc'
import { ClientBlockedSchema, ClientBlockListSchema, ClientDetailSchema, ClientListSchema, ClientUnblockedSchema, NoInputSchema } from '../schemas'

// Client instances, by wallet address (docs/protocol.md §2.16): every role reads them; operators and admins block
// and unblock.

export const clientsRouter = router({
  /** Client wallet addresses with their grant counts and whether each is blocked, most grants first; `search` is a prefix. */
  list: viewer.query(
    ['POST', '/clients/search', 'Client wallet addresses with their grant counts'],
    ListClientsInputSchema,
    ClientListSchema,
    async (deps, input) => ({
      items: await listClients(deps, input),
    }),
  ),

  /** The blocked clients, newest block first, with reason, who and when. */
  blocked: viewer.query(
    ['GET', '/clients/blocked', 'The blocked clients, newest block first, with reason, who and when'],
    NoInputSchema,
    ClientBlockListSchema,
    async (deps) => ({
      items: await listClientBlocks(deps),
    }),
  ),

  /** One client: its block, grants, tokens, last activity and audit entries. A wallet address without grants is shown empty. */
  byWalletAddress: viewer.query(
    ['POST', '/clients/lookup', 'One client by its wallet address: its block, grants, tokens and audit entries'],
    ClientAddressInputSchema,
    ClientDetailSchema,
    getClientDetail,
  ),

  /**
   * Blocks a client with a reason and revokes every grant it holds with their tokens, in one transaction, audited.
   * BAD_REQUEST for a malformed wallet address or an empty reason; CONFLICT when already blocked.
   */
  block: operator.mutation(
    ['POST', '/clients/block', 'Blocks a client with a reason and revokes every grant it holds'],
    BlockClientInputSchema,
    ClientBlockedSchema,
    blockClient,
  ),

  /** Unblocks a client (its revoked grants stay revoked), audited. CONFLICT when it is not blocked. */
  unblock: operator.mutation(
    ['POST', '/clients/unblock', 'Unblocks a client; its revoked grants stay revoked'],
    UnblockClientInputSchema,
    ClientUnblockedSchema,
    unblockClient,
  ),
})
