import { listAuditLog, ListAuditLogInputSchema } from '@gnap/domain/operator'
import { router, viewer } from '../trpc'
import { AuditPageSchema } from '../schemas'

export const auditRouter = router({
  /** What administrators did (who, what, when), newest first, in keyset pages. */
  list: viewer.query(
    ['POST', '/audit/search', 'The audit log, newest first, in keyset pages'],
    ListAuditLogInputSchema,
    AuditPageSchema,
    listAuditLog,
  ),
})
