import { GnapError, OWNER_COOKIE, OWNER_SESSION_SECONDS, accountSession, readCookie, setCookie, type AccountSession, type Deps } from '@gnap/domain'
import { frontChannelRoute, seeOther } from './front-channel'
import { messagePage } from '../pages/pages'

// What the /account routes share (docs/protocol.md §2.12): the owner session is the consent screen's (cookie
// OWNER_COOKIE, path /, HttpOnly, SameSite=Lax, Secure on https), so one sign-in serves both.

/** The owner's session cookie value of a request. */
export const ownerCookie = (req: Request): string | null => readCookie(req.headers.get('cookie'), OWNER_COOKIE)

export const setOwnerCookie = (deps: Deps, value: string | null) =>
  setCookie(deps, { name: OWNER_COOKIE, value, maxAgeSeconds: OWNER_SESSION_SECONDS, path: '/', sameSite: 'Lax' })

/** A route for a signed-in owner: without a live owner session, the browser goes to /account to sign in. */
export function accountRoute(handler: (deps: Deps, req: Request, session: AccountSession, params: Record<string, string>) => Promise<Response>) {
  return frontChannelRoute(async (deps, req, params) => {
    const session = await accountSession(deps, ownerCookie(req))
    if (!session) return seeOther('/account')
    return handler(deps, req, session, params)
  })
}

/** The page for a form without its session's CSRF token: nothing was done. */
export const formRefused = () =>
  messagePage(403, 'Request refused', 'This form could not be verified, so nothing was changed. Go back to your account page and try again.')

/** Words and headers for a sign-in or password check refused by the sign-in limits (a 429 GnapError). */
export function tooManySignIns(e: unknown): { message: string; headers: Record<string, string> } | null {
  if (!(e instanceof GnapError) || e.status !== 429) return null
  const wait = e.retryAfterSeconds ?? 60
  const message = wait < 60 ? `Too many sign-ins right now. Try again in ${wait} s.` : 'Too many failed sign-ins. Wait a few minutes, then try again.'
  return { message, headers: { 'retry-after': String(wait) } }
}
