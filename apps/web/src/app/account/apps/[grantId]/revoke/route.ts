import { csrfTokenFor } from '@gnap/domain/kernel'
import { accountFormIsGenuine, findConnectedApp, revokeFromAccount } from '@gnap/domain/operator'
import { seeOther } from '../../../../../server/edge/front-channel'
import { readForm } from '../../../../../server/edge/body'
import { accountRoute, ownerCookie } from '../../../../../server/edge/account-route'
import { revokeConfirmPage } from '../../../../../server/pages/account-pages'
import { pages } from '../../../../../server/pages/message-pages'

export const dynamic = 'force-dynamic'

// The confirmation step: what the app will lose. Only for one of the signed-in owner's live grants.
export const GET = accountRoute(async (deps, req, session, params) => {
  const app = await findConnectedApp(deps, session.owner.id, params.grantId ?? '')
  if (!app) return pages.appNotFound()
  return revokeConfirmPage(app, csrfTokenFor(ownerCookie(req) ?? ''))
})

// The revocation itself: the console's revocation, the audit entry naming the owner.
export const POST = accountRoute(async (deps, req, session, params) => {
  const form = await readForm(req)
  if (!accountFormIsGenuine(session, form.get('csrf'))) return pages.formRefused()
  const outcome = await revokeFromAccount(deps, session.owner.id, params.grantId ?? '')
  if (outcome === 'not-found') return pages.appNotFound()
  return seeOther('/account?done=revoked')
})
