import { createLogger, noMetrics, type openStore } from '@gnap/domain/kernel'
import type { Deps } from '@gnap/domain/protocol'
import { testConfig } from '@gnap/domain/testing'

/** The use cases' dependencies over a benchmark's store: the test settings, no log, no metrics, no wallet address fetched. */
export function benchDeps(store: Awaited<ReturnType<typeof openStore>>): Deps {
  return {
    sql: store.sql,
    reads: store.reads,
    config: testConfig(),
    clock: () => new Date(),
    log: createLogger('silent'),
    walletAddresses: { getKey: () => Promise.resolve(null), getWalletAddress: () => Promise.reject(new Error('not in a benchmark')) },
    metrics: noMetrics,
  }
}
