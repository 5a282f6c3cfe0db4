// Databases for the tests that run the server on both stores: a fresh SQLite file always, and a fresh PostgreSQL
// database when a PostgreSQL server is named (TEST_DATABASE_URL, or MULTI_INSTANCE_PG_URL as `pnpm test` passes it to
// this suite; CI sets it): a role with CREATEDB whose database is used only to create and drop the test databases.
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { openStore, type Store } from '@gnap/domain/kernel'
import { adminQuery, databaseUrl } from '@gnap/domain/testing'
import { migrateDatabase } from '@gnap/test-support'

export type Provider = 'sqlite' | 'postgresql'

/** The PostgreSQL server of the run, if any. */
export const pgAdminUrl = process.env.TEST_DATABASE_URL ?? process.env.MULTI_INSTANCE_PG_URL

/** The stores this run covers: SQLite, and PostgreSQL when a server is named. */
export const providers: Provider[] = pgAdminUrl ? ['sqlite', 'postgresql'] : ['sqlite']

export interface TestDatabase {
  provider: Provider
  /** The DATABASE_URL of a migrated, empty database of its own. */
  url: string
  /** A store on it, for checks from the test (close it after use). */
  open(): Promise<Store>
  drop(): Promise<void>
}

/** A fresh migrated database on `provider`. */
export async function freshDatabase(provider: Provider, label: string): Promise<TestDatabase> {
  if (provider === 'postgresql') {
    if (!pgAdminUrl) throw new Error('no PostgreSQL server: set TEST_DATABASE_URL')
    const name = `gnap_${label}_${randomBytes(5).toString('hex')}`
    await adminQuery(pgAdminUrl, `CREATE DATABASE "${name}"`)
    const url = databaseUrl(pgAdminUrl, name)
    migrateDatabase(url)
    return {
      provider,
      url,
      open: () => openStore(url),
      drop: () => adminQuery(pgAdminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined),
    }
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `gnap-${label}-`))
  const url = `file:${path.join(dir, 'gnap.db')}`
  migrateDatabase(url)
  return {
    provider,
    url,
    open: () => openStore(url),
    drop: () => Promise.resolve(fs.rmSync(dir, { recursive: true, force: true })),
  }
}
