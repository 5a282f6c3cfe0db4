import type { Logger } from 'pino'
import type { GnapConfig } from './config/config'
import type { Db } from './db/client'
import type { WalletAddressResolver } from './client/wallet-address'

/** Everything a use case may touch. Built once per process by the app; tests pass a fixed clock. */
export interface Deps {
  db: Db
  config: GnapConfig
  clock: () => Date
  log: Logger
  walletAddresses: WalletAddressResolver
}
