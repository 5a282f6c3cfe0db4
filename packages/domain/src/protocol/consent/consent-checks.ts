import type { Deps } from '../deps'
import { findSession } from '../../kernel/session/find-session'
import type { SessionRow } from '../../kernel/session/session.repo'
import { findOwnerWithWalletAddresses } from '../owner/consenting-owner.repo'
import type { InteractionWithGrant } from '../interaction/interaction.repo'
import { checkInteractionStep } from '../interaction/interaction-steps'
import type { FrontChannelResult } from '../interaction/front-channel'
import { findGrantSubjectIds } from '../grant/grant-subject.repo'
import { sameTenant } from '../tenant/tenants'

// What the built-in consent screen's steps share (used when the grant's tenant has no identity provider, §2.21): the owner signs in,
// reads what the client asks for in plain words, and approves or denies. The decision goes through
// decideInteraction, the same as the identity-provider API's, and the browser then goes to the usual finish URL.

export interface ConsentInput {
  interactionId: string
  nonce: string
  /** The interaction session cookie set when the interaction started. */
  interactionSession: string | null
  /** The owner's session cookie, when signed in. */
  ownerSession: string | null
}

/** The client as the consent screen names it: the name it gave (else its wallet address) and its wallet address. */
export interface ConsentClient {
  name: string
  walletAddress: string
}

type Checked =
  | {
      interaction: InteractionWithGrant
      client: ConsentClient
      /** The wallet addresses the client asks the owner to confirm they control (a subject request); often none. */
      subIds: string[]
    }
  | { result: FrontChannelResult }

/**
 * The checks the consent screen and the decision share: their step's row of INTERACTION_STEPS (a known interaction,
 * this browser's session, still awaiting a decision), then what the client asks the owner to confirm.
 */
export async function checkInteraction(deps: Deps, name: 'consent' | 'decision', input: ConsentInput): Promise<Checked> {
  const checked = await checkInteractionStep(deps, name, {
    interactionId: input.interactionId,
    nonce: input.nonce,
    session: input.interactionSession,
  })
  if ('result' in checked) return checked
  const { interaction } = checked
  const { grant } = interaction
  const subIds = await findGrantSubjectIds(deps.sql, grant.id)
  return { interaction, client: { name: grant.clientName ?? grant.client, walletAddress: grant.client }, subIds }
}

/**
 * The signed-in owner of a live owner session, with the wallet addresses they own; null otherwise, and null too for
 * an owner of another tenant than the grant's: the consent screen of a tenant knows only its own owners, so another
 * tenant's session reads as no session at all (docs/protocol.md §2.21).
 */
export async function ownerOf(
  deps: Deps,
  sessionValue: string | null,
  grant: { tenantId: string | null },
): Promise<{ session: SessionRow; owner: { id: string; name: string; disabled: boolean }; walletAddresses: string[] } | null> {
  const session = await findSession(deps.sql, 'owner', sessionValue, deps.clock())
  if (!session) return null
  const owner = await findOwnerWithWalletAddresses(deps.sql, session.subjectId)
  return owner && sameTenant(deps, owner, grant)
    ? { session, owner: { id: owner.id, name: owner.name, disabled: owner.status === 'disabled' }, walletAddresses: owner.walletAddresses }
    : null
}
