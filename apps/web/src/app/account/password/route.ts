import { csrfTokenFor } from '@gnap/domain/kernel'
import { PASSWORD_LENGTH, accountFormIsGenuine, changeOwnerPassword } from '@gnap/domain/operator'
import { callerIp } from '../../../server/edge/caller-ip'
import { seeOther } from '../../../server/edge/front-channel'
import { readForm } from '../../../server/edge/body'
import { passwordPage } from '../../../server/pages/account-pages'
import { accountRoute, ownerCookie } from '../../../server/edge/account-route'
import { formState, tooManySignIns } from '../../../server/pages/pages'
import { pages } from '../../../server/pages/message-pages'

export const dynamic = 'force-dynamic'

export const GET = accountRoute(async (_deps, req) =>
  passwordPage({ csrf: csrfTokenFor(ownerCookie(req) ?? ''), minLength: PASSWORD_LENGTH.min }, formState.shown()),
)

// Current password (checked as a sign-in is), new password twice; the owner's other sessions end.
export const POST = accountRoute(async (deps, req, session) => {
  const form = await readForm(req)
  if (!accountFormIsGenuine(session, form.get('csrf'))) return pages.formRefused()
  const csrf = csrfTokenFor(ownerCookie(req) ?? '')
  try {
    const result = await changeOwnerPassword(deps, {
      ownerId: session.owner.id,
      sessionId: session.sessionId,
      currentPassword: form.get('current') ?? '',
      newPassword: form.get('new') ?? '',
      confirmPassword: form.get('confirm') ?? '',
      ip: callerIp(req, deps.config),
    })
    if (!result.ok) return passwordPage({ csrf, minLength: PASSWORD_LENGTH.min }, formState.invalid(result.problem, result.field))
  } catch (e) {
    const limited = tooManySignIns(e)
    if (!limited) throw e
    return passwordPage({ csrf, minLength: PASSWORD_LENGTH.min }, limited)
  }
  return seeOther('/account?done=password-changed')
})
