import type { KernelDeps } from '../kernel/deps'
import type { WalletAddressResolver } from './client/wallet-address'

/**
 * Everything a use case may touch: the kernel's storage, settings, clock, log and metrics, and the wallet address
 * resolver (docs/protocol.md §4) every client authentication goes through. Operator use cases take the same.
 */
export interface Deps extends KernelDeps {
  walletAddresses: WalletAddressResolver
}
