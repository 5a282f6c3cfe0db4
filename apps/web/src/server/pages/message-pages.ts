import { type FrontChannelResult } from '@gnap/domain/protocol'
import { LINK_PROBLEM_TEXT, type LinkProblem } from '@gnap/domain/operator'
import { messagePage } from './pages'

// Every message page a person may see outside the consent screen's forms, by name: the status of each lives here,
// never at a call site. The interaction steps' pages carry the status the domain's table gave them
// (packages/domain/src/protocol/interaction/interaction-steps.ts).

/** A one-time password link that cannot be used (docs/protocol.md §7): unknown, used, expired or its account disabled. */
const LINK_PROBLEM_STATUS: Readonly<Record<LinkProblem, number>> = { unknown: 404, used: 410, expired: 410, disabled: 403 }

/** A link onwards from a page. */
type PageLink = { href: string; text: string }

const FAILED = ['Something went wrong', 'The request could not be completed. Please try again later.'] as const

export const pages = {
  /** A page an interaction step decided (INTERACTION_STEPS, OWNER_PAGES), with its status. */
  step: (result: Extract<FrontChannelResult, { kind: 'page' }>) => messagePage(result.status, result.title, result.message, result.link),
  /** The interaction is done; the person returns to the app (202: nothing more happens here). */
  done: (message: string, link?: PageLink) => messagePage(202, 'Done', message, link),
  /** An unexpected failure (the cause is logged, never shown). */
  failed: () => messagePage(500, ...FAILED),
  /** The database is unreachable for now (docs/protocol.md §9). */
  unavailable: () => messagePage(503, ...FAILED),
  /** An account form without its session's CSRF token: nothing was done. */
  formRefused: () =>
    messagePage(403, 'Request refused', 'This form could not be verified, so nothing was changed. Go back to your account page and try again.'),
  /** A form another site posted (isSameOriginPost refused it): nothing was done; `instead` says what to do. */
  crossSiteForm: (instead: string) => messagePage(403, 'Form refused', `This form was sent from another site. ${instead}`),
  /** Too many set-password posts from the caller's network (SET_PASSWORD_LIMITS); Retry-After says when to try again. */
  tooManyRequests: (retryAfterSeconds: number) =>
    messagePage(429, 'Too many attempts', 'Too many attempts from your network. Wait ten minutes, then open your link again.', undefined, {
      'retry-after': String(retryAfterSeconds),
    }),
  linkProblem: (problem: LinkProblem) =>
    messagePage(LINK_PROBLEM_STATUS[problem], LINK_PROBLEM_TEXT[problem].title, LINK_PROBLEM_TEXT[problem].message),
  passwordSet: (next: PageLink) =>
    messagePage(200, 'Password set', 'Password set — you can now sign in with your email address and this password.', next),
  /** A revocation link naming none of the signed-in owner's live grants. */
  appNotFound: () =>
    messagePage(404, 'App not found', 'None of the apps connected to your wallet has this address. It may already have lost its access.'),
}
