import { csrfTokenFor } from '@gnap/domain/kernel'
import { accountFormIsGenuine, findUnapprovedClient, revokeClientFromAccount } from '@gnap/domain/operator'
import { seeOther } from '../../../../server/edge/front-channel'
import { readForm } from '../../../../server/edge/body'
import { accountRoute, ownerCookie } from '../../../../server/edge/account-route'
import { isSameOriginPost } from '../../../../server/edge/same-origin'
import { revokeClientConfirmPage } from '../../../../server/pages/account-pages'
import { pages } from '../../../../server/pages/message-pages'

export const dynamic = 'force-dynamic'

// Every grant of one client that the signed-in owner never approved (docs/protocol.md §2.12): `?client=` names the
// client's wallet address (or key thumbprint URI) as the page lists it.
export const GET = accountRoute(async (deps, req, session) => {
  const client = await findUnapprovedClient(deps, session.owner.id, new URL(req.url).searchParams.get('client') ?? '')
  if (!client) return pages.appNotFound()
  return revokeClientConfirmPage(client, csrfTokenFor(ownerCookie(req) ?? ''))
})

// The revocation: only the owner's own grants of that client that nobody approved, whatever client is posted.
export const POST = accountRoute(async (deps, req, session) => {
  if (!isSameOriginPost(req, deps.config.authServerUrl)) return pages.crossSiteForm('Open your account page and revoke there.')
  const form = await readForm(req)
  if (!accountFormIsGenuine(session, form.get('csrf'))) return pages.formRefused()
  const revoked = await revokeClientFromAccount(deps, session.owner.id, form.get('client') ?? '')
  if (revoked === 0) return pages.appNotFound()
  return seeOther('/account?done=client-revoked')
})
