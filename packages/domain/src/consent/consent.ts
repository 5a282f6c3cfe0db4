import type { Deps } from '../deps'
import { serverUrl } from '../config/config'
import { isGnapError } from '../errors'
import { rowToAccessItem } from '../access/access.repo'
import { describeAccessItem } from '../access/describe-access'
import { isInteractionExpired } from '../grant/grant-state'
import { secretMatches } from '../secrets'
import { csrfMatches, csrfTokenFor, findSession } from '../session/session'
import { ownsAccess } from '../owner/owner'
import { findInteraction, type InteractionWithGrant } from '../interaction/interaction.repo'
import { decideInteraction } from '../interaction/identity-provider'
import { page, withQuery, type FrontChannelResult } from '../interaction/front-channel'

// The built-in consent screen (used when no IDENTITY_SERVER_URL is set): the owner signs in, reads what the
// client asks for in plain words, and approves or denies. The decision goes through decideInteraction, the same
// use case as the identity-provider API, and the browser then goes to the usual finish URL.

export interface ConsentInput {
  interactionId: string
  nonce: string
  /** The interaction session cookie set when the interaction started. */
  interactionSession: string | null
  /** The owner's session cookie, when signed in. */
  ownerSession: string | null
}

export interface ConsentClient {
  name: string
  walletAddress: string
}

export type ConsentScreen =
  | FrontChannelResult
  | { kind: 'sign-in'; client: ConsentClient }
  | { kind: 'not-yours'; client: ConsentClient; ownerName: string; csrf: string }
  | {
      kind: 'consent'
      client: ConsentClient
      ownerName: string
      items: { title: string; lines: string[] }[]
      csrf: string
    }

type Checked = { interaction: InteractionWithGrant; client: ConsentClient } | { result: FrontChannelResult }

/** The checks every consent step shares: a known interaction, this browser's session, still awaiting a decision. */
async function checkInteraction(deps: Deps, input: ConsentInput): Promise<Checked> {
  const interaction = await findInteraction(deps.db, input.interactionId, input.nonce)
  if (!interaction) {
    return { result: page(400, 'unknown_interaction', 'Unknown request', 'This authorization link is not valid. Go back to the app that sent you here and start again.') }
  }
  if (!input.interactionSession || !interaction.sessionHash || !secretMatches(input.interactionSession, interaction.sessionHash)) {
    return { result: page(401, 'invalid_request', 'Invalid session', 'This page must be opened from the link the app gave you, in the same browser. Go back to the app and start again.') }
  }
  const { grant } = interaction
  if (grant.state === 'finalized' || interaction.finishedAt) {
    return { result: page(403, 'invalid_interaction', 'Request already handled', 'This request has already been completed or cancelled. There is nothing left to do here.') }
  }
  if (isInteractionExpired(interaction, deps.clock())) {
    if (grant.finishUri) return { result: { kind: 'redirect', location: withQuery(grant.finishUri, { result: 'invalid_interaction', message: 'interaction expired' }) } }
    return { result: page(403, 'invalid_interaction', 'Request expired', 'This request has expired. Go back to the app and start again.') }
  }
  if (interaction.state !== 'PENDING') {
    // Decided but the browser never reached the finish step (a reload, a double click): finish it now.
    return { result: { kind: 'redirect', location: finishUrl(deps, interaction) } }
  }
  return { interaction, client: { name: grant.clientName ?? grant.client, walletAddress: grant.client } }
}

const finishUrl = (deps: Deps, i: { id: string; nonce: string }) => serverUrl(deps.config, 'interact', i.id, i.nonce, 'finish')

async function ownerOf(deps: Deps, sessionValue: string | null) {
  const session = await findSession(deps.db, 'owner', sessionValue, deps.clock())
  if (!session) return null
  const owner = await deps.db.owner.findUnique({ where: { id: session.subjectId }, include: { walletAddresses: true } })
  return owner ? { session, owner, walletAddresses: owner.walletAddresses.map((w) => w.url) } : null
}

/** GET /interact/{id}/{nonce}/consent — what the consent screen shows. */
export async function getConsentScreen(deps: Deps, input: ConsentInput): Promise<ConsentScreen> {
  const checked = await checkInteraction(deps, input)
  if ('result' in checked) return checked.result
  const { interaction, client } = checked
  const signedIn = await ownerOf(deps, input.ownerSession)
  if (!signedIn || !input.ownerSession) return { kind: 'sign-in', client }
  const csrf = csrfTokenFor(input.ownerSession)
  const rows = interaction.grant.accessItems
  if (!ownsAccess(signedIn.walletAddresses, rows.map((r) => r.identifier))) {
    return { kind: 'not-yours', client, ownerName: signedIn.owner.name, csrf }
  }
  return { kind: 'consent', client, ownerName: signedIn.owner.name, items: rows.map(rowToAccessItem).map(describeAccessItem), csrf }
}

/**
 * POST /interact/{id}/{nonce}/decision — the owner's Approve or Deny. Needs the interaction's session, the owner's
 * session, the form's CSRF token and ownership of every resource the grant names; then records the decision and
 * sends the browser to the finish URL.
 */
export async function decideConsent(
  deps: Deps,
  input: ConsentInput & { csrf: string | null; choice: string | null },
): Promise<FrontChannelResult> {
  const checked = await checkInteraction(deps, input)
  if ('result' in checked) return checked.result
  const { interaction } = checked
  const signedIn = await ownerOf(deps, input.ownerSession)
  if (!signedIn) return page(401, 'invalid_request', 'Signed out', 'Your session has ended. Go back to the request and sign in again.')
  if (!csrfMatches(signedIn.session, input.csrf)) {
    return page(403, 'invalid_request', 'Request refused', 'This form could not be verified. Go back to the request and try again.')
  }
  if (input.choice !== 'approve' && input.choice !== 'deny') {
    return page(400, 'invalid_request', 'Unknown choice', 'Choose Approve or Deny.')
  }
  if (!ownsAccess(signedIn.walletAddresses, interaction.grant.accessItems.map((r) => r.identifier))) {
    return page(403, 'invalid_interaction', 'Not your account', 'This request is about wallet addresses that do not belong to the account you are signed in with.')
  }
  try {
    await decideInteraction(deps, interaction, input.choice === 'approve' ? 'APPROVED' : 'DENIED', signedIn.owner.id)
  } catch (e) {
    // Lost a race with another decision for the same interaction (a second tab): finishing sorts it out.
    if (!isGnapError(e)) throw e
  }
  return { kind: 'redirect', location: finishUrl(deps, interaction) }
}
