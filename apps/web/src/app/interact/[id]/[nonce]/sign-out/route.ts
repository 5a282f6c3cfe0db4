import { signOutOwner, OWNER_COOKIE, readCookie, setCookie } from '@gnap/domain'
import { frontChannelRoute, readForm, seeOther } from '../../../../../server/front-channel'

export const dynamic = 'force-dynamic'

// Ends the owner's session (CSRF-checked) and goes back to the consent screen's sign-in.
export const POST = frontChannelRoute(async (deps, req) => {
  const form = await readForm(req)
  await signOutOwner(deps, { sessionValue: readCookie(req.headers.get('cookie'), OWNER_COOKIE), csrf: form.get('csrf') })
  return seeOther('consent', setCookie(deps, { name: OWNER_COOKIE, value: null, path: '/', sameSite: 'Lax' }))
})
