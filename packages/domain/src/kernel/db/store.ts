import type { Database } from 'better-sqlite3'
import { PrismaClient } from './generated/client'
import { GatedSqliteAdapterFactory } from './sqlite-adapter'
import type { ReadModels } from './read-models'
import { DEFAULT_GROUP_COMMIT, Gate, PgSql, SqliteSql, type GroupCommit, type Sql } from './sql'
import { tracedSql } from './traced-sql'

/** Which database a store talks to. */
export type Provider = 'sqlite' | 'postgresql'

/**
 * The one storage port (docs/protocol.md §9): the SQL runner every repository is written against, the console's
 * read-only Prisma models over the same connections, and the full Prisma client for tests and tools only (seeding,
 * assertions). Use cases receive `sql` and `reads` through `Deps`, never the client.
 */
export interface Store {
  provider: Provider
  sql: Sql
  reads: ReadModels
  /** Tests and tools only: use cases never see it. */
  prisma: PrismaClient
  close(): Promise<void>
}

/** Whether a DATABASE_URL names PostgreSQL (`postgres://` or `postgresql://`) rather than a SQLite `file:`. */
export const isPostgresUrl = (url: string): boolean => /^postgres(ql)?:\/\//.test(url)

const store = (provider: Provider, prisma: PrismaClient, sql: Sql): Store => ({
  provider,
  sql: tracedSql(sql),
  reads: prisma,
  prisma,
  close: () => prisma.$disconnect(),
})

export interface StoreOptions {
  /** SQLite only: when a commit reaches the disk (SQLITE_SYNCHRONOUS). Default 'full'. */
  sqliteSynchronous?: 'full' | 'normal'
  /** SQLite only: how write transactions share commits (SQLITE_GROUP_COMMIT_MAX, SQLITE_GROUP_COMMIT_WAIT_MS). */
  sqliteGroupCommit?: GroupCommit
  /** PostgreSQL only: the longest a statement may run, or a transaction sit idle, before the server ends it. */
  postgresTimeoutMs?: number
}

/**
 * PostgreSQL's statement_timeout and idle_in_transaction_session_timeout on every connection of the pool: a statement
 * stuck behind a lock that is never released, or a transaction whose process hung, would otherwise hold a connection
 * (and its locks) for ever, and with it every request that waits for one. Far above anything the server runs.
 */
export const POSTGRES_TIMEOUT_MS = 60_000

/** How long a SQLite statement waits for another process's write lock before it fails with SQLITE_BUSY. */
const SQLITE_BUSY_TIMEOUT_MS = 10_000

/**
 * Opens the store named by DATABASE_URL: a SQLite `file:` or a PostgreSQL `postgresql://` URL.
 *
 * SQLite runs in WAL mode, so readers never block the single writer, with a busy timeout. `sqliteSynchronous`:
 * 'full' (the default) syncs the log to disk at every commit, so an answered commit survives a power loss or an OS
 * crash; 'normal' syncs only at checkpoints, so the last commits can be lost then (a crash of the process alone
 * loses nothing either way: the OS still holds the written pages). docs/protocol.md §9.
 *
 * PostgreSQL goes through its own generated client (prisma/postgres/schema.prisma, written from the SQLite schema
 * by scripts/pg-schema.mjs): one generated client refuses a driver adapter of another provider. Both clients come
 * from the same models, so their model APIs are the same; the PostgreSQL client only adds options SQLite lacks
 * (such as `mode: 'insensitive'`). It is typed as the SQLite client here, the one cast, so the rest of the code
 * stays within what both databases do. Loaded on demand, so a SQLite server never loads pg.
 */
export async function openStore(url: string, options: StoreOptions = {}): Promise<Store> {
  if (isPostgresUrl(url)) {
    const [{ PrismaPg }, { PrismaClient: PgPrismaClient }, { default: pg }] = await Promise.all([
      import('@prisma/adapter-pg'),
      import('./generated-pg/client'),
      import('pg'),
    ])
    // One pool for Prisma and the hot paths; $disconnect ends it.
    // A connection attempt that gets no answer fails after 5 s (503 to the client) rather than holding the request.
    const timeout = options.postgresTimeoutMs ?? POSTGRES_TIMEOUT_MS
    const pool = new pg.Pool({
      connectionString: url,
      connectionTimeoutMillis: 5000,
      statement_timeout: timeout,
      idle_in_transaction_session_timeout: timeout,
    })
    // An idle connection the server closed (a restart, a cut network) is dropped by the pool, which then emits
    // 'error': without a listener that would end the process. The next query opens a new connection.
    pool.on('error', () => undefined)
    const db = new PgPrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) })
    await db.$connect()
    return store('postgresql', db as unknown as PrismaClient, new PgSql(pool, pg.types.getTypeParser))
  }
  if (!url.startsWith('file:')) {
    throw new Error(`DATABASE_URL must be a SQLite file: URL or a postgresql:// URL, got ${url.split(':')[0]}:`)
  }
  const gate = new Gate()
  let connection: Database | null = null
  const adapter = new GatedSqliteAdapterFactory({ url, timeout: SQLITE_BUSY_TIMEOUT_MS }, gate, (c) => (connection = c))
  const db = new PrismaClient({ adapter })
  await db.$queryRawUnsafe('PRAGMA journal_mode = WAL')
  await db.$queryRawUnsafe(`PRAGMA synchronous = ${options.sqliteSynchronous === 'normal' ? 'NORMAL' : 'FULL'}`)
  await db.$queryRawUnsafe('PRAGMA foreign_keys = ON')
  return store(
    'sqlite',
    db,
    new SqliteSql(
      () => {
        if (!connection) throw new Error('the SQLite connection is not open')
        return connection
      },
      gate,
      SQLITE_BUSY_TIMEOUT_MS,
      options.sqliteGroupCommit ?? DEFAULT_GROUP_COMMIT,
    ),
  )
}

/** The generated client's types, for tests and tools that arrange rows (the bench's bulk seeding). */
export type { Prisma, PrismaClient } from './generated/client'
