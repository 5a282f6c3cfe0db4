import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3'
import { PrismaClient } from './generated/client'

export type Db = PrismaClient
/** A client or an open transaction: repository functions accept either. */
export type DbTx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>

/** Whether a DATABASE_URL names PostgreSQL (`postgres://` or `postgresql://`) rather than a SQLite `file:`. */
export const isPostgresUrl = (url: string): boolean => /^postgres(ql)?:\/\//.test(url)

const providers = new WeakMap<Db, 'sqlite' | 'postgresql'>()
/** Which database a client opened by `openDb` talks to: for tests and tools that write raw SQL, never for use cases. */
export const providerOf = (db: Db): 'sqlite' | 'postgresql' => providers.get(db) ?? 'sqlite'

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
    const [{ PrismaPg }, { PrismaClient: PgPrismaClient }] = await Promise.all([
      import('@prisma/adapter-pg'),
      import('./generated-pg/client'),
    ])
    const db = new PgPrismaClient({ adapter: new PrismaPg({ connectionString: url }) })
    await db.$connect()
    const typed = db as unknown as Db
    providers.set(typed, 'postgresql')
    return typed
  }
  if (!url.startsWith('file:')) {
    throw new Error(`DATABASE_URL must be a SQLite file: URL or a postgresql:// URL, got ${url.split(':')[0]}:`)
  }
  const db = new PrismaClient({ adapter: new PrismaBetterSQLite3({ url, timeout: 10_000 }) })
  await db.$queryRawUnsafe('PRAGMA journal_mode = WAL')
  await db.$queryRawUnsafe('PRAGMA synchronous = NORMAL')
  await db.$queryRawUnsafe('PRAGMA foreign_keys = ON')
  providers.set(db, 'sqlite')
  return db
}
