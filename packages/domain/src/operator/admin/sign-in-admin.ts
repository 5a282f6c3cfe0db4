import type { Deps } from '../../protocol/deps'
import { attemptSignIn } from '../sign-in/sign-in-limit'
import { hashSecret, newSecret } from '../../kernel/secrets'
import { createSession } from '../../kernel/session/create-session'
import { findAdminByEmail, findAdminById } from './admin.repo'
import { deleteSignInChallenge, findSignInChallenge, insertSignInChallenge, recordChallengeFailure } from './admin-totp.repo'
import { insertAuditEntry } from '../audit/audit.repo'
import { ADMIN_SESSION_SECONDS, type AdminIdentity } from './admin-session'
import { checkSecondStep } from './two-step'

/** A sign-in that opened a session. */
export interface AdminSignIn {
  step: 'signed-in'
  /** The session cookie's value: for the Set-Cookie header only, stored as a hash, never in a response body. */
  value: string
  expiresAt: Date
  admin: AdminIdentity
  /** ADMIN_REQUIRE_TOTP is on and this administrator has not enrolled: the session may only enrol (§2.17). */
  mustEnrol: boolean
}

/** A right password of an administrator with two-step sign-in: the code is awaited (docs/protocol.md §2.17). */
export interface AdminSignInChallenge {
  step: 'code'
  /** Sent back with the code; single-use, stored as a hash. */
  challenge: string
  expiresAt: Date
}

/** How long the second step may take after the right password. */
export const SIGN_IN_CHALLENGE_SECONDS = 5 * 60
/** Wrong codes one challenge takes before the password is asked again (they count toward the sign-in limit too). */
export const SIGN_IN_CHALLENGE_MAX_FAILURES = 5

/**
 * Checks an administrator's email and password. Null for any wrong email or password, with the same work done
 * whether or not the email exists (no account enumeration). Every attempt is reserved before its password is
 * checked and counted unless it succeeds (SIGN_IN_LIMITS, scope `admin`, docs/protocol.md §10); past a limit
 * sign-in is refused before the password is checked, for every email alike. With two-step sign-in on, a right
 * password opens no session: it gives a challenge for `completeAdminSignIn` (docs/protocol.md §2.17).
 * @throws GnapError request_denied (429, retryAfterSeconds) when too many sign-ins failed or are being checked
 */
export async function signInAdmin(
  deps: Deps,
  input: { email: string; password: string; ip: string | null },
): Promise<AdminSignIn | AdminSignInChallenge | null> {
  const email = input.email.trim().toLowerCase().slice(0, 254)
  const password = input.password.slice(0, 256)
  const found = await attemptSignIn(deps, { scope: 'admin', email, password, ip: input.ip, find: findAdminByEmail })
  const admin = found ? await findAdminById(deps.sql, found.id) : null
  if (!admin) {
    deps.log.info({ ip: input.ip }, 'admin sign-in failed')
    return null
  }
  const now = deps.clock()
  if (admin.totpEnabled) {
    const challenge = newSecret()
    const expiresAt = new Date(now.getTime() + SIGN_IN_CHALLENGE_SECONDS * 1000)
    await insertSignInChallenge(deps.sql, { id: hashSecret(challenge), adminId: admin.id, now, expiresAt })
    return { step: 'code', challenge, expiresAt }
  }
  return openAdminSession(deps, { id: admin.id, email: admin.email, role: admin.role }, { mustEnrol: deps.config.requireAdminTotp, detail: null })
}

/**
 * The second step: the challenge of a right password and a TOTP or recovery code (docs/protocol.md §2.17). The
 * session when the code is right; null for a wrong, used or replayed code (counted as a failed sign-in of the
 * administrator from `ip`; the challenge ends after SIGN_IN_CHALLENGE_MAX_FAILURES of them) and for an unknown,
 * expired or used challenge. A challenge opens one session at most.
 * @throws GnapError request_denied (429, retryAfterSeconds) when too many sign-ins failed
 */
export async function completeAdminSignIn(
  deps: Deps,
  input: { challenge: string; code: string; ip: string | null },
): Promise<AdminSignIn | { step: 'expired' } | null> {
  const id = hashSecret(input.challenge.slice(0, 128))
  const challenge = await findSignInChallenge(deps.sql, id, deps.clock())
  const admin = challenge ? await findAdminById(deps.sql, challenge.adminId) : null
  if (!challenge || !admin) return { step: 'expired' }
  const used = await checkSecondStep(deps, { admin, code: input.code, ip: input.ip })
  if (!used) {
    await recordChallengeFailure(deps.sql, id, SIGN_IN_CHALLENGE_MAX_FAILURES)
    deps.log.info({ ip: input.ip }, 'admin sign-in: wrong code')
    return null
  }
  // Single use: of two requests with the same challenge, only the one that deletes it goes on.
  if ((await deleteSignInChallenge(deps.sql, id)) === 0) return { step: 'expired' }
  return openAdminSession(
    deps,
    { id: admin.id, email: admin.email, role: admin.role },
    { mustEnrol: false, detail: used === 'recovery' ? 'with a recovery code' : 'with a code' },
  )
}

async function openAdminSession(deps: Deps, admin: AdminIdentity, options: { mustEnrol: boolean; detail: string | null }): Promise<AdminSignIn> {
  const now = deps.clock()
  return deps.sql.transaction(async (tx) => {
    const session = await createSession(tx, { kind: 'admin', subjectId: admin.id, ttlSeconds: ADMIN_SESSION_SECONDS, now })
    await insertAuditEntry(tx, { actor: admin.email, action: 'admin.sign-in', target: `admin:${admin.email}`, detail: options.detail, now })
    return { step: 'signed-in' as const, ...session, admin, mustEnrol: options.mustEnrol }
  })
}
