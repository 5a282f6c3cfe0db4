import { z } from 'zod'

// The fields of creating or editing an owner, with no server-side imports: the console's browser code checks its
// forms with them too (`@gnap/domain/console-inputs`), so both say the same thing.

export const OwnerEmailSchema = z
  .email('give an email address, such as name@example.com')
  .max(254, 'at most 254 characters')
  .transform((e) => e.toLowerCase())

export const OwnerNameSchema = z.string().trim().min(1, 'give the owner a name').max(120, 'at most 120 characters')
