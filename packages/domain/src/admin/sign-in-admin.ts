import type { Deps } from '../deps'
import { attemptSignIn } from '../rate-limit/sign-in-limit'
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
 * with the same work done whether or not the email exists (no account enumeration). Every attempt is reserved
 * before its password is checked and counted unless it succeeds (SIGN_IN_LIMITS, scope `admin`, docs/protocol.md
 * §10); past a limit sign-in is refused before the password is checked, for every email alike.
 * @throws GnapError request_denied (429, retryAfterSeconds) when too many sign-ins failed or are being checked
 */
export async function signInAdmin(deps: Deps, input: { email: string; password: string; ip: string | null }): Promise<AdminSignIn | null> {
  const email = input.email.trim().toLowerCase().slice(0, 254)
  const password = input.password.slice(0, 256)
  const admin = await attemptSignIn(deps, { scope: 'admin', email, password, ip: input.ip, find: findAdminByEmail })
  if (!admin) {
    deps.log.info({ ip: input.ip }, 'admin sign-in failed')
    return null
  }
  const now = deps.clock()

  return deps.sql.transaction(async (tx) => {
    const session = await createSession(tx, { kind: 'admin', subjectId: admin.id, ttlSeconds: ADMIN_SESSION_SECONDS, now })
    await insertAuditEntry(tx, { actor: admin.email, action: 'admin.sign-in', target: `admin:${admin.email}`, now })
    return { ...session, admin: { id: admin.id, email: admin.email, role: admin.role } }
  })
}
