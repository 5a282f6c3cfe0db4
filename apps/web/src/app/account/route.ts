import { csrfTokenFor } from '@gnap/domain/kernel'
import { accountSession, listConnectedApps, ownerHistory } from '@gnap/domain/operator'
import { frontChannelRoute } from '../../server/front-channel'
import { accountPage, accountSignInPage } from '../../server/account-pages'
import { ownerCookie } from '../../server/account-route'

export const dynamic = 'force-dynamic'

// The owner's own page: the apps holding live grants on their wallet addresses, recent activity, and their account.
export const GET = frontChannelRoute(async (deps, req) => {
  const cookie = ownerCookie(req)
  const session = await accountSession(deps, cookie)
  const query = new URL(req.url).searchParams
  if (!session || !cookie) return accountSignInPage(query.has('failed') ? 'The email or password is not right. Try again.' : null)
  const [apps, history] = await Promise.all([listConnectedApps(deps, session.owner.id), ownerHistory(deps, session.owner.id)])
  return accountPage({ owner: session.owner, apps, history, csrf: csrfTokenFor(cookie), notice: query.get('done') })
})
