import type { GrantRequest, GrantResponseJson } from '../protocol/grant/grant.wire'
import { requestGrant } from '../protocol/grant/request-grant'
import { continueGrant } from '../protocol/grant/continue-grant'
import { startInteraction } from '../protocol/interaction/start-interaction'
import { recordConsent } from '../protocol/interaction/record-consent'
import { finishInteraction } from '../protocol/interaction/finish-interaction'
import type { FrontChannelResult } from '../protocol/interaction/front-channel'
import { TEST_IDP_SECRET, authAs, grantRequest, incomingAccess, type TestDeps } from './deps'

// Whole flows through the use cases, so a test starts from the state it is about: a pending grant, an approved
// one, an issued token. Everything goes through the same code the server runs; nothing is written directly.

/** The last path segment of a URL we handed out (`…/continue/{id}`, `…/token/{id}`). */
export function lastSegment(url: string): string {
  const segment = new URL(url).pathname.split('/').pop()
  if (!segment) throw new Error(`no id in ${url}`)
  return decodeURIComponent(segment)
}

export interface IssuedGrant {
  response: GrantResponseJson
  continueId: string
  continueToken: string
  tokenValue: string
  managementId: string
}

function issued(response: GrantResponseJson): IssuedGrant {
  if (!response.access_token) throw new Error('no access token in the response')
  return {
    response,
    continueId: lastSegment(response.continue.uri),
    continueToken: response.continue.access_token.value,
    tokenValue: response.access_token.value,
    managementId: lastSegment(response.access_token.manage),
  }
}

/**
 * A non-interactive grant (incoming-payment by default), finalized/issued with its token. `client` may be given as a
 * wallet address string (the deprecated form) or in either object form.
 */
export async function issueNonInteractiveGrant(
  t: TestDeps,
  request: Partial<Omit<GrantRequest, 'client'>> & { client?: string | GrantRequest['client'] } = {},
): Promise<IssuedGrant> {
  const { client, ...rest } = request
  const base = grantRequest({ access: [incomingAccess()], interact: null, ...(client !== undefined ? { client } : {}) })
  const response = await requestGrant(t.deps, { ...base, ...rest }, authAs(null), null)
  return issued(response)
}

export interface PendingGrant {
  request: GrantRequest
  response: GrantResponseJson
  continueId: string
  continueToken: string
  interactionId: string
  nonce: string
}

/** An interactive grant, pending with its interaction (outgoing-payment, redirect finish by default). */
export async function requestPendingGrant(t: TestDeps, request: GrantRequest = grantRequest()): Promise<PendingGrant> {
  const response = await requestGrant(t.deps, request, authAs(null), null)
  if (!response.interact) throw new Error('no interact in the response')
  const [, interact, interactionId, nonce] = new URL(response.interact.redirect).pathname.split('/')
  if (interact !== 'interact' || !interactionId || !nonce) throw new Error(`unexpected redirect ${response.interact.redirect}`)
  return {
    request,
    response,
    continueId: lastSegment(response.continue.uri),
    continueToken: response.continue.access_token.value,
    interactionId,
    nonce,
  }
}

/** The owner's browser opens the interaction link; returns the session value the cookie would carry. */
export async function startSession(t: TestDeps, pending: PendingGrant): Promise<string> {
  const result = await startInteraction(t.deps, { interactionId: pending.interactionId, nonce: pending.nonce })
  if (result.kind !== 'redirect' || !result.session) throw new Error(`interaction did not start: ${JSON.stringify(result)}`)
  return result.session.value
}

export async function decide(t: TestDeps, pending: PendingGrant, choice: 'accept' | 'reject'): Promise<void> {
  await recordConsent(t.deps, {
    interactionId: pending.interactionId,
    nonce: pending.nonce,
    choice,
    idpSecret: TEST_IDP_SECRET,
  })
}

export async function finish(t: TestDeps, pending: PendingGrant, session: string | null): Promise<FrontChannelResult> {
  return finishInteraction(t.deps, { interactionId: pending.interactionId, nonce: pending.nonce, session })
}

export interface FinishedGrant extends PendingGrant {
  session: string
  finishResult: FrontChannelResult
  /** From the finish redirect; null when the grant has no finish URI or was denied. */
  interactRef: string | null
  hash: string | null
}

/** Start, owner's choice and finish: the grant is approved (accept) or finalized/rejected (reject). */
export async function interact(t: TestDeps, pending: PendingGrant, choice: 'accept' | 'reject' = 'accept'): Promise<FinishedGrant> {
  const session = await startSession(t, pending)
  await decide(t, pending, choice)
  const finishResult = await finish(t, pending, session)
  const query = finishResult.kind === 'redirect' ? new URL(finishResult.location).searchParams : null
  return { ...pending, session, finishResult, interactRef: query?.get('interact_ref') ?? null, hash: query?.get('hash') ?? null }
}

/** A grant approved by the owner, not yet continued. */
export async function approvedGrant(t: TestDeps, request?: GrantRequest): Promise<FinishedGrant> {
  return interact(t, await requestPendingGrant(t, request), 'accept')
}

/** An interactive grant carried to finalized/issued: approved, then continued with its interact_ref after `wait`. */
export async function issueInteractiveGrant(t: TestDeps, request?: GrantRequest): Promise<IssuedGrant> {
  const approved = await approvedGrant(t, request)
  t.clock.advance(t.deps.config.waitSeconds)
  const response = await continueGrant(t.deps, {
    continueId: approved.continueId,
    interactRef: approved.interactRef,
    auth: authAs(approved.continueToken),
  })
  return issued(response)
}
