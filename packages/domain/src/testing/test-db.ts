import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createHash, randomBytes } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { openStore, type Store } from '../kernel/db/store'

const repoRoot = path.resolve(import.meta.dirname, '../../../..')

// The same suites run on SQLite (the default) and on PostgreSQL when TEST_DATABASE_URL is set: a postgresql:// URL
// of a role with CREATEDB, whose database is used only to create and drop the test databases. The vitest global setup
// (`setupTemplateDb`) migrates one template; each test file gets its own database made from it, so files run in
// parallel on either store without truncating each other's data.

/** What the global setup made: the template to copy, and how to remove it. */
export async function setupTemplateDb(label: string): Promise<() => Promise<void>> {
  const admin = process.env.TEST_DATABASE_URL
  if (admin) {
    const name = `gnap_tpl_${label}_${randomBytes(4).toString('hex')}`
    await adminQuery(admin, `CREATE DATABASE "${name}"`)
    migrate(databaseUrl(admin, name))
    process.env.GNAP_TEMPLATE_PG = name
    return async () => {
      await adminQuery(admin, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    }
  }
  // SQLite: the template kept between runs (test files copy it, never write to it).
  process.env.GNAP_TEMPLATE_DB = sqliteTemplate()
  return () => Promise.resolve()
}

/**
 * A migrated database of its own for one test file: on SQLite a copy of the template file, on PostgreSQL
 * (TEST_DATABASE_URL) `CREATE DATABASE … TEMPLATE` the migrated template.
 */
export async function createTestDb(): Promise<{ store: Store; url: string; cleanup: () => Promise<void> }> {
  const admin = process.env.TEST_DATABASE_URL
  if (admin) {
    const name = `gnap_test_${randomBytes(6).toString('hex')}`
    const template = process.env.GNAP_TEMPLATE_PG
    await createDatabase(admin, name, template)
    const url = databaseUrl(admin, name)
    if (!template) migrate(url)
    const store = await openStore(url)
    return {
      store,
      url,
      cleanup: async () => {
        await store.close()
        // A database left behind costs nothing but disk; a failed drop (e.g. a backend the role may not signal)
        // must not fail the test that used it.
        await adminQuery(admin, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch((e: unknown) =>
          console.warn(`[test-db] could not drop ${name}: ${e instanceof Error ? e.message : String(e)}`),
        )
      },
    }
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-test-'))
  const file = path.join(dir, 'test.db')
  const template = process.env.GNAP_TEMPLATE_DB
  if (template && fs.existsSync(template)) fs.copyFileSync(template, file)
  else migrateFile(file)
  const url = `file:${file}`
  const store = await openStore(url)
  return {
    store,
    url,
    cleanup: async () => {
      await store.close()
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * Applies the migrations to a SQLite file. A file that does not exist yet becomes a copy of a migrated template
 * (sqliteTemplate), so a test server or a suite's template costs a file copy, not a Prisma CLI process of about 3 s;
 * an existing file gets `prisma migrate deploy`.
 */
export function migrateFile(file: string): void {
  if (fs.existsSync(file)) return migrate(`file:${file}`)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.copyFileSync(sqliteTemplate(), file)
}

/**
 * A SQLite file migrated by the Prisma CLI, kept in the system's temp folder under a hash of prisma/migrations: it is
 * made once per set of migrations (on a fresh CI machine, once per run), and a changed migration makes a new one.
 */
export function sqliteTemplate(): string {
  const migrations = path.join(repoRoot, 'prisma', 'migrations')
  const hash = createHash('sha256')
  for (const name of fs.readdirSync(migrations, { recursive: true, encoding: 'utf8' }).sort()) {
    const full = path.join(migrations, name)
    if (fs.statSync(full).isFile()) hash.update(name).update(fs.readFileSync(full))
  }
  const dir = path.join(os.tmpdir(), 'gnap-test-templates')
  const file = path.join(dir, `sqlite-${hash.digest('hex').slice(0, 16)}.db`)
  if (fs.existsSync(file)) return file
  fs.mkdirSync(dir, { recursive: true })
  // Migrated under a name of its own, then renamed: processes that race here each make one, and the last rename wins.
  const scratch = `${file}.${process.pid}-${randomBytes(4).toString('hex')}`
  migrate(`file:${scratch}`)
  fs.renameSync(scratch, file)
  return file
}

/** Applies the migrations of the store `url` names (prisma.config.ts picks the folder) with the Prisma CLI. */
export function migrate(url: string): void {
  execFileSync(path.join(repoRoot, 'node_modules/.bin/prisma'), ['migrate', 'deploy'], {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL: url, CHECKPOINT_DISABLE: '1' },
    stdio: 'pipe',
  })
}

/** The URL of database `name` on the server of a PostgreSQL URL (same role, host and options). */
export function databaseUrl(adminUrl: string, name: string): string {
  const u = new URL(adminUrl)
  u.pathname = `/${name}`
  return u.toString()
}

/**
 * CREATE DATABASE, from `template` when given. PostgreSQL refuses to copy a template while another session is
 * connected to it (55006 object_in_use), which a parallel copy can briefly look like: retry a few times.
 */
async function createDatabase(adminUrl: string, name: string, template: string | undefined): Promise<void> {
  const sql = template ? `CREATE DATABASE "${name}" TEMPLATE "${template}"` : `CREATE DATABASE "${name}"`
  for (let attempt = 1; ; attempt++) {
    try {
      return await adminQuery(adminUrl, sql)
    } catch (e) {
      const code = (e as { code?: unknown }).code
      if (code !== '55006' || attempt >= 20) throw e
      await new Promise((r) => setTimeout(r, 50 * attempt))
    }
  }
}

/** One statement on the admin database of TEST_DATABASE_URL (CREATE/DROP DATABASE cannot run in a transaction). */
export async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}
