import type { Deps } from '../../protocol/deps'
import type { Sql } from '../../kernel/db/sql'
import { sameTenant } from '../../protocol/tenant/tenants'
import { ownerDisabled, ownerTenantDeleted } from '../../kernel/errors'
import { createSession } from '../../kernel/session/create-session'
import { attemptSignIn } from '../sign-in/sign-in-limit'
import { findOwnerByEmail, recordOwnerSignIn } from './owner.repo'

/** Owner sessions last this long: long enough to read and decide, short enough not to linger. */
export const OWNER_SESSION_SECONDS = 30 * 60

/**
 * Checks an owner's email and password and opens a session. Null for any failure, with the same work done
 * whether or not the email exists (no owner enumeration). Every attempt is reserved before its password is checked
 * and counted unless it succeeds (SIGN_IN_LIMITS, scope `owner`, docs/protocol.md §2.11). An owner without a
 * password (invited, link not used yet) never signs in. A disabled owner is told so only after the right password.
 * With `grant` (the consent screen's sign-in), only an owner of the grant's tenant signs in (docs/protocol.md §2.21):
 * another tenant's owner is refused as an unknown email is, with the same work and the same count, whatever their
 * password and status, so the screen never tells that the account exists elsewhere.
 * An owner of a deleted tenant is likewise told only after the right password, and never signs in again.
 * @throws GnapError request_denied (429, retryAfterSeconds) when too many sign-ins failed or are being checked;
 *   request_denied (403, `ownerDisabled`) when the password is right but the account is disabled;
 *   request_denied (403, `ownerTenantDeleted`) when the password is right but the owner's tenant was deleted
 */
export async function signInOwner(
  deps: Deps,
  input: { email: string; password: string; ip?: string | null; grant?: { tenantId: string | null } },
): Promise<{ value: string; expiresAt: Date } | null> {
  const email = input.email.trim().toLowerCase().slice(0, 254)
  const password = input.password.slice(0, 256)
  const { grant } = input
  const find = async (db: Sql, address: string) => {
    const found = await findOwnerByEmail(db, address)
    return found && (!grant || sameTenant(deps, found, grant)) ? found : null
  }
  const owner = await attemptSignIn(deps, { scope: 'owner', email, password, ip: input.ip ?? null, find })
  if (!owner) return null
  if (owner.tenantDeleted) throw ownerTenantDeleted()
  if (owner.status !== 'active') throw ownerDisabled()
  const now = deps.clock()
  await recordOwnerSignIn(deps.sql, owner.id, now)
  return createSession(deps.sql, { kind: 'owner', subjectId: owner.id, ttlSeconds: OWNER_SESSION_SECONDS, now })
}
