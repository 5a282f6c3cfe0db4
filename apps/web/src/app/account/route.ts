import { csrfTokenFor } from '@gnap/domain/kernel'
import { accountSession, listConnectedApps, ownerHistory } from '@gnap/domain/operator'
import { frontChannelRoute } from '../../server/edge/front-channel'
import { accountPage, accountSignInPage } from '../../server/pages/account-pages'
import { ownerCookie } from '../../server/edge/account-route'
import { formState } from '../../server/pages/pages'

export const dynamic = 'force-dynamic'

// The owner's own page: the apps holding live grants on their wallet addresses, recent activity, and their account.
export const GET = frontChannelRoute(async (deps, req) => {
  const cookie = ownerCookie(req)
  const session = await accountSession(deps, cookie)
  const query = new URL(req.url).searchParams
  if (!session || !cookie) return accountSignInPage(formState.shown(query.has('failed') ? 'The email or password is not right. Try again.' : null))
  const [apps, history] = await Promise.all([listConnectedApps(deps, session.owner.id), ownerHistory(deps, session.owner.id)])
  return accountPage({ owner: session.owner, apps, history, csrf: csrfTokenFor(cookie), notice: query.get('done') })
})
