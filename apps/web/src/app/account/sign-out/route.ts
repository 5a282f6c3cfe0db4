import { signOutOfAccount } from '@gnap/domain/operator'
import { frontChannelRoute, seeOther } from '../../../server/edge/front-channel'
import { readForm } from '../../../server/edge/body'
import { ownerCookie, setOwnerCookie } from '../../../server/edge/account-route'
import { pages } from '../../../server/pages/message-pages'

export const dynamic = 'force-dynamic'

// Ends the owner's session (its CSRF token required: another site's form cannot sign an owner out).
export const POST = frontChannelRoute(async (deps, req) => {
  const form = await readForm(req)
  if (!(await signOutOfAccount(deps, ownerCookie(req), form.get('csrf')))) return pages.formRefused()
  return seeOther('/account', setOwnerCookie(deps, null))
})
