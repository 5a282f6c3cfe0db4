import { csrfTokenFor } from '@gnap/domain/kernel'
import { accountSession, listConnectedApps, listUnapprovedClients, ownerHistory } from '@gnap/domain/operator'
import { frontChannelRoute } from '../../server/edge/front-channel'
import { accountPage, accountSignInPage } from '../../server/pages/account-pages'
import { ownerCookie } from '../../server/edge/account-route'
import { formState } from '../../server/pages/pages'

export const dynamic = 'force-dynamic'

// The owner's own page: the apps they approved, the grants nobody approved counted per app, recent activity, and
// their account. `apps` and `clients` are where each list's page starts.
export const GET = frontChannelRoute(async (deps, req) => {
  const cookie = ownerCookie(req)
  const session = await accountSession(deps, cookie)
  const query = new URL(req.url).searchParams
  if (!session || !cookie) return accountSignInPage(formState.shown(query.has('failed') ? 'The email or password is not right. Try again.' : null))
  const pages = { apps: Number(query.get('apps') ?? 0), clients: Number(query.get('clients') ?? 0) }
  const [apps, unapproved, history] = await Promise.all([
    listConnectedApps(deps, session.owner.id, pages.apps),
    listUnapprovedClients(deps, session.owner.id, pages.clients),
    ownerHistory(deps, session.owner.id),
  ])
  return accountPage({ owner: session.owner, apps, unapproved, pages, history, csrf: csrfTokenFor(cookie), notice: query.get('done') })
})
