import type { Deps } from '../deps'
import { verifyPassword } from '../owner/password'
import { assertSignInAllowed, countFailedSignIn } from '../rate-limit/sign-in-limit'
import { createSession } from '../session/create-session'
import { findAdminByEmail } from './admin.repo'
import { insertAuditEntry } from './audit.repo'
import { ADMIN_SESSION_SECONDS, type AdminIdentity } from './admin-session'

interface AdminSignIn {
  /** The session cookie's value: for the Set-Cookie header only, stored as a hash, never in a response body. */
  value: string
  expiresAt: Date
  admin: AdminIdentity
}

/**
 * Checks an administrator's email and password and opens an admin session. Null for any wrong email or password,
 * with the same work done whether or not the email exists (no account enumeration). Failures are counted per email
 * and per known caller address (SIGN_IN_LIMITS, scope `admin`); once either count is used up, sign-in is refused
 * before the password is checked, until the window ends, for every email alike. Successful sign-ins never count.
 * @throws GnapError request_denied (429, retryAfterSeconds) when too many sign-ins failed
 */
export async function signInAdmin(deps: Deps, input: { email: string; password: string; ip: string | null }): Promise<AdminSignIn | null> {
  const email = input.email.trim().toLowerCase().slice(0, 254)
  const password = input.password.slice(0, 256)
  const now = deps.clock()
  await assertSignInAllowed(deps.sql, 'admin', email, input.ip, now)

  const admin = email ? await findAdminByEmail(deps.sql, email) : null
  const ok = await verifyPassword(admin?.passwordHash ?? null, password)
  if (!admin || !ok) {
    await countFailedSignIn(deps.sql, 'admin', email, input.ip, now)
    deps.log.info({ ip: input.ip }, 'admin sign-in failed')
    return null
  }

  return deps.sql.transaction(async (tx) => {
    const session = await createSession(tx, { kind: 'admin', subjectId: admin.id, ttlSeconds: ADMIN_SESSION_SECONDS, now })
    await insertAuditEntry(tx, { actor: admin.email, action: 'admin.sign-in', target: `admin:${admin.email}`, now })
    return { ...session, admin: { id: admin.id, email: admin.email } }
  })
}
