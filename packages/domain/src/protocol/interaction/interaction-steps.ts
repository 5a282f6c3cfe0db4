import type { Deps } from '../deps'
import type { GnapErrorCode } from '../../kernel/errors'
import { serverUrl } from '../../kernel/config/config'
import { isExpiredGrant, isInteractionSession } from '../grant/grant-state'
import type { InteractionWithGrant } from './interaction.repo'
import { findInteractionForStep } from './find-interaction'
import { page, withQuery, type FrontChannelResult, type PageLink } from './front-channel'

// The steps the owner's browser takes through an interaction (docs/protocol.md §2.7, §2.8, §2.11): start
// (GET /interact/{id}/{nonce}), the consent screen (GET …/consent and its sign-in), the decision (POST …/decision)
// and finish (GET …/finish). This file alone decides what each step answers when the interaction is not in the state
// the step needs: the table below, one row per step, one entry per outcome. The pages are shown to people or sent
// as GNAP error JSON, as the caller's Accept prefers (docs/protocol.md §2.8 "Pages or JSON").

export type InteractionStep = 'start' | 'consent' | 'decision' | 'finish'

/** A page: its HTTP status, the GNAP error code of its JSON form, and its words. */
export interface StepPage {
  status: number
  code: GnapErrorCode
  title: string
  message: string
}

/**
 * Back to the client: the browser that started the interaction goes to the client's finish URI with `query`; any
 * other browser, or a grant without a finish URI, gets `page` (linking to the finish URI when there is one), so a stale
 * interaction link cannot be used as an open redirect (docs/protocol.md §2.7).
 */
interface BackToClient {
  query: Record<string, string>
  page: StepPage
}

/** `go`: the step goes on; `to-finish`: the browser goes to the interaction's finish step. */
type StepAnswer = StepPage | BackToClient | 'go' | 'to-finish'

interface StepTable {
  /** No interaction with this id and nonce: an unknown id and a wrong nonce are the same outcome. */
  unknown: StepPage
  /** Not the browser that started it (no interaction session, or another one's); `go` where the step does not check. */
  wrongSession: StepPage | 'go'
  /** Already finished, or its grant finalized (cancelled, revoked) other than by expiry: the link is used up. */
  handled: StepPage
  /** Its time ran out: the grant is finalized as expired (docs/protocol.md §3). */
  expired: BackToClient
  /** Approved or denied, not yet finished. */
  decided: StepAnswer
  /** Awaiting the owner's decision. */
  pending: StepAnswer
}

const step = (status: number, code: GnapErrorCode, title: string, message: string): StepPage => ({ status, code, title, message })

const UNKNOWN = step(
  400,
  'unknown_interaction',
  'Unknown request',
  'This authorization link is not valid. Go back to the app that sent you here and start again.',
)
const HANDLED = step(
  403,
  'invalid_interaction',
  'Request already handled',
  'This request has already been completed or cancelled. There is nothing left to do here.',
)
const expired = (status: number): BackToClient => ({
  query: { result: 'invalid_interaction', message: 'interaction expired' },
  page: step(status, 'invalid_interaction', 'Request expired', 'This request has expired. Go back to the app and start again.'),
})

/** The consent screen's and the decision's row: both need this browser's session and a pending interaction. */
const CONSENT: StepTable = {
  unknown: UNKNOWN,
  wrongSession: step(
    401,
    'invalid_request',
    'Invalid session',
    'This page must be opened from the link the app gave you, in the same browser. Go back to the app and start again.',
  ),
  handled: HANDLED,
  expired: expired(403),
  // Decided but the browser never reached the finish step (a reload, a double click): finish it now.
  decided: 'to-finish',
  pending: 'go',
}

/** What each step answers for each outcome. */
export const INTERACTION_STEPS: Readonly<Record<InteractionStep, Readonly<StepTable>>> = {
  // Start binds this browser's session to the interaction, so it does not check one; it only says whether to go back.
  start: {
    unknown: UNKNOWN,
    wrongSession: 'go',
    handled: HANDLED,
    expired: expired(403),
    decided: {
      query: { result: 'invalid_interaction', message: 'interaction already decided' },
      page: step(403, 'invalid_interaction', 'Request already decided', 'You have already answered this request.'),
    },
    pending: 'go',
  },
  consent: CONSENT,
  decision: CONSENT,
  // Finish is the identity provider's way back (id-provider.yaml get-finish-interaction): a finished link is unknown.
  finish: {
    unknown: step(404, 'unknown_interaction', 'Unknown request', 'This authorization link is not valid.'),
    wrongSession: step(
      401,
      'invalid_request',
      'Invalid session',
      'This page must be opened in the browser that started the request. Go back to the app and start again.',
    ),
    handled: step(404, 'unknown_interaction', 'Request already handled', 'This request has already been completed or cancelled.'),
    expired: expired(401),
    decided: 'go',
    pending: {
      query: { result: 'grant_invalid' },
      page: step(
        401,
        'invalid_interaction',
        'Request not answered',
        'This request has not been approved or denied yet: the interaction is not active.',
      ),
    },
  },
}

/**
 * What the consent screen and the decision answer about the signed-in owner and the form (docs/protocol.md §2.11,
 * §2.13), once the interaction passed its step's checks.
 */
export const OWNER_PAGES = {
  /** A disabled owner can decide nothing. */
  disabled: step(
    403,
    'request_denied',
    'Account disabled',
    'This account is disabled, so it cannot approve or deny this request. Contact the provider of your wallet to have it enabled again.',
  ),
  signedOut: step(401, 'invalid_request', 'Signed out', 'Your session has ended. Go back to the request and sign in again.'),
  /** A form without its session's CSRF token (the decision, the consent screen's sign-out): nothing was done. */
  formRefused: step(403, 'invalid_request', 'Request refused', 'This form could not be verified. Go back to the request and try again.'),
  unknownChoice: step(400, 'invalid_request', 'Unknown choice', 'Choose Approve or Deny.'),
  notYours: step(
    403,
    'invalid_interaction',
    'Not your account',
    'This request is about wallet addresses that do not belong to the account you are signed in with. Sign out and sign in with the account that owns them, or go back to the app.',
  ),
} as const satisfies Record<string, StepPage>

/** A table entry as the step's answer. */
export const stepPage = (p: StepPage, link?: PageLink): FrontChannelResult => page(p.status, p.code, p.title, p.message, link)

/** What a disabled owner sees instead of a consent request (docs/protocol.md §2.13). */
export const accountDisabledPage = (): FrontChannelResult => stepPage(OWNER_PAGES.disabled)

export const finishUrl = (deps: Deps, i: { id: string; nonce: string }) => serverUrl(deps.config, 'interact', i.id, i.nonce, 'finish')

/**
 * The checks of one step, in the order every step takes them: a known interaction, this browser's session, not used
 * up, not expired, then its decision state. The interaction when the step goes on, else the step's answer.
 */
export async function checkInteractionStep(
  deps: Deps,
  name: InteractionStep,
  input: { interactionId: string; nonce: string; session: string | null },
): Promise<{ interaction: InteractionWithGrant } | { result: FrontChannelResult }> {
  const table = INTERACTION_STEPS[name]
  const interaction = await findInteractionForStep(deps, input.interactionId, input.nonce)
  if (!interaction) return { result: stepPage(table.unknown) }
  const ownSession = isInteractionSession(interaction, input.session)
  if (table.wrongSession !== 'go' && !ownSession) return { result: stepPage(table.wrongSession) }
  const { grant } = interaction
  // A grant whose interaction expired is finalized as expired by now (docs/protocol.md §3), and answered as expired.
  const isExpired = isExpiredGrant(grant)
  if (!isExpired && (grant.state === 'finalized' || interaction.finishedAt)) return { result: stepPage(table.handled) }
  const answer = isExpired ? table.expired : interaction.state === 'pending' ? table.pending : table.decided
  if (answer === 'go') return { interaction }
  if (answer === 'to-finish') return { result: { kind: 'redirect', location: finishUrl(deps, interaction) } }
  if (!('query' in answer)) return { result: stepPage(answer) }
  const back = grant.finishUri ? withQuery(grant.finishUri, answer.query) : null
  if (back && ownSession) return { result: { kind: 'redirect', location: back } }
  return { result: stepPage(answer.page, back ? { href: back, text: `Go back to ${new URL(back).host}` } : undefined) }
}
