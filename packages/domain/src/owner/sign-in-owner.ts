import type { Deps } from '../deps'
import { createSession } from '../session/create-session'
import { assertSignInAllowed, countFailedSignIn } from '../rate-limit/sign-in-limit'
import { verifyPassword } from './password'
import { findOwnerByEmail } from './owner.repo'

/** Owner sessions last this long: long enough to read and decide, short enough not to linger. */
export const OWNER_SESSION_SECONDS = 30 * 60

/**
 * Checks an owner's email and password and opens a session. Null for any failure, with the same work done
 * whether or not the email exists (no owner enumeration). Failures are counted per email and per known caller
 * address; past the limit sign-in pauses for the rest of the window.
 * @throws GnapError request_denied (429, retryAfterSeconds) when too many sign-ins failed
 */
export async function signInOwner(
  deps: Deps,
  input: { email: string; password: string; ip?: string | null },
): Promise<{ value: string; expiresAt: Date } | null> {
  const email = input.email.trim().toLowerCase().slice(0, 254)
  const password = input.password.slice(0, 256)
  const ip = input.ip ?? null
  const now = deps.clock()
  await assertSignInAllowed(deps.sql, 'owner', email, ip, now)
  const owner = email ? await findOwnerByEmail(deps.sql, email) : null
  const ok = await verifyPassword(owner?.passwordHash ?? null, password)
  if (!owner || !ok) {
    await countFailedSignIn(deps.sql, 'owner', email, ip, now)
    return null
  }
  return createSession(deps.sql, { kind: 'owner', subjectId: owner.id, ttlSeconds: OWNER_SESSION_SECONDS, now })
}
