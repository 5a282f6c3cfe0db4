import { admitSetPasswordPost, checkPasswordLink, setPasswordWithLink, type LinkSubject } from '@gnap/domain/operator'
import { callerIp } from './caller-ip'
import { frontChannelRoute } from './front-channel'
import { readForm } from './body'
import { pages } from '../pages/message-pages'
import { formState } from '../pages/pages'
import { isSameOriginPost } from './same-origin'
import { setPasswordPage } from '../pages/set-password-page'

// A one-time link to set a password: an invitation or a reset, of an owner (docs/protocol.md §7) or an
// administrator (§2.14). GET shows the form, POST sets the password.

/** The GET and POST handlers of one kind of account's set-password page; `next` is where the done page points. */
export function setPasswordRoute(subject: LinkSubject, next: { path: string; text: string }) {
  const GET = frontChannelRoute(async (deps, _req, params) => {
    const state = await checkPasswordLink(deps, subject, params.secret ?? '')
    if (state.kind === 'problem') return pages.linkProblem(state.problem)
    return setPasswordPage({ accountName: state.accountName, invitation: state.linkKind === 'invitation' }, formState.shown())
  })

  const POST = frontChannelRoute(async (deps, req, params) => {
    if (!isSameOriginPost(req, deps.config.authServerUrl)) return pages.crossSiteForm('Open your link again and set your password there.')
    const limited = await admitSetPasswordPost(deps, callerIp(req, deps.config))
    if (limited !== null) return pages.tooManyRequests(limited)
    const form = await readForm(req)
    const result = await setPasswordWithLink(deps, {
      subject,
      secret: params.secret ?? '',
      password: form.get('password') ?? '',
      confirm: form.get('confirm') ?? '',
    })
    switch (result.kind) {
      case 'problem':
        return pages.linkProblem(result.problem)
      case 'refused':
        return setPasswordPage(
          { accountName: result.accountName, invitation: result.linkKind === 'invitation' },
          formState.invalid(result.reason, result.field),
        )
      case 'done':
        return pages.passwordSet({ href: `${deps.config.authServerUrl}${next.path}`, text: next.text })
    }
  })

  return { GET, POST }
}
