import type { Logger } from 'pino'
import type { GnapConfig } from './config/config'
import type { Sql } from './db/sql'
import type { ReadModels } from './db/read-models'
import type { WalletAddressResolver } from './client/wallet-address'
import type { Metrics } from './metrics/metrics'

/**
 * Everything a use case may touch. Built once per process by the app; tests pass a fixed clock.
 * Storage is `sql` (every repository, every transaction) and `reads` (the console's read-only models), both over
 * one store (db/store.ts).
 */
export interface Deps {
  sql: Sql
  reads: ReadModels
  config: GnapConfig
  clock: () => Date
  log: Logger
  walletAddresses: WalletAddressResolver
  /** Counts what operators watch (metrics/metrics.ts); `noMetrics` counts nothing. */
  metrics: Metrics
}
