import { adminFromSession, csrfMatches, type AdminIdentity, type Deps } from '@gnap/domain'

/** The admin session cookie: httpOnly, SameSite=Strict, Path=/ (console pages and /api/trpc), Secure over https. */
export const ADMIN_COOKIE = 'gnap_admin'
/** Mutations carry the session's CSRF token (from `auth.session` / `auth.signIn`) in this header. */
export const CSRF_HEADER = 'x-csrf-token'

/** How a procedure sets or clears the session cookie; the value never goes into a response body. */
export interface SessionCookieJar {
  set(value: string, expiresAt: Date): void
  clear(): void
}

export interface Context {
  deps: Deps
  /** The signed-in administrator, or null (no cookie, unknown, expired or owner session). */
  admin: AdminIdentity | null
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
    csrfOk: found !== null && csrfMatches(found, opts.csrfToken),
    session: found && opts.sessionValue ? { value: opts.sessionValue, expiresAt: found.expiresAt } : null,
    ip: opts.ip,
    cookies: opts.cookies ?? noCookies,
  }
}

/** The Set-Cookie value of the admin session, or of its removal (`value` null). */
export function adminCookie(deps: Deps, value: string | null, expiresAt?: Date): string {
  const secure = deps.config.authServerUrl.startsWith('https:') ? '; Secure' : ''
  const maxAge = value === null || !expiresAt ? 0 : Math.max(0, Math.floor((expiresAt.getTime() - deps.clock().getTime()) / 1000))
  return `${ADMIN_COOKIE}=${value ?? ''}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure}`
}

export function readCookie(cookieHeader: string | null, name: string): string | null {
  if (!cookieHeader) return null
  for (const part of cookieHeader.split(';')) {
    const [k, ...v] = part.trim().split('=')
    if (k === name) return v.join('=') || null
  }
  return null
}

/**
 * The context for tRPC's fetch adapter (`/api/trpc`): cookie and CSRF header from the request, Set-Cookie into
 * the response headers. `ip` is the caller's address as the app decides it (TRUST_PROXY).
 */
export function createFetchContext(opts: { deps: Deps; req: Request; resHeaders: Headers; ip: string | null }): Promise<Context> {
  return createContext({
    deps: opts.deps,
    sessionValue: readCookie(opts.req.headers.get('cookie'), ADMIN_COOKIE),
    csrfToken: opts.req.headers.get(CSRF_HEADER),
    ip: opts.ip,
    cookies: {
      set: (value, expiresAt) => opts.resHeaders.append('set-cookie', adminCookie(opts.deps, value, expiresAt)),
      clear: () => opts.resHeaders.append('set-cookie', adminCookie(opts.deps, null)),
    },
  })
}
