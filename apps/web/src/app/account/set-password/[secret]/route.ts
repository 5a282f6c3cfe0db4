import { checkOwnerLink, hitRateLimit, LINK_PROBLEM_TEXT, setPasswordWithLink, type Deps, type LinkProblem } from '@gnap/domain'
import { callerIp } from '../../../../server/caller-ip'
import { frontChannelRoute, readForm } from '../../../../server/front-channel'
import { messagePage } from '../../../../server/pages'
import { isSameOriginPost } from '../../../../server/same-origin'
import { setPasswordPage } from '../../../../server/set-password-page'

export const dynamic = 'force-dynamic'

// An owner's one-time link to set their password: an invitation or a reset (docs/protocol.md §7).

/** Posts per caller IP (or, without TRUST_PROXY, all together) in ten minutes: secrets are 256-bit, this only keeps guessing slow. */
const SET_PASSWORD_POSTS = { perIp: 20, shared: 600, windowSeconds: 600 } as const

const STATUS: Record<LinkProblem, number> = { unknown: 404, used: 410, expired: 410, disabled: 403 }

const linkProblemPage = (problem: LinkProblem) => messagePage(STATUS[problem], LINK_PROBLEM_TEXT[problem].title, LINK_PROBLEM_TEXT[problem].message)

export const GET = frontChannelRoute(async (deps, _req, params) => {
  const state = await checkOwnerLink(deps, params.secret ?? '')
  if (state.kind === 'problem') return linkProblemPage(state.problem)
  return setPasswordPage({ ownerName: state.ownerName, invitation: state.linkKind === 'invitation', error: null })
})

export const POST = frontChannelRoute(async (deps, req, params) => {
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
    secret: params.secret ?? '',
    password: form.get('password') ?? '',
    confirm: form.get('confirm') ?? '',
  })
  switch (result.kind) {
    case 'problem':
      return linkProblemPage(result.problem)
    case 'refused':
      return setPasswordPage({ ownerName: result.ownerName, invitation: result.linkKind === 'invitation', error: result.reason, status: 400 })
    case 'done':
      return messagePage(200, 'Password set', 'Password set — you can now sign in with your email address and this password.', {
        href: `${deps.config.authServerUrl}account`,
        text: 'Go to your account',
      })
  }
})

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
  return hit.allowed ? null : hit.retryAfterSeconds
}
