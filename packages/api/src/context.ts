import { csrfMatches } from '@gnap/domain/kernel'
import { type Deps } from '@gnap/domain/protocol'
import { actorOfAdmin, adminFromSession, findApiKeyCaller, type AdminIdentity, type ApiKeyCaller, type ConsoleActor } from '@gnap/domain/operator'

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
  /** Who calls, with their role (docs/protocol.md §2.14): the signed-in administrator, an API key, or null. */
  actor: ConsoleActor | null
  /**
   * ADMIN_REQUIRE_TOTP is on and the signed-in administrator has not enrolled two-step sign-in: their session may
   * only enrol, see itself and sign out (docs/protocol.md §2.17).
   */
  mustEnrol: boolean
  /** The API key of a bearer call (docs/protocol.md §2.18), or null: for its rate limit and last use. */
  apiKey: ApiKeyCaller | null
  /**
   * Why the request's credentials are refused before any procedure runs: a bearer that is no live key, or a
   * request carrying both a session cookie and a bearer. Null when they are fine (or absent).
   */
  credentialProblem: CredentialProblem | null
  /** Whether the request carried the CSRF token of this admin session. */
  csrfOk: boolean
  /** The admin session (cookie value and expiry), server-side only: for sign-out and the CSRF token. */
  session: { value: string; expiresAt: Date } | null
  /** The caller's address for sign-in limits; null when unknown (no trusted proxy). */
  ip: string | null
  cookies: SessionCookieJar
}

/** `both`: a cookie and a bearer (RFC 6750 §3.1: one method per request); `key`: a bearer that is no live key. */
export type CredentialProblem = 'both' | 'key'

export interface CreateContextOptions {
  deps: Deps
  /** The admin cookie's value, if any. */
  sessionValue: string | null
  /** The Authorization header's value, if any: `Bearer <API key>` (docs/protocol.md §2.18). */
  authorization?: string | null
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

/** `Bearer <token>` (RFC 6750 §2.1); other schemes (a proxy's Basic) are not ours and are ignored. */
const BEARER_SCHEME = /^Bearer(\s|$)/i
const BEARER = /^Bearer +(\S+) *$/i

/**
 * The context of one call: resolves the admin session and checks the CSRF token against it, or resolves the API
 * key of `Authorization: Bearer` (docs/protocol.md §2.18). The two never mix: a cookie is looked up only among
 * sessions and a bearer only among keys, and a request that carries both is refused whole.
 */
export async function createContext(opts: CreateContextOptions): Promise<Context> {
  const base = { deps: opts.deps, ip: opts.ip, cookies: opts.cookies ?? noCookies }
  const authorization = opts.authorization ?? null
  if (authorization !== null && BEARER_SCHEME.test(authorization)) {
    const noCaller = { ...base, admin: null, actor: null, apiKey: null, csrfOk: false, session: null, mustEnrol: false }
    if (opts.sessionValue !== null) return { ...noCaller, credentialProblem: 'both' }
    const bearer = BEARER.exec(authorization)?.[1]
    const apiKey = bearer ? await findApiKeyCaller(opts.deps, bearer) : null
    if (!apiKey) return { ...noCaller, credentialProblem: 'key' }
    return { ...noCaller, actor: apiKey.actor, apiKey, credentialProblem: null }
  }
  const found = await adminFromSession(opts.deps, opts.sessionValue)
  return {
    deps: opts.deps,
    admin: found?.admin ?? null,
    actor: found ? actorOfAdmin(found.admin) : null,
    mustEnrol: found !== null && opts.deps.config.requireAdminTotp && !found.totpEnabled,
    apiKey: null,
    credentialProblem: null,
    csrfOk: found !== null && csrfMatches(found, opts.csrfToken),
    session: found && opts.sessionValue ? { value: opts.sessionValue, expiresAt: found.expiresAt } : null,
    ip: opts.ip,
    cookies: opts.cookies ?? noCookies,
  }
}
