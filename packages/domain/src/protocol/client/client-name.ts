import { badClient } from '../../kernel/errors'

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
