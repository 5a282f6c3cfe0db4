import type { Deps } from '../../protocol/deps'
import type { FrontChannelResult } from '../../protocol/interaction/front-channel'
import { OWNER_PAGES, stepPage } from '../../protocol/interaction/interaction-steps'
import { hashSecret } from '../../kernel/secrets'
import { csrfMatches, csrfTokenFor } from '../../kernel/session/csrf'
import { endSession } from '../../kernel/session/end-session'

/**
 * The consent screen's Sign out (docs/protocol.md §2.11): needs the owner cookie and the CSRF token derived from it.
 * Then ends the session (if it is still live) and answers null: the caller clears the cookie. Otherwise a 403 page
 * and nothing changes, the cookie included: another site's form, which carries neither, cannot sign an owner out.
 */
export async function signOutOwner(deps: Deps, input: { sessionValue: string | null; csrf: string | null }): Promise<FrontChannelResult | null> {
  const value = input.sessionValue
  if (!value || value.length > 128 || !csrfMatches({ csrfHash: hashSecret(csrfTokenFor(value)) }, input.csrf)) {
    return stepPage(OWNER_PAGES.formRefused)
  }
  await endSession(deps.sql, value)
  return null
}
