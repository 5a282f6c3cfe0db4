import { z } from 'zod'
import type { SqlRunner } from '../../kernel/db/sql'
import { hashPassword } from '../sign-in/password'
import { insertAdmin } from './admin.repo'
import type { AdminIdentity } from './admin-session'
import { ADMIN_ROLES } from './roles'
import { AdminEmailSchema } from './admin-input'

export { AdminEmailSchema }

const AdminInputSchema = z.strictObject({
  email: AdminEmailSchema,
  // Longer than the owners' minimum: an administrator can revoke every grant.
  password: z.string().min(12).max(256),
  // The first administrator, created from the environment, is an `admin`.
  role: z.enum(ADMIN_ROLES).default('admin'),
})

type AdminInput = z.input<typeof AdminInputSchema>

/**
 * Creates an administrator with an argon2id hash of the password (seed, operators' scripts).
 * @throws ZodError for a malformed email or a password shorter than 12 characters; a unique violation
 *   (`isUniqueViolation`) for a taken email
 */
export async function createAdmin(db: SqlRunner, input: AdminInput): Promise<AdminIdentity> {
  const data = AdminInputSchema.parse(input)
  return insertAdmin(db, { email: data.email, passwordHash: await hashPassword(data.password), role: data.role, now: new Date() })
}
