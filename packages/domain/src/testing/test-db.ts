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
    const run = randomBytes(4).toString('hex')
    const name = `gnap_tpl_${label}_${run}`
    await adminQuery(admin, `CREATE DATABASE "${name}"`)
    migrate(databaseUrl(admin, name))
    process.env.GNAP_TEMPLATE_PG = name
    // The test files' databases carry the run's mark, so the teardown finds any a file left behind (its idle ones).
    const prefix = `gnap_test_${run}_`
    process.env.GNAP_TEST_DB_PREFIX = prefix
    return async () => {
      for (const left of await adminRows(admin, `SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, [prefix])) {
        await dropDatabase(admin, String(left.datname))
      }
      await dropDatabase(admin, name)
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
    const name = await takePgDatabase(admin)
    const url = databaseUrl(admin, name)
    const store = await openStore(url)
    return {
      store,
      url,
      cleanup: async () => {
        await store.close()
        await releasePgDatabase(admin, name)
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
  await adminRows(adminUrl, sql)
}

/** The rows of one statement on the database `url` names, on a connection of its own. */
function adminRows(url: string, sql: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  return onConnection(url, async (rows) => rows(sql, values))
}

type Rows = (sql: string, values?: unknown[]) => Promise<Record<string, unknown>[]>

/** `work` on one connection of its own to the database `url` names, closed after. */
async function onConnection<T>(url: string, work: (rows: Rows) => Promise<T>): Promise<T> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await work(async (sql, values = []) => (await client.query<Record<string, unknown>>(sql, values)).rows)
  } finally {
    await client.end()
  }
}

/** DROP DATABASE; a database left behind costs nothing but disk, so a failed drop only warns. */
async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch((e: unknown) =>
    console.warn(`[test-db] could not drop ${name}: ${e instanceof Error ? e.message : String(e)}`),
  )
}

// Reuse of PostgreSQL test databases. `CREATE DATABASE … TEMPLATE` takes 0.2–0.4 s (PostgreSQL writes the whole copy
// to its log and flushes it), once per test: most of the PostgreSQL suites' time. So a test's database, once its store
// is closed, is emptied (one DELETE per table, children first: a few milliseconds) and the next test of the same file
// gets it. Only a database whose schema is still the template's is reused: a test that dropped a table or left a
// trigger (failWrites) gives its database back to be dropped. A file's idle databases are dropped when it ends
// (dropIdleTestDbs), and the global teardown drops any left with the run's mark.

/** The databases of this test file, emptied and waiting for its next test. */
const idlePgDatabases: string[] = []
/** What a database made from the template looks like: its schema's fingerprint, and the order that empties it. */
let pgTemplateShape: Promise<{ fingerprint: string; deletes: string }> | undefined

async function takePgDatabase(admin: string): Promise<string> {
  const idle = idlePgDatabases.pop()
  if (idle) return idle
  const name = `${process.env.GNAP_TEST_DB_PREFIX ?? 'gnap_test_'}${randomBytes(6).toString('hex')}`
  const template = process.env.GNAP_TEMPLATE_PG
  await createDatabase(admin, name, template)
  if (!template) migrate(databaseUrl(admin, name))
  // Read from the first fresh copy, before any test wrote to it.
  pgTemplateShape ??= onConnection(databaseUrl(admin, name), pgShape)
  await pgTemplateShape
  return name
}

async function releasePgDatabase(admin: string, name: string): Promise<void> {
  try {
    const shape = await pgTemplateShape
    const emptied =
      shape !== undefined &&
      (await onConnection(databaseUrl(admin, name), async (rows) => {
        if ((await pgFingerprint(rows)) !== shape.fingerprint) return false
        await rows(shape.deletes)
        return true
      }))
    if (emptied) {
      idlePgDatabases.push(name)
      return
    }
  } catch {
    // Not emptied: dropped below instead of reused.
  }
  await dropDatabase(admin, name)
}

/** Drops this file's idle databases (useTestDeps calls it after the file's last test). */
export async function dropIdleTestDbs(): Promise<void> {
  const admin = process.env.TEST_DATABASE_URL
  if (!admin) return
  for (let name = idlePgDatabases.pop(); name; name = idlePgDatabases.pop()) await dropDatabase(admin, name)
}

/** A hash of what a test could change in a database's schema: columns, constraints, indexes, triggers, functions. */
async function pgFingerprint(rows: Rows): Promise<string> {
  const [row] = await rows(
    `SELECT md5(string_agg(x, E'\n' ORDER BY x)) AS fingerprint FROM (
       SELECT format('column %s.%s %s %s %s', table_name, column_name, data_type, is_nullable, column_default) AS x
         FROM information_schema.columns WHERE table_schema = 'public'
       UNION ALL SELECT format('constraint %s.%s %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
         FROM pg_constraint WHERE connamespace = 'public'::regnamespace
       UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
       UNION ALL SELECT format('trigger %s.%s', tgrelid::regclass, tgname) FROM pg_trigger WHERE NOT tgisinternal
       UNION ALL SELECT 'function ' || p.oid::regprocedure FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace
     ) shape`,
  )
  return String(row?.fingerprint)
}

/** The template's fingerprint, and the DELETEs that empty a copy of it: a table after every table that refers to it. */
async function pgShape(rows: Rows): Promise<{ fingerprint: string; deletes: string }> {
  const tables = (await rows(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'`)).map((r) =>
    String(r.tablename),
  )
  const references = await rows(
    `SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent FROM pg_constraint
      WHERE contype = 'f' AND connamespace = 'public'::regnamespace AND conrelid <> confrelid`,
  )
  const unquote = (t: string) => t.replace(/^"|"$/g, '')
  const order: string[] = []
  const left = new Set(tables)
  while (left.size > 0) {
    // The tables no remaining table refers to can go now.
    const ready = [...left].filter((t) => !references.some((r) => unquote(String(r.parent)) === t && left.has(unquote(String(r.child)))))
    if (ready.length === 0) throw new Error(`[test-db] foreign keys form a cycle among ${[...left].join(', ')}`)
    for (const t of ready.sort()) {
      order.push(t)
      left.delete(t)
    }
  }
  return { fingerprint: await pgFingerprint(rows), deletes: order.map((t) => `DELETE FROM "${t}";`).join('\n') }
}
