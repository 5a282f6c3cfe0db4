// pnpm db:backup / db:restore on SQLite (docs/protocol.md §9): the copy is the database as of one commit, a restore
// refuses while another connection (a server) has the database open, and a file that is not a sound backup of this
// server is refused before anything is touched.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { migrateFile } from '../../testing'
import { BackupError, backupSqlite, restoreSqlite } from './backup'

let dir: string
let dbFile: string
const url = () => `file:${dbFile}`
const countRows = (file: string) => {
  const db = new Database(file, { readonly: true })
  try {
    return (db.prepare('SELECT count(*) AS n FROM "Grant"').get() as { n: number }).n
  } finally {
    db.close()
  }
}
function addGrants(file: string, n: number): void {
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  const cols = db.prepare(`SELECT name, "notnull" AS required, dflt_value AS dflt, type FROM pragma_table_info('Grant')`).all() as {
    name: string
    required: number
    dflt: string | null
    type: string
  }[]
  const needed = cols.filter((c) => c.required && c.dflt === null)
  const insert = db.prepare(`INSERT INTO "Grant" (${needed.map((c) => `"${c.name}"`).join(', ')}) VALUES (${needed.map(() => '?').join(', ')})`)
  for (let i = 0; i < n; i++) {
    insert.run(...needed.map((c) => (/INT|REAL|NUM/i.test(c.type) ? 0 : /DATE/i.test(c.type) ? Date.now() : `${c.name}-${Math.random()}`)))
  }
  db.close()
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-backup-'))
  dbFile = path.join(dir, 'gnap.db')
  migrateFile(dbFile)
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

describe('db:backup and db:restore (SQLite)', () => {
  it('copies the database while another connection has it open in WAL mode, and the copy restores in place of a changed one', async () => {
    addGrants(dbFile, 3)
    const server = new Database(dbFile)
    server.pragma('journal_mode = WAL')
    const backup = path.join(dir, 'copy.db')
    const result = await backupSqlite(url(), backup)
    expect(result.bytes).toBeGreaterThan(0)
    expect(countRows(backup)).toBe(3)
    server.close()
    addGrants(dbFile, 2)
    expect(countRows(dbFile)).toBe(5)
    restoreSqlite(url(), backup)
    // No write-ahead log of the old database is left to be applied to the restored one.
    expect(fs.existsSync(`${dbFile}-wal`)).toBe(false)
    expect(countRows(dbFile)).toBe(3)
  })

  it('makes the copy, and the restored database, readable by their owner only (they hold token hashes and secrets)', async () => {
    const umask = process.umask(0o022)
    try {
      const backup = path.join(dir, 'copy.db')
      await backupSqlite(url(), backup)
      expect(fs.statSync(backup).mode & 0o777).toBe(0o600)
      fs.chmodSync(backup, 0o644)
      restoreSqlite(url(), backup)
      expect(fs.statSync(dbFile).mode & 0o777).toBe(0o600)
    } finally {
      process.umask(umask)
    }
  })

  it('refuses to restore while a server has the database open, and leaves it as it was', async () => {
    addGrants(dbFile, 2)
    const backup = path.join(dir, 'copy.db')
    await backupSqlite(url(), backup)
    addGrants(dbFile, 1)
    const server = new Database(dbFile)
    server.pragma('journal_mode = WAL')
    server.prepare('SELECT count(*) FROM "Grant"').get()
    try {
      expect(() => restoreSqlite(url(), backup)).toThrow(/a server is using/)
      expect((server.prepare('SELECT count(*) AS n FROM "Grant"').get() as { n: number }).n).toBe(3)
    } finally {
      server.close()
    }
    expect(countRows(dbFile)).toBe(3)
  })

  it('refuses a file that is not a backup of this server, before touching the database', () => {
    addGrants(dbFile, 1)
    const junk = path.join(dir, 'junk.db')
    fs.writeFileSync(junk, 'not a database at all, just some text that is long enough to look like a file header')
    expect(() => restoreSqlite(url(), junk)).toThrow(BackupError)
    const empty = path.join(dir, 'empty.db')
    new Database(empty).close()
    expect(() => restoreSqlite(url(), empty)).toThrow(/not a database of this server/)
    expect(countRows(dbFile)).toBe(1)
  })

  it('points to pg_dump and pg_restore for PostgreSQL', async () => {
    const pg = 'postgresql://gnap:gnap@127.0.0.1:5432/gnap'
    await expect(backupSqlite(pg, path.join(dir, 'x'))).rejects.toThrow(/pg_dump/)
    expect(() => restoreSqlite(pg, path.join(dir, 'x'))).toThrow(/pg_restore/)
  })
})
