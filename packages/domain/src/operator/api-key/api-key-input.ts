import { z } from 'zod'
import { ADMIN_ROLES } from '../admin/roles'

// The input of creating an API key, with no server-side imports: the console's browser code checks its form with it
// too (`@gnap/domain/console-inputs`), so both say the same thing.

export const CreateApiKeyInputSchema = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, 'give the key a name')
    .max(64)
    .regex(/^[\p{L}\p{N} ._:@/-]+$/u, 'use letters, digits, spaces and . _ : @ / - only'),
  role: z.enum(ADMIN_ROLES),
  /** Optional: the key stops working at this instant. */
  expiresAt: z.date().nullish(),
  /**
   * Optional: the one tenant the key is bound to (docs/protocol.md §2.21): it then sees and changes that tenant's
   * grants and clients only. None (or blank): every tenant.
   */
  tenantId: z
    .string()
    .trim()
    .toLowerCase()
    .max(64)
    .nullish()
    .transform((t) => (t ? t : null)),
})
