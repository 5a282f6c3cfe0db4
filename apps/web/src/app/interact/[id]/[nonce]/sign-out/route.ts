import { OWNER_COOKIE, readCookie, setCookie } from '@gnap/domain/kernel'
import { signOutOwner } from '@gnap/domain/operator'
import { frontChannelRoute, seeOther } from '../../../../../server/edge/front-channel'
import { readForm } from '../../../../../server/edge/body'

export const dynamic = 'force-dynamic'

// Ends the owner's session and goes back to the consent screen's sign-in. Without the session's CSRF token: a 403
// page, and the cookie stays.
export const POST = frontChannelRoute(async (deps, req) => {
  const form = await readForm(req)
  const refused = await signOutOwner(deps, { sessionValue: readCookie(req.headers.get('cookie'), OWNER_COOKIE), csrf: form.get('csrf') })
  if (refused) return refused
  return seeOther('consent', setCookie(deps, { name: OWNER_COOKIE, value: null, path: '/', sameSite: 'Lax' }))
})
