import * as domain from '@gnap/domain/operator'
import { asItems, operator, router, viewer } from '../trpc'
import { ClientBlockedSchema, ClientBlockListSchema, ClientDetailSchema, ClientListSchema, ClientUnblockedSchema, NoInputSchema } from '../schemas'

// Client instances, by wallet address (docs/protocol.md §2.16): every role reads them; operators and admins block
// and unblock.

export const clientsRouter = router({
  /** Client wallet addresses with their grant counts and whether each is blocked, most grants first; `search` is a prefix. */
  list: viewer.query(
    ['POST', '/clients/search', 'Client wallet addresses with their grant counts'],
    domain.ListClientsInputSchema,
    ClientListSchema,
    asItems(domain.listClients),
  ),

  /** The blocked clients, newest block first, with reason, who and when. */
  blocked: viewer.query(
    ['GET', '/clients/blocked', 'The blocked clients, newest block first, with reason, who and when'],
    NoInputSchema,
    ClientBlockListSchema,
    asItems(domain.listClientBlocks),
  ),

  /** One client: its block, grants, tokens, last activity and audit entries. A wallet address without grants is shown empty. */
  byWalletAddress: viewer.query(
    ['POST', '/clients/lookup', 'One client by its wallet address: its block, grants, tokens and audit entries'],
    domain.ClientAddressInputSchema,
    ClientDetailSchema,
    domain.getClientDetail,
  ),

  /**
   * Blocks a client with a reason and revokes every grant it holds with their tokens, in one transaction, audited.
   * BAD_REQUEST for a malformed wallet address or an empty reason; CONFLICT when already blocked.
   */
  block: operator.mutation(
    ['POST', '/clients/block', 'Blocks a client with a reason and revokes every grant it holds'],
    domain.BlockClientInputSchema,
    ClientBlockedSchema,
    domain.blockClient,
  ),

  /** Unblocks a client (its revoked grants stay revoked), audited. CONFLICT when it is not blocked. */
  unblock: operator.mutation(
    ['POST', '/clients/unblock', 'Unblocks a client; its revoked grants stay revoked'],
    domain.UnblockClientInputSchema,
    ClientUnblockedSchema,
    domain.unblockClient,
  ),
})
