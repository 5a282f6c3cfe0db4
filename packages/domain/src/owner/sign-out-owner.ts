import type { Deps } from '../deps'
import { csrfMatches } from '../session/csrf'
import { endSession } from '../session/end-session'
import { findSession } from '../session/find-session'

/**
 * The consent screen's Sign out: ends the owner's session when the form carries that session's CSRF token, and
 * does nothing otherwise (no session, another kind, a missing or foreign token). Throws nothing.
 */
export async function signOutOwner(deps: Deps, input: { sessionValue: string | null; csrf: string | null }): Promise<void> {
  const session = await findSession(deps.sql, 'owner', input.sessionValue, deps.clock())
  if (session && csrfMatches(session, input.csrf)) await endSession(deps.sql, input.sessionValue)
}
