import type { Deps } from '../../protocol/deps'
import { findSession } from '../../kernel/session/find-session'
import { findAdminById } from './admin.repo'
import type { AdminIdentity } from './admin-session'

interface AdminSession {
  admin: AdminIdentity
  /** Whether two-step sign-in is on for this administrator (docs/protocol.md §2.17). */
  totpEnabled: boolean
  expiresAt: Date
  /** For `csrfMatches`: the hash of the session's CSRF token. Server-side only. */
  csrfHash: string
}

/**
 * The administrator behind a session cookie value: null without a cookie, for an unknown, expired or owner
 * session, or when the administrator no longer exists. Throws nothing.
 */
export async function adminFromSession(deps: Deps, cookieValue: string | null): Promise<AdminSession | null> {
  const session = await findSession(deps.sql, 'admin', cookieValue, deps.clock())
  if (!session) return null
  const admin = await findAdminById(deps.sql, session.subjectId)
  if (!admin) return null
  const { totpEnabled, ...identity } = admin
  return { admin: identity, totpEnabled, expiresAt: session.expiresAt, csrfHash: session.csrfHash }
}
