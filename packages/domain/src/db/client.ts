import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3'
import { PrismaClient } from './generated/client'

export type Db = PrismaClient
/** A client or an open transaction: repository functions accept either. */
export type DbTx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>

/**
 * Opens the store named by DATABASE_URL. SQLite runs in WAL mode with synchronous=NORMAL (a committed
 * transaction survives a process crash; the last ones may be lost on power loss) and a busy timeout, so
 * readers never block the single writer.
 */
export async function openDb(url: string): Promise<Db> {
  if (!url.startsWith('file:')) throw new Error(`DATABASE_URL must be a SQLite file: URL, got ${url.split(':')[0]}:`)
  const db = new PrismaClient({ adapter: new PrismaBetterSQLite3({ url, timeout: 10_000 }) })
  await db.$queryRawUnsafe('PRAGMA journal_mode = WAL')
  await db.$queryRawUnsafe('PRAGMA synchronous = NORMAL')
  await db.$queryRawUnsafe('PRAGMA foreign_keys = ON')
  return db
}
