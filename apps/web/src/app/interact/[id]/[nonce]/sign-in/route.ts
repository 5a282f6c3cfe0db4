import { GnapError, INTERACTION_COOKIE, OWNER_COOKIE, readCookie, setCookie } from '@gnap/domain/kernel'
import { accountDisabledPage, getConsentScreen } from '@gnap/domain/protocol'
import { OWNER_SESSION_SECONDS, signInOwner } from '@gnap/domain/operator'
import { callerIp } from '../../../../../server/edge/caller-ip'
import { signInPage, tooManySignIns } from '../../../../../server/pages/pages'
import { frontChannelRoute, render, seeOther } from '../../../../../server/edge/front-channel'
import { readForm } from '../../../../../server/edge/body'

export const dynamic = 'force-dynamic'

// The consent screen's sign-in form. Only inside a live interaction of this browser; a wrong email, a wrong
// password and another tenant's owner get the same answer.
export const POST = frontChannelRoute(async (deps, req, params) => {
  const input = {
    interactionId: params.id ?? '',
    nonce: params.nonce ?? '',
    interactionSession: readCookie(req.headers.get('cookie'), INTERACTION_COOKIE),
    ownerSession: null,
  }
  const screen = await getConsentScreen(deps, input)
  // Without an owner session the screen is the sign-in form or a message (unknown, expired, handled...).
  if (screen.kind === 'consent' || screen.kind === 'not-yours') return seeOther('consent')
  if (screen.kind !== 'sign-in') return render(deps, req, params, screen)
  const form = await readForm(req)
  let session: Awaited<ReturnType<typeof signInOwner>>
  try {
    session = await signInOwner(deps, {
      email: form.get('email') ?? '',
      password: form.get('password') ?? '',
      ip: callerIp(req, deps.config),
      // Only the grant's tenant's owners sign in on its consent screen (docs/protocol.md §2.21).
      grant: screen.grant,
    })
  } catch (e) {
    // The right password for a disabled account: only now is the owner told (docs/protocol.md §2.13).
    if (e instanceof GnapError && e.status === 403) return render(deps, req, params, accountDisabledPage())
    const limited = tooManySignIns(e)
    if (!limited) throw e
    return signInPage(screen.client, limited)
  }
  if (!session) return seeOther('consent?failed')
  return seeOther(
    'consent',
    setCookie(deps, { name: OWNER_COOKIE, value: session.value, maxAgeSeconds: OWNER_SESSION_SECONDS, path: '/', sameSite: 'Lax' }),
  )
})
