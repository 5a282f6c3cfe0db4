import { createLogger, noMetrics, type GnapConfig, type Store } from '@gnap/domain/kernel'
import { walletAddressResolverFor, type Deps } from '@gnap/domain/protocol'
import { testConfig } from '@gnap/domain/testing'

/** Domain deps over a running server's database, to write beside it as the console would (real clock, no logs). */
export function serverDeps(store: Store, serverUrl: string, config: Partial<GnapConfig> = {}): Deps {
  const full = testConfig({ authServerUrl: serverUrl, ...config })
  return {
    sql: store.sql,
    reads: store.reads,
    config: full,
    clock: () => new Date(),
    log: createLogger('silent'),
    walletAddresses: walletAddressResolverFor(full),
    metrics: noMetrics,
  }
}
