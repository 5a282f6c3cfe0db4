import { listAuditLog, ListAuditLogInputSchema } from '@gnap/domain/operator'
import { viewerProcedure, router } from '../trpc'
import { AuditPageSchema } from '../schemas'

export const auditRouter = router({
  /** What administrators did (who, what, when), newest first, in keyset pages. */
  list: viewerProcedure
    .meta({ rest: { method: 'POST', path: '/audit/search', summary: 'The audit log, newest first, in keyset pages' } })
    .input(ListAuditLogInputSchema)
    .output(AuditPageSchema)
    .query(({ ctx, input }) => listAuditLog(ctx.deps, input)),
})
