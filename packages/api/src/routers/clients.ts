import { listClients, ListClientsInputSchema } from '@gnap/domain'
import { viewerProcedure, router } from '../trpc'
import { ClientListSchema } from '../schemas'

export const clientsRouter = router({
  /** Client wallet addresses with their grant counts, most grants first; `search` is a prefix. */
  list: viewerProcedure
    .input(ListClientsInputSchema)
    .output(ClientListSchema)
    .query(async ({ ctx, input }) => ({ items: await listClients(ctx.deps, input) })),
})
