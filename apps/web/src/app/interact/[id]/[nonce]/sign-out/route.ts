import { csrfMatches, endSession, findSession } from '@gnap/domain'
import { OWNER_COOKIE, frontChannelRoute, readCookie, readForm, seeOther } from '../../../../../server/front-channel'

export const dynamic = 'force-dynamic'

// Ends the owner's session (CSRF-checked) and goes back to the consent screen's sign-in.
export const POST = frontChannelRoute(async (deps, req) => {
  const value = readCookie(req, OWNER_COOKIE)
  const session = await findSession(deps.db, 'owner', value, deps.clock())
  const form = await readForm(req)
  if (session && csrfMatches(session, form.get('csrf'))) await endSession(deps.db, value)
  return seeOther('consent', `${OWNER_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`)
})
