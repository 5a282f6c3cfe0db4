// Health and readiness (docs/protocol.md §2.19): /healthz answers 200 while the process serves; /readyz answers 200
// only when the database answers and carries every migration this version ships, else 503 with the reason, as JSON,
// naming no secret. A database file that is missing (the server creates an empty one) or one that lacks a migration
// is not ready; the same server turns ready once the migration is there, without a restart. On PostgreSQL a database
// that goes away turns it not ready.
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { adminQuery } from '@gnap/domain/testing'
import { INTROSPECTION_SECRET, migrateDatabase, startServer, type RunningServer } from '@gnap/test-support'
import { freshDatabase, pgAdminUrl } from './support/databases'

// better-sqlite3 (no types in this package): the little of it used here, to edit the migration record.
interface Sqlite {
  prepare(sql: string): { get(...params: unknown[]): unknown; run(...params: unknown[]): unknown }
  close(): void
}
const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => Sqlite

const servers: RunningServer[] = []
const dirs: string[] = []
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()))
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

async function probe(server: RunningServer, which: 'healthz' | 'readyz') {
  const res = await fetch(`${server.url}${which}`)
  const text = await res.text()
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  expect(res.headers.get('cache-control')).toBe('no-store')
  expect(text).not.toContain(INTROSPECTION_SECRET)
  expect(text).not.toContain(server.dbFile)
  return { status: res.status, body: JSON.parse(text) as { status: string; reason?: string } }
}

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-health-'))
  dirs.push(dir)
  return dir
}

const lastMigration = () =>
  fs
    .readdirSync(path.resolve(import.meta.dirname, '../../../prisma/migrations'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .at(-1)!

describe('health and readiness', () => {
  it('a migrated database: both answer 200', async () => {
    const server = await startServer()
    servers.push(server)
    expect(await probe(server, 'healthz')).toEqual({ status: 200, body: { status: 'ok' } })
    expect(await probe(server, 'readyz')).toEqual({ status: 200, body: { status: 'ready' } })
    // HEAD answers as GET does, and other methods are refused.
    expect((await fetch(`${server.url}readyz`, { method: 'HEAD' })).status).toBe(200)
    expect((await fetch(`${server.url}healthz`, { method: 'POST' })).status).toBe(405)
  })

  it('a missing database file: alive, but not ready, and says why', async () => {
    const dbFile = path.join(tempDir(), 'missing.db')
    const server = await startServer({ DATABASE_URL: `file:${dbFile}` }, { dbFile })
    servers.push(server)
    expect(await probe(server, 'healthz')).toEqual({ status: 200, body: { status: 'ok' } })
    const ready = await probe(server, 'readyz')
    expect(ready.status).toBe(503)
    expect(ready.body).toEqual({ status: 'not ready', reason: expect.stringMatching(/no migrations applied.*pnpm db:migrate/) })
  })

  it('a database without the latest migration: not ready, naming it; ready once it is applied, without a restart', async () => {
    const dbFile = path.join(tempDir(), 'old.db')
    migrateDatabase(`file:${dbFile}`)
    const latest = lastMigration()
    // The database as the version before the latest left it, as far as the migration record shows.
    const db = new Database(dbFile)
    const row = db.prepare('SELECT * FROM _prisma_migrations WHERE migration_name = ?').get(latest) as Record<string, unknown>
    db.prepare('DELETE FROM _prisma_migrations WHERE migration_name = ?').run(latest)
    const server = await startServer({ DATABASE_URL: `file:${dbFile}` }, { dbFile })
    servers.push(server)
    expect((await probe(server, 'healthz')).status).toBe(200)
    const ready = await probe(server, 'readyz')
    expect(ready).toEqual({ status: 503, body: { status: 'not ready', reason: expect.stringContaining(latest) } })
    const columns = Object.keys(row)
    db.prepare(`INSERT INTO _prisma_migrations (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`).run(
      ...columns.map((c) => row[c]),
    )
    db.close()
    expect(await probe(server, 'readyz')).toEqual({ status: 200, body: { status: 'ready' } })
  })

  it.skipIf(!pgAdminUrl)('PostgreSQL: ready, then not ready once the database is gone', async () => {
    const db = await freshDatabase('postgresql', 'health')
    const server = await startServer({ DATABASE_URL: db.url })
    servers.push(server)
    expect(await probe(server, 'readyz')).toEqual({ status: 200, body: { status: 'ready' } })
    const name = new URL(db.url).pathname.slice(1)
    await adminQuery(pgAdminUrl!, `DROP DATABASE "${name}" WITH (FORCE)`)
    const ready = await probe(server, 'readyz')
    expect(ready).toEqual({ status: 503, body: { status: 'not ready', reason: 'the database does not answer' } })
    expect((await probe(server, 'healthz')).status).toBe(200)
  })

  it('a caller not behind a trusted proxy cannot choose the request id', async () => {
    const server = servers[0]!
    const res = await fetch(`${server.url}healthz`, { headers: { 'x-request-id': 'chosen-by-the-caller' } })
    const id = res.headers.get('x-request-id')
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    expect(id).not.toBe('chosen-by-the-caller')
  })
})
