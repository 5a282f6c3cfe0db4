import { PASSWORD_LENGTH, accountFormIsGenuine, changeOwnerPassword, csrfTokenFor } from '@gnap/domain'
import { callerIp } from '../../../server/caller-ip'
import { readForm, seeOther } from '../../../server/front-channel'
import { passwordPage } from '../../../server/account-pages'
import { accountRoute, formRefused, ownerCookie, tooManySignIns } from '../../../server/account-route'

export const dynamic = 'force-dynamic'

export const GET = accountRoute(async (_deps, req) =>
  passwordPage({ csrf: csrfTokenFor(ownerCookie(req) ?? ''), error: null, minLength: PASSWORD_LENGTH.min }),
)

// Current password (checked as a sign-in is), new password twice; the owner's other sessions end.
export const POST = accountRoute(async (deps, req, session) => {
  const form = await readForm(req)
  if (!accountFormIsGenuine(session, form.get('csrf'))) return formRefused()
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
    if (!result.ok) return passwordPage({ csrf, error: { text: result.problem, field: result.field }, minLength: PASSWORD_LENGTH.min }, 400)
  } catch (e) {
    const limited = tooManySignIns(e)
    if (!limited) throw e
    return passwordPage({ csrf, error: { text: limited.message, field: null }, minLength: PASSWORD_LENGTH.min }, 429, limited.headers)
  }
  return seeOther('/account?done=password-changed')
})
