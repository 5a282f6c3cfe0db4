import { canonicalWalletAddress } from './canonical-wallet-address'

/**
 * Whether every access item that names a resource names one of the owner's wallet addresses or a resource
 * below it (`https://wallet.example/alice` owns `https://wallet.example/alice/incoming-payments/…`).
 * Both sides are compared in their canonical form (canonical-wallet-address.ts; stored identifiers already are), so
 * dot segments (`…/alice/../bob`, `…/alice/%2e%2e/bob`) cannot climb out of the owner's wallet address.
 */
export function ownsAccess(walletAddresses: string[], identifiers: (string | null)[]): boolean {
  const named = identifiers.filter((i): i is string => i !== null)
  if (named.length === 0) return false
  const owned = walletAddresses.map(canonicalWalletAddress).filter((wa): wa is string => wa !== null)
  return named.every((raw) => {
    const id = canonicalWalletAddress(raw)
    return id !== null && owned.some((wa) => id === wa || id.startsWith(`${wa}/`))
  })
}

/**
 * Whether the owner may decide a grant on the built-in consent screen (docs/protocol.md §2.11): every access item
 * that names a resource is theirs (ownsAccess), and every subject identifier is one of their own wallet addresses,
 * exactly (RFC 9635 §2.2: the owner confirms they control it). A grant naming neither is nobody's.
 */
export function ownsGrant(walletAddresses: string[], identifiers: (string | null)[], subIds: string[]): boolean {
  const namesResources = identifiers.some((i) => i !== null)
  if (!namesResources && subIds.length === 0) return false
  if (namesResources && !ownsAccess(walletAddresses, identifiers)) return false
  const owned = new Set(walletAddresses.map(canonicalWalletAddress).filter((wa): wa is string => wa !== null))
  return subIds.every((id) => {
    const normal = canonicalWalletAddress(id)
    return normal !== null && owned.has(normal)
  })
}
