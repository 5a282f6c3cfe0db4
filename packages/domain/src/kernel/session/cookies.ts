import type { KernelDeps } from '../deps'

// Every cookie the server reads or sets: the one reader of Cookie headers and the one builder of Set-Cookie values.
// Each cookie holds a session value whose hash only is stored; httpOnly always, Secure over https.

/** Binds the owner's browser to one interaction; its path is that interaction's URLs. */
export const INTERACTION_COOKIE = 'gnap_interaction'
/** The resource owner's session on the built-in consent screen. */
export const OWNER_COOKIE = 'gnap_owner'
/** The administrator's session: console pages and /api/trpc. */
export const ADMIN_COOKIE = 'gnap_admin'

/** The value of cookie `name` in a Cookie header; null when absent or empty. */
export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=')
    if (k === name) return v.join('=') || null
  }
  return null
}

/**
 * A Set-Cookie value: httpOnly, Secure over https. SameSite=Lax where the browser arrives by a cross-site
 * navigation (the client's link, the identity provider's redirect back), Strict for the console. `value` null
 * removes the cookie.
 */
export function setCookie(
  deps: KernelDeps,
  cookie: { name: string; value: string | null; maxAgeSeconds?: number; path: string; sameSite: 'Lax' | 'Strict' },
): string {
  const secure = deps.config.authServerUrl.startsWith('https:') ? '; Secure' : ''
  const maxAge = cookie.value === null ? 0 : (cookie.maxAgeSeconds ?? 0)
  return `${cookie.name}=${cookie.value ?? ''}; Path=${cookie.path}; Max-Age=${maxAge}; HttpOnly; SameSite=${cookie.sameSite}${secure}`
}

/**
 * How the console's sign-in and sign-out set and clear the admin session cookie (@gnap/api's `SessionCookieJar`):
 * Set-Cookie values appended to the response headers.
 */
export function adminCookieJar(deps: KernelDeps, resHeaders: Headers): { set(value: string, expiresAt: Date): void; clear(): void } {
  const admin = (value: string | null, maxAgeSeconds?: number) =>
    resHeaders.append('set-cookie', setCookie(deps, { name: ADMIN_COOKIE, value, maxAgeSeconds, path: '/', sameSite: 'Strict' }))
  return {
    set: (value, expiresAt) => admin(value, Math.max(0, Math.floor((expiresAt.getTime() - deps.clock().getTime()) / 1000))),
    clear: () => admin(null),
  }
}
