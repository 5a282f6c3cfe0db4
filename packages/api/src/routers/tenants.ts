import { asItems, router, viewer } from '../trpc'
import { listTenants } from '@gnap/domain/operator'
import { NoInputSchema, TenantListSchema } from '../schemas'

// Tenants as the service API made them (docs/protocol.md §2.21): every role reads them; a key bound to a tenant sees
// its own only. They are created, changed and deleted through the service API alone.

export const tenantsRouter = router({
  /** The tenants, oldest first: identity provider, created, deleted, grant count. Never a secret. */
  list: viewer.query(
    ['GET', '/tenants', 'The tenants: identity provider, state and grant count'],
    NoInputSchema,
    TenantListSchema,
    asItems(listTenants),
  ),
})
