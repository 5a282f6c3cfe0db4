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
import { z } from 'zod'
import { operatorProcedure, viewerProcedure, router } from '../trpc'
import { ClientBlockedSchema, ClientBlockListSchema, ClientDetailSchema, ClientListSchema, ClientUnblockedSchema } from '../schemas'

// Client instances, by wallet address (docs/protocol.md §2.16): every role reads them; operators and admins block
// and unblock.

export const clientsRouter = router({
  /** Client wallet addresses with their grant counts and whether each is blocked, most grants first; `search` is a prefix. */
  list: viewerProcedure
    .meta({ rest: { method: 'POST', path: '/clients/search', summary: 'Client wallet addresses with their grant counts' } })
    .input(ListClientsInputSchema)
    .output(ClientListSchema)
    .query(async ({ ctx, input }) => ({ items: await listClients(ctx.deps, input) })),

  /** The blocked clients, newest block first, with reason, who and when. */
  blocked: viewerProcedure
    .meta({ rest: { method: 'GET', path: '/clients/blocked', summary: 'The blocked clients, newest block first, with reason, who and when' } })
    .input(z.strictObject({}).optional())
    .output(ClientBlockListSchema)
    .query(async ({ ctx }) => ({ items: await listClientBlocks(ctx.deps) })),

  /** One client: its block, grants, tokens, last activity and audit entries. A wallet address without grants is shown empty. */
  byWalletAddress: viewerProcedure
    .meta({
      rest: { method: 'POST', path: '/clients/lookup', summary: 'One client by its wallet address: its block, grants, tokens and audit entries' },
    })
    .input(ClientAddressInputSchema)
    .output(ClientDetailSchema)
    .query(({ ctx, input }) => getClientDetail(ctx.deps, input)),

  /**
   * Blocks a client with a reason and revokes every grant it holds with their tokens, in one transaction, audited.
   * BAD_REQUEST for a malformed wallet address or an empty reason; CONFLICT when already blocked.
   */
  block: operatorProcedure
    .meta({ rest: { method: 'POST', path: '/clients/block', summary: 'Blocks a client with a reason and revokes every grant it holds' } })
    .input(BlockClientInputSchema)
    .output(ClientBlockedSchema)
    .mutation(({ ctx, input }) => blockClient(ctx.deps, { ...input, actor: ctx.actor })),

  /** Unblocks a client (its revoked grants stay revoked), audited. CONFLICT when it is not blocked. */
  unblock: operatorProcedure
    .meta({ rest: { method: 'POST', path: '/clients/unblock', summary: 'Unblocks a client; its revoked grants stay revoked' } })
    .input(UnblockClientInputSchema)
    .output(ClientUnblockedSchema)
    .mutation(({ ctx, input }) => unblockClient(ctx.deps, { ...input, actor: ctx.actor })),
})
