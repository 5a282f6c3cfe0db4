import { checkPasswordLink, hitRateLimit, LINK_PROBLEM_TEXT, setPasswordWithLink, type Deps, type LinkProblem, type LinkSubject } from '@gnap/domain'
import { callerIp } from './caller-ip'
import { frontChannelRoute, readForm } from './front-channel'
import { messagePage } from './pages'
import { isSameOriginPost } from './same-origin'
import { setPasswordPage } from './set-password-page'

// A one-time link to set a password: an invitation or a reset, of an owner (docs/protocol.md §7) or an
// administrator (§2.14). GET shows the form, POST sets the password.

/** Posts per caller IP (or, without TRUST_PROXY, all together) in ten minutes: secrets are 256-bit, this only keeps guessing slow. */
const SET_PASSWORD_POSTS = { perIp: 20, shared: 600, windowSeconds: 600 } as const

const STATUS: Record<LinkProblem, number> = { unknown: 404, used: 410, expired: 410, disabled: 403 }

const linkProblemPage = (problem: LinkProblem) => messagePage(STATUS[problem], LINK_PROBLEM_TEXT[problem].title, LINK_PROBLEM_TEXT[problem].message)

/** The GET and POST handlers of one kind of account's set-password page; `next` is where the done page points. */
export function setPasswordRoute(subject: LinkSubject, next: { path: string; text: string }) {
  const GET = frontChannelRoute(async (deps, _req, params) => {
    const state = await checkPasswordLink(deps, subject, params.secret ?? '')
    if (state.kind === 'problem') return linkProblemPage(state.problem)
    return setPasswordPage({ accountName: state.accountName, invitation: state.linkKind === 'invitation', error: null })
  })

  const POST = frontChannelRoute(async (deps, req, params) => {
    if (!isSameOriginPost(req, deps.config.authServerUrl)) {
      return messagePage(403, 'Form refused', 'This form was sent from another site. Open your link again and set your password there.')
    }
    const limited = await overLimit(deps, req)
    if (limited !== null) {
      return messagePage(429, 'Too many attempts', 'Too many attempts from your network. Wait ten minutes, then open your link again.', undefined, {
        'retry-after': String(limited),
      })
    }
    const form = await readForm(req)
    const result = await setPasswordWithLink(deps, {
      subject,
      secret: params.secret ?? '',
      password: form.get('password') ?? '',
      confirm: form.get('confirm') ?? '',
    })
    switch (result.kind) {
      case 'problem':
        return linkProblemPage(result.problem)
      case 'refused':
        return setPasswordPage({
          accountName: result.accountName,
          invitation: result.linkKind === 'invitation',
          error: { text: result.reason, field: result.field },
          status: 400,
        })
      case 'done':
        return messagePage(200, 'Password set', 'Password set — you can now sign in with your email address and this password.', {
          href: `${deps.config.authServerUrl}${next.path}`,
          text: next.text,
        })
    }
  })

  return { GET, POST }
}

/** Seconds until another post is allowed, or null when this one is within the limit. */
async function overLimit(deps: Deps, req: Request): Promise<number | null> {
  const ip = callerIp(req, deps.config)
  const hit = await hitRateLimit(
    deps.sql,
    ip === null ? 'set-password:all' : `set-password:ip:${ip}`,
    ip === null ? SET_PASSWORD_POSTS.shared : SET_PASSWORD_POSTS.perIp,
    SET_PASSWORD_POSTS.windowSeconds,
    deps.clock(),
  )
  if (hit.allowed) return null
  deps.metrics.rateLimited('set_password')
  return hit.retryAfterSeconds
}
