import path from 'node:path'
import { createLogger, isDatabaseUnavailable, noMetrics, openStore } from '@gnap/domain/kernel'
import { undeliveredSummary, walletAddressResolverFor, type Deps } from '@gnap/domain/protocol'
import { readConfig } from '../../env'
import { createWebMetrics } from './metrics'

const globalForDeps = globalThis as unknown as { gnapDeps?: Promise<Deps> }

/** The repository's data folder: the default home of the SQLite file (ignored by git). */
const defaultDatabaseUrl = () => `file:${path.resolve(process.cwd(), '../../data/gnap.db')}`

async function buildDeps(): Promise<Deps> {
  const { env, config, unused } = readConfig()
  const log = createLogger(env.LOG_LEVEL)
  // Rafiki's settings that do nothing here (docs/configuration.md): named in one line, their values never shown.
  if (unused.length > 0) log.warn({ unused }, `settings of Rafiki's auth service that do nothing here: ${unused.join(', ')}`)
  const store = await openStore(env.DATABASE_URL ?? defaultDatabaseUrl(), {
    sqliteSynchronous: env.SQLITE_SYNCHRONOUS,
    sqliteGroupCommit: { maxTransactions: env.SQLITE_GROUP_COMMIT_MAX, maxWaitMs: env.SQLITE_GROUP_COMMIT_WAIT_MS },
  })
  // Counted only when something can scrape them (METRICS_SECRET or METRICS_PORT).
  const metrics =
    config.metricsSecrets || config.metricsPort
      ? createWebMetrics(
          () => store.sql.pressure(),
          () => undeliveredSummary(store.sql),
        )
      : noMetrics
  return {
    sql: store.sql,
    reads: store.reads,
    config,
    clock: () => new Date(),
    log,
    walletAddresses: walletAddressResolverFor(config, log, metrics),
    metrics,
  }
}

/** Domain dependencies, built once per process (database, settings, key cache, logger). */
export function getDeps(): Promise<Deps> {
  globalForDeps.gnapDeps ??= buildDeps().catch((e: unknown) => {
    globalForDeps.gnapDeps = undefined
    throw e
  })
  return globalForDeps.gnapDeps
}

/** The deps, or null while the database is unreachable (docs/protocol.md §9): the caller answers 503 with Retry-After. */
export async function depsOrUnavailable(): Promise<Deps | null> {
  try {
    return await getDeps()
  } catch (e) {
    if (isDatabaseUnavailable(e)) return null
    throw e
  }
}
