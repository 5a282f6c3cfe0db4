import type { Deps } from '../deps'
import { rowToAccessItem } from '../access/access.repo'
import { describeAccessItem } from '../access/describe-access'
import { csrfTokenFor } from '../../kernel/session/csrf'
import { ownsGrant } from '../owner/owns-access'
import type { FrontChannelResult } from '../interaction/front-channel'
import { accountDisabledPage } from '../interaction/interaction-steps'
import { checkInteraction, ownerOf, type ConsentClient, type ConsentInput } from './consent-checks'

type ConsentScreen =
  | FrontChannelResult
  /** `grant`: whose tenant's owners may sign in here (docs/protocol.md §2.21), for the sign-in to check. */
  | { kind: 'sign-in'; client: ConsentClient; grant: { tenantId: string | null } }
  | { kind: 'not-yours'; client: ConsentClient; ownerName: string; subIds: string[]; csrf: string }
  | {
      kind: 'consent'
      client: ConsentClient
      ownerName: string
      items: { title: string; lines: string[] }[]
      /** Wallet addresses the client asks the owner to confirm they control (a subject request). */
      subIds: string[]
      csrf: string
    }

/** GET /interact/{id}/{nonce}/consent — what the built-in consent screen shows. Writes nothing. */
export async function getConsentScreen(deps: Deps, input: ConsentInput): Promise<ConsentScreen> {
  const checked = await checkInteraction(deps, 'consent', input)
  if ('result' in checked) return checked.result
  const { interaction, client, subIds } = checked
  const signedIn = await ownerOf(deps, input.ownerSession, interaction.grant)
  if (!signedIn || !input.ownerSession) return { kind: 'sign-in', client, grant: { tenantId: interaction.grant.tenantId } }
  if (signedIn.owner.disabled) return accountDisabledPage()
  const csrf = csrfTokenFor(input.ownerSession)
  const rows = interaction.grant.accessItems
  if (
    !ownsGrant(
      signedIn.walletAddresses,
      rows.map((r) => r.identifier),
      subIds,
    )
  ) {
    return { kind: 'not-yours', client, ownerName: signedIn.owner.name, subIds, csrf }
  }
  return { kind: 'consent', client, ownerName: signedIn.owner.name, items: rows.map(rowToAccessItem).map(describeAccessItem), subIds, csrf }
}
