import { GnapError, badClient } from '../../kernel/errors'
import type { WalletAddressResolver } from './wallet-address'

// The client's name as the resource owner sees it: its wallet address's `publicName`, shown on the consent screen
// inside sentences ("… asks for access to your account") and handed to the identity provider (docs/protocol.md §4.3).

/** At most this many characters (code points). */
export const MAX_CLIENT_NAME_LENGTH = 100

// Control characters, line and paragraph separators, and the bidirectional embeddings, overrides and isolates
// (Unicode UAX #9), which could move the words around it.
const UNSHOWABLE = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u

/**
 * The name to show for a client, from its wallet address document: present, not blank, at most 100 characters, and
 * none that could break or reorder the sentence it is shown in.
 * @throws GnapError invalid_client 400
 */
export function clientDisplayName(publicName: string | undefined): string {
  if (publicName === undefined || publicName.trim() === '') throw badClient('the client wallet address has no publicName to show the owner')
  if ([...publicName].length > MAX_CLIENT_NAME_LENGTH) {
    throw badClient(`the client wallet address publicName is longer than ${MAX_CLIENT_NAME_LENGTH} characters`)
  }
  if (UNSHOWABLE.test(publicName)) throw badClient('the client wallet address publicName contains control or text-direction characters')
  return publicName
}

/**
 * The name a grant records for the console when no owner is asked (a non-interactive grant, docs/protocol.md §2.1
 * step 5): the `publicName` of the client's wallet address when its document can be fetched and the name is fit to
 * show, else null. Never a reason to refuse the grant: such a client needs only its keys.
 */
export async function publishedClientName(
  walletAddresses: Pick<WalletAddressResolver, 'getWalletAddress'>,
  walletAddress: string,
): Promise<string | null> {
  try {
    return clientDisplayName((await walletAddresses.getWalletAddress(walletAddress)).publicName)
  } catch (e) {
    if (e instanceof GnapError) return null
    throw e
  }
}
