import type { Logger } from 'pino'
import type { GnapConfig } from './config/config'
import type { Sql } from './db/sql'
import type { ReadModels } from './db/read-models'
import type { Metrics } from './metrics'

/**
 * What every use case may touch, whichever side it is on (the protocol's `Deps` adds the wallet address resolver).
 * Built once per process by the app; tests pass a fixed clock. Storage is `sql` (every repository, every
 * transaction) and `reads` (the console's read-only models), both over one store (kernel/db/store.ts).
 */
export interface KernelDeps {
  sql: Sql
  reads: ReadModels
  config: GnapConfig
  clock: () => Date
  log: Logger
  /** Counts what operators watch (kernel/metrics.ts); `noMetrics` counts nothing. */
  metrics: Metrics
}
