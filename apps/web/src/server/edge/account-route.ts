import { OWNER_COOKIE, readCookie, setCookie } from '@gnap/domain/kernel'
import { type Deps } from '@gnap/domain/protocol'
import { OWNER_SESSION_SECONDS, accountSession, type AccountSession } from '@gnap/domain/operator'
import { frontChannelRoute, seeOther } from './front-channel'

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
