import type { SqlRunner } from '../../kernel/db/sql'
import { isUniqueViolation } from '../../kernel/db/errors'
import { countAdmins } from './admin.repo'
import { createAdmin } from './create-admin'
import { DEMO_ADMIN } from './demo-admin'

/**
 * `created: false`: an administrator exists already. `ignoredSettings`: ADMIN_EMAIL and ADMIN_PASSWORD were given and
 * did nothing (they only create the first administrator), which the start command reports.
 */
type FirstAdminResult = { created: false; ignoredSettings: boolean } | { created: true; email: string; isDemo: boolean }

export class FirstAdminError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'FirstAdminError'
  }
}

/**
 * Creates the first administrator on an empty Admin table, from ADMIN_EMAIL / ADMIN_PASSWORD when the start
 * command has them, else from the documented demo values (`DEMO_ADMIN`, which the start command prints). Does
 * nothing once an administrator exists.
 *
 * A production start refuses the demo values, given or defaulted, even when nothing would be created: their
 * password is public.
 * @throws FirstAdminError in production with the demo values or, on an empty table, without ADMIN_EMAIL and
 *   ADMIN_PASSWORD; ZodError for a malformed email or a password shorter than 12 characters
 */
export async function ensureFirstAdmin(
  db: SqlRunner,
  input: { email?: string | null; password?: string | null; isProduction: boolean },
): Promise<FirstAdminResult> {
  const email = input.email?.trim() || null
  const password = input.password || null
  if ((email === null) !== (password === null)) {
    throw new FirstAdminError('set both ADMIN_EMAIL and ADMIN_PASSWORD, or neither')
  }
  // The demo password is public whichever email it comes with.
  const isDemo = email === null || password === DEMO_ADMIN.password
  if (input.isProduction && email !== null && isDemo) {
    throw new FirstAdminError('the demo administrator password is public: choose another ADMIN_PASSWORD')
  }
  if ((await countAdmins(db)) > 0) return { created: false, ignoredSettings: email !== null }
  if (input.isProduction && email === null) {
    throw new FirstAdminError('NODE_ENV=production on an empty database requires ADMIN_EMAIL and ADMIN_PASSWORD')
  }
  try {
    const admin = await createAdmin(db, { email: email ?? DEMO_ADMIN.email, password: password ?? DEMO_ADMIN.password })
    return { created: true, email: admin.email, isDemo }
  } catch (e) {
    // Another instance starting at the same moment created it first.
    if (isUniqueViolation(e)) return { created: false, ignoredSettings: email !== null }
    throw e
  }
}
