import { GnapError, OWNER_TENANT_DELETED } from '@gnap/domain/kernel'
import { signInOwner } from '@gnap/domain/operator'
import { callerIp } from '../../../server/edge/caller-ip'
import { frontChannelRoute, seeOther } from '../../../server/edge/front-channel'
import { readForm } from '../../../server/edge/body'
import { accountSignInPage } from '../../../server/pages/account-pages'
import { setOwnerCookie } from '../../../server/edge/account-route'
import { formState, tooManySignIns } from '../../../server/pages/pages'
import { pages } from '../../../server/pages/message-pages'
import { isSameOriginPost } from '../../../server/edge/same-origin'

export const dynamic = 'force-dynamic'

// Sign-in to the account page: the consent screen's sign-in (same limits, same session), then back to /account.
// A sign-in another site posts is refused as the set-password form refuses one (docs/security.md): it would sign
// the browser in to the attacker's account, whose page then shows what the person does there.
export const POST = frontChannelRoute(async (deps, req) => {
  if (!isSameOriginPost(req, deps.config.authServerUrl)) return pages.crossSiteForm('Open your account page and sign in there.')
  const form = await readForm(req)
  let session: Awaited<ReturnType<typeof signInOwner>>
  try {
    session = await signInOwner(deps, { email: form.get('email') ?? '', password: form.get('password') ?? '', ip: callerIp(req, deps.config) })
  } catch (e) {
    // The right password for a disabled account, or one whose provider left this server (its tenant was deleted):
    // only now is the owner told (docs/protocol.md §2.13, §2.21).
    if (e instanceof GnapError && e.status === 403) {
      return accountSignInPage(
        formState.disabled(
          e.message === OWNER_TENANT_DELETED
            ? 'The provider of your wallet no longer uses this server for your account. Contact them for where to manage your grants now.'
            : 'This account is disabled. Contact the provider of your wallet to have it enabled again.',
        ),
      )
    }
    const limited = tooManySignIns(e)
    if (!limited) throw e
    return accountSignInPage(limited)
  }
  if (!session) return seeOther('/account?failed')
  return seeOther('/account', setOwnerCookie(deps, session.value))
})
