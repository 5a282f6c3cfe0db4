import { actorOfAdmin, adminFromSession, csrfMatches, type AdminIdentity, type ConsoleActor, type Deps } from '@gnap/domain'

/** Mutations carry the session's CSRF token (from `auth.session` / `auth.signIn`) in this header. */
export const CSRF_HEADER = 'x-csrf-token'

/**
 * How a procedure sets or clears the admin session cookie; the value never goes into a response body. The app
 * that mounts the router reads the cookie and writes Set-Cookie with the domain's cookie module (`readCookie`, `adminCookieJar`).
 */
export interface SessionCookieJar {
  set(value: string, expiresAt: Date): void
  clear(): void
}

export interface Context {
  deps: Deps
  /** The signed-in administrator, or null (no cookie, unknown, expired or owner session). */
  admin: AdminIdentity | null
  /** Who calls, with their role (docs/protocol.md §2.14): the signed-in administrator, or null. */
  actor: ConsoleActor | null
  /**
   * ADMIN_REQUIRE_TOTP is on and the signed-in administrator has not enrolled two-step sign-in: their session may
   * only enrol, see itself and sign out (docs/protocol.md §2.17).
   */
  mustEnrol: boolean
  /** Whether the request carried the CSRF token of this admin session. */
  csrfOk: boolean
  /** The admin session (cookie value and expiry), server-side only: for sign-out and the CSRF token. */
  session: { value: string; expiresAt: Date } | null
  /** The caller's address for sign-in limits; null when unknown (no trusted proxy). */
  ip: string | null
  cookies: SessionCookieJar
}

export interface CreateContextOptions {
  deps: Deps
  /** The admin cookie's value, if any. */
  sessionValue: string | null
  /** The CSRF header's value, if any. */
  csrfToken: string | null
  ip: string | null
  /** Where sign-in and sign-out put the cookie; server components that never sign in may leave it out. */
  cookies?: SessionCookieJar
}

const noCookies: SessionCookieJar = {
  set() {
    throw new Error('this context cannot set cookies')
  },
  clear() {
    throw new Error('this context cannot set cookies')
  },
}

/** The context of one call: resolves the admin session and checks the CSRF token against it. */
export async function createContext(opts: CreateContextOptions): Promise<Context> {
  const found = await adminFromSession(opts.deps, opts.sessionValue)
  return {
    deps: opts.deps,
    admin: found?.admin ?? null,
    actor: found ? actorOfAdmin(found.admin) : null,
    mustEnrol: found !== null && opts.deps.config.requireAdminTotp && !found.totpEnabled,
    csrfOk: found !== null && csrfMatches(found, opts.csrfToken),
    session: found && opts.sessionValue ? { value: opts.sessionValue, expiresAt: found.expiresAt } : null,
    ip: opts.ip,
    cookies: opts.cookies ?? noCookies,
  }
}
