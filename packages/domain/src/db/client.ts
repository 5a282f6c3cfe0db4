import type { Database } from 'better-sqlite3'
import { PrismaClient } from './generated/client'
import { GatedSqliteAdapterFactory } from './sqlite-adapter'
import { Gate, PgSql, SqliteSql, type Sql, type SqlRunner, type SqlValue } from './sql'

export type Db = PrismaClient
/** A client or an open transaction: repository functions accept either. */
export type DbTx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>

/** Whether a DATABASE_URL names PostgreSQL (`postgres://` or `postgresql://`) rather than a SQLite `file:`. */
export const isPostgresUrl = (url: string): boolean => /^postgres(ql)?:\/\//.test(url)

// What `openDb` knows about a client travels on the client itself, under registered symbols: Next bundles this module
// more than once (a copy per route), so a module-level map filled by one copy would be empty in another.
const PROVIDER = Symbol.for('gnap.db.provider')
const SQL = Symbol.for('gnap.db.sql')
type Opened = Db & { [PROVIDER]?: 'sqlite' | 'postgresql'; [SQL]?: Sql }

/** Which database a client opened by `openDb` talks to: for tests and tools that write raw SQL, never for use cases. */
export const providerOf = (db: Db): 'sqlite' | 'postgresql' => (db as Opened)[PROVIDER] ?? 'sqlite'

/** The hot paths' SQL runner (sql.ts) over the same connections as the client `openDb` returned. */
export function sqlOf(db: Db): Sql {
  const sql = (db as Opened)[SQL]
  if (!sql) throw new Error('sqlOf: this client was not opened by openDb')
  return sql
}

function opened(db: Db, provider: 'sqlite' | 'postgresql', sql: Sql): Db {
  Object.defineProperties(db, { [PROVIDER]: { value: provider }, [SQL]: { value: sql } })
  return db
}

/**
 * The same SQL inside a Prisma interactive transaction, for the few repository functions that both the hot paths
 * and Prisma transactions call (so each rule is written once). The transaction client names its provider in
 * `_activeProvider` (Prisma 6.19, pinned); PostgreSQL takes `$1` as written.
 */
export function sqlIn(tx: DbTx): SqlRunner {
  const provider = (tx as unknown as { _activeProvider?: string })._activeProvider
  if (provider !== 'sqlite' && provider !== 'postgresql') throw new Error(`sqlIn: unknown provider ${String(provider)}`)
  // SQLite through Prisma binds anonymous `?` by position, as in SqliteSql: each `$n` becomes a `?` fed the n-th value.
  const bound = (sql: string, params: readonly SqlValue[]): [string, ...SqlValue[]] => {
    if (provider === 'postgresql') return [sql, ...params]
    const values: SqlValue[] = []
    const text = sql.replace(/\$(\d+)/g, (_m, n: string) => {
      values.push(params[Number(n) - 1] ?? null)
      return '?'
    })
    return [text, ...values]
  }
  return {
    all: <T>(sql: string, params: readonly SqlValue[] = []) => tx.$queryRawUnsafe<T[]>(...bound(sql, params)),
    run: (sql: string, params: readonly SqlValue[] = []) => tx.$executeRawUnsafe(...bound(sql, params)),
  }
}

/** How long a SQLite statement waits for another process's write lock before it fails with SQLITE_BUSY. */
const SQLITE_BUSY_TIMEOUT_MS = 10_000

/**
 * Opens the store named by DATABASE_URL: a SQLite `file:` or a PostgreSQL `postgresql://` URL.
 *
 * SQLite runs in WAL mode with synchronous=NORMAL (a committed transaction survives a process crash; the last ones
 * may be lost on power loss) and a busy timeout, so readers never block the single writer.
 *
 * PostgreSQL goes through its own generated client (prisma/postgres/schema.prisma, written from the SQLite schema
 * by scripts/pg-schema.mjs): one generated client refuses a driver adapter of another provider. Both clients come
 * from the same models, so their model APIs are the same; the PostgreSQL client only adds options SQLite lacks
 * (such as `mode: 'insensitive'`). It is typed as the SQLite client here, the one cast, so the rest of the code
 * stays within what both databases do. Loaded on demand, so a SQLite server never loads pg.
 */
export async function openDb(url: string): Promise<Db> {
  if (isPostgresUrl(url)) {
    const [{ PrismaPg }, { PrismaClient: PgPrismaClient }, { default: pg }] = await Promise.all([
      import('@prisma/adapter-pg'),
      import('./generated-pg/client'),
      import('pg'),
    ])
    // One pool for Prisma and the hot paths; $disconnect ends it.
    const pool = new pg.Pool({ connectionString: url })
    const db = new PgPrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) })
    await db.$connect()
    return opened(db as unknown as Db, 'postgresql', new PgSql(pool, pg.types.getTypeParser))
  }
  if (!url.startsWith('file:')) {
    throw new Error(`DATABASE_URL must be a SQLite file: URL or a postgresql:// URL, got ${url.split(':')[0]}:`)
  }
  const gate = new Gate()
  let connection: Database | null = null
  const adapter = new GatedSqliteAdapterFactory({ url, timeout: SQLITE_BUSY_TIMEOUT_MS }, gate, (c) => (connection = c))
  const db = new PrismaClient({ adapter })
  await db.$queryRawUnsafe('PRAGMA journal_mode = WAL')
  await db.$queryRawUnsafe('PRAGMA synchronous = NORMAL')
  await db.$queryRawUnsafe('PRAGMA foreign_keys = ON')
  return opened(
    db,
    'sqlite',
    new SqliteSql(() => {
      if (!connection) throw new Error('the SQLite connection is not open')
      return connection
    }, gate, SQLITE_BUSY_TIMEOUT_MS),
  )
}
