// Prisma CLI configuration: migrations run on the WebAssembly schema engine through a driver adapter, so no engine
// binary is downloaded (see README, "Prisma without downloaded engines"). DATABASE_URL picks the store: `file:` is
// SQLite (prisma/schema.prisma, prisma/migrations), `postgres://` or `postgresql://` is PostgreSQL
// (prisma/postgres/schema.prisma written by scripts/pg-schema.mjs, prisma/postgres/migrations).
import path from 'node:path'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import { defineConfig } from 'prisma/config'
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3'
import type * as PgModule from 'pg'
import type * as AdapterPgModule from '@prisma/adapter-pg'

const defaultUrl = `file:${path.join(__dirname, 'data', 'gnap.db')}`
const url = process.env.DATABASE_URL ?? defaultUrl
process.env.DATABASE_URL = url
process.env.CHECKPOINT_DISABLE = '1'
const postgres = /^postgres(ql)?:\/\//.test(url)

// Create the folder of a SQLite file so a fresh clone migrates without a manual step.
if (url.startsWith('file:')) fs.mkdirSync(path.dirname(url.slice('file:'.length)), { recursive: true })

// The shadow database of `migrate dev` receives each migration as one multi-statement query, which
// better-sqlite3 refuses: replay those statement by statement.
function withScriptSafeShadow(factory: PrismaBetterSQLite3) {
  const connect = factory.connectToShadowDb.bind(factory)
  factory.connectToShadowDb = async () => {
    const db = await connect()
    const executeRaw = db.executeRaw.bind(db)
    db.executeRaw = async (q) => (q.args.length === 0 ? (await db.executeScript(q.sql), 0) : executeRaw(q))
    return db
  }
  return factory
}

/**
 * The PostgreSQL adapter for the schema engine, with four workarounds (numbered below) measured with Prisma 6.19.3,
 * @prisma/adapter-pg and pg 8 (docs/protocol.md §9 describes the storage). Loaded only for a PostgreSQL URL, so SQLite runs never import pg.
 */
function postgresAdapter() {
  // pg and the adapter are dependencies of @gnap/domain, which opens the database at run time.
  const domainRequire = createRequire(path.join(__dirname, 'packages', 'domain', 'package.json'))
  const pg = domainRequire('pg') as typeof PgModule.default
  const { PrismaPg } = domainRequire('@prisma/adapter-pg') as typeof AdapterPgModule

  // 1. The schema engine reads catalog columns of types such as `name` and fails with "Column type 'name' could not
  //    be deserialized" (an open Prisma bug): present the catalog's text-like types (char, name, int2vector,
  //    regproc, oidvector, pg_node_tree, regclass) as text before the adapter looks at the fields.
  const catalogTextOids = new Set([18, 19, 22, 24, 30, 194, 2205])
  const resultProto = pg.Result.prototype as unknown as { addFields: (fields: { dataTypeID: number }[]) => void }
  const addFields = resultProto.addFields
  resultProto.addFields = function (fields) {
    for (const f of fields) if (catalogTextOids.has(f.dataTypeID)) f.dataTypeID = 25
    return addFields.call(this, fields)
  }

  // 2. Every migrate command idles 10 s before exiting (a timer is left referenced): in this CLI process only,
  //    unref long timers, and let the pool close when idle.
  const setTimeoutRef = globalThis.setTimeout
  globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const t = setTimeoutRef(fn, ms, ...args)
    if ((ms ?? 0) >= 10_000) t.unref()
    return t
  }) as typeof setTimeout

  // 3. Given a connection string, the adapter's shadow database silently becomes the main one (the string
  //    overrides `database`): pass the fields one by one.
  const u = new URL(url)
  const conn = {
    host: decodeURIComponent(u.hostname) || 'localhost',
    port: u.port ? Number(u.port) : 5432,
    database: decodeURIComponent(u.pathname.slice(1)) || undefined,
    user: decodeURIComponent(u.username) || undefined,
    password: decodeURIComponent(u.password) || undefined,
    allowExitOnIdle: true,
  }
  const factory = new PrismaPg(conn)

  // 4. The adapter drops its shadow database before closing that database's pool, and fails: create the shadow
  //    database ourselves, and on dispose close the pool first, then drop it (the role needs CREATEDB).
  factory.connectToShadowDb = async () => {
    const shadowName = `prisma_shadow_${process.pid}_${Date.now()}`
    const admin = new pg.Client({ ...conn, database: conn.database ?? 'postgres' })
    await admin.connect()
    await admin.query(`CREATE DATABASE "${shadowName}"`)
    await admin.end()
    const shadow = await new PrismaPg({ ...conn, database: shadowName }).connect()
    const dispose = shadow.dispose.bind(shadow)
    shadow.dispose = async () => {
      await dispose()
      const dropper = new pg.Client({ ...conn, database: conn.database ?? 'postgres' })
      await dropper.connect()
      await dropper.query(`DROP DATABASE IF EXISTS "${shadowName}" WITH (FORCE)`)
      await dropper.end()
    }
    return shadow
  }
  return factory
}

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: postgres ? path.join('prisma', 'postgres', 'schema.prisma') : path.join('prisma', 'schema.prisma'),
  migrations: { path: postgres ? path.join('prisma', 'postgres', 'migrations') : path.join('prisma', 'migrations') },
  adapter: async () => (postgres ? postgresAdapter() : withScriptSafeShadow(new PrismaBetterSQLite3({ url }))),
})
