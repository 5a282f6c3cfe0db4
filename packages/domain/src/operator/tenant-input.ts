import { z } from 'zod'

// The tenant field of the console's forms (an owner's, a webhook endpoint's), with no server-side imports: the
// console's browser code checks its forms with it too (`@gnap/domain/console-inputs`).

/** A tenant id as the console and the operator API take it: compared in lower case, as the service API stores it. */
export const TenantIdInputSchema = z.string().trim().toLowerCase().min(1, 'give a tenant id').max(64, 'at most 64 characters')
