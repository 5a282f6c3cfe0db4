// The operator inputs the console's browser code validates its forms with: the same zod schemas the tRPC procedures
// take as `.input()`, from files that import nothing server-side.

export { CreateApiKeyInputSchema } from './api-key/api-key-input'
export { CreateWebhookEndpointInputSchema, DescriptionSchema, EventTypesSchema, UrlSchema } from './webhook/webhook-input'
export { BlockReasonSchema } from './client-block/block-client-input'
export { AdminEmailSchema } from './admin/admin-input'
export { OwnerEmailSchema, OwnerNameSchema } from './owner/owner-input'
export { TenantIdInputSchema } from './tenant-input'
