import type { Deps } from '../deps'
import { GnapError } from '../errors'
import { verifyPassword } from '../owner/password'
import { hitRateLimit } from '../rate-limit/rate-limit'
import { createSession } from '../session/session'
import { findAdminByEmail, insertAuditEntry, readRateLimitCount } from './admin.repo'
import { ADMIN_SESSION_SECONDS, ADMIN_SIGN_IN_LIMITS, type AdminIdentity } from './admin-session'

export interface AdminSignIn {
  /** The session cookie's value: for the Set-Cookie header only, stored as a hash, never in a response body. */
  value: string
  expiresAt: Date
  admin: AdminIdentity
}

const { failuresPerEmail, failuresPerIp, windowSeconds } = ADMIN_SIGN_IN_LIMITS

/**
 * Checks an administrator's email and password and opens an admin session. Null for any wrong email or password,
 * with the same work done whether or not the email exists (no account enumeration). Failures are counted per
 * email and per caller IP (`ip` null: one counter for every caller of unknown address); once either count reaches
 * its limit, sign-in is refused until the window ends, for every email alike.
 * @throws GnapError request_denied (429, retryAfterSeconds) when too many sign-ins failed
 */
export async function signInAdmin(deps: Deps, input: { email: string; password: string; ip: string | null }): Promise<AdminSignIn | null> {
  const email = input.email.trim().toLowerCase().slice(0, 254)
  const password = input.password.slice(0, 256)
  const now = deps.clock()
  const keys = [
    { key: `admin-sign-in:email:${email}`, limit: failuresPerEmail },
    { key: `admin-sign-in:ip:${input.ip ?? 'unknown'}`, limit: failuresPerIp },
  ]

  const windowMs = windowSeconds * 1000
  const windowStart = new Date(Math.floor(now.getTime() / windowMs) * windowMs)
  const retryAfterSeconds = Math.max(1, Math.ceil((windowStart.getTime() + windowMs - now.getTime()) / 1000))
  for (const { key, limit } of keys) {
    if ((await readRateLimitCount(deps.db, key, windowStart)) >= limit) throw tooMany(retryAfterSeconds)
  }

  const admin = email ? await findAdminByEmail(deps.db, email) : null
  const ok = await verifyPassword(admin?.passwordHash ?? null, password)
  if (!admin || !ok) {
    // hitRateLimit keeps the same fixed windows as the check above; concurrent failures are each counted.
    for (const { key, limit } of keys) await hitRateLimit(deps.db, key, limit, windowSeconds, now)
    deps.log.info({ ip: input.ip }, 'admin sign-in failed')
    return null
  }

  return deps.db.$transaction(async (tx) => {
    const session = await createSession(tx, { kind: 'admin', subjectId: admin.id, ttlSeconds: ADMIN_SESSION_SECONDS, now })
    await insertAuditEntry(tx, { actor: admin.email, action: 'admin.sign-in', target: `admin:${admin.email}`, now })
    return { ...session, admin: { id: admin.id, email: admin.email } }
  })
}

// 429 with Retry-After, like grant requests (rate-limit/grant-rate-limit.ts): the console says when to try again.
const tooMany = (retryAfterSeconds: number) =>
  new GnapError('request_denied', `too many failed sign-ins: try again in ${Math.ceil(retryAfterSeconds / 60)} min`, 429, { retryAfterSeconds })
