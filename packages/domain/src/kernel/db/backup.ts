import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { isPostgresUrl } from './store'

// `pnpm db:backup` and `pnpm db:restore` for the SQLite default (docs/protocol.md §9, "Backup and restore"). PostgreSQL
// has its own tools.

export class BackupError extends Error {}

const POSTGRES_BACKUP = 'DATABASE_URL names PostgreSQL: back it up with pg_dump, e.g. `pg_dump --format=custom --file=gnap.dump "$DATABASE_URL"`'
const POSTGRES_RESTORE =
  'DATABASE_URL names PostgreSQL: restore with pg_restore into a stopped server\'s database, e.g. `pg_restore --clean --if-exists --no-owner --dbname="$DATABASE_URL" gnap.dump`'

/** The file a SQLite `file:` URL names (a relative one from `cwd`), without its query. */
export function sqliteFile(databaseUrl: string, cwd: string = process.cwd()): string {
  if (!databaseUrl.startsWith('file:')) throw new BackupError(`DATABASE_URL must be a SQLite file: URL or a postgresql:// URL`)
  const file = databaseUrl.slice('file:'.length).replace(/\?.*$/, '')
  if (file === '' || file === ':memory:') throw new BackupError('DATABASE_URL names no database file')
  return path.resolve(cwd, file)
}

/** Writes `file` durably, then puts it in place of `target` in one step (rename within one folder). */
function putInPlace(file: string, target: string): void {
  const fd = fs.openSync(file, 'r+')
  try {
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
  fs.renameSync(file, target)
  const dir = fs.openSync(path.dirname(target), 'r')
  try {
    fs.fsyncSync(dir)
  } finally {
    fs.closeSync(dir)
  }
}

export interface BackupResult {
  file: string
  bytes: number
  ms: number
}

/**
 * A consistent copy of the SQLite database at `databaseUrl` into `target`, while servers use it: SQLite's online
 * backup API (through better-sqlite3) copies every page in one step, inside one read transaction, so the copy is the
 * database as of one commit; in WAL mode the servers' writes go on meanwhile. The copy is written beside `target` and
 * renamed onto it, so `target` is never a half-written file.
 */
export async function backupSqlite(databaseUrl: string, target: string): Promise<BackupResult> {
  if (isPostgresUrl(databaseUrl)) throw new BackupError(POSTGRES_BACKUP)
  const source = sqliteFile(databaseUrl)
  if (!fs.existsSync(source)) throw new BackupError(`no database at ${source}`)
  const out = path.resolve(target)
  if (out === source) throw new BackupError('the backup cannot be the database itself')
  if (!fs.existsSync(path.dirname(out))) throw new BackupError(`the folder ${path.dirname(out)} does not exist`)
  const partial = `${out}.partial-${process.pid}`
  const started = performance.now()
  const db = new Database(source, { fileMustExist: true, timeout: 10_000 })
  try {
    fs.rmSync(partial, { force: true })
    // The copy holds token and password hashes and two-step secrets: readable by its owner only. SQLite keeps the
    // mode of a file that exists; 'wx' also refuses a link planted under the partial file's name.
    fs.closeSync(fs.openSync(partial, 'wx', 0o600))
    // All remaining pages in the next step: copied under one read transaction, so no write restarts the copy.
    await db.backup(partial, { progress: () => 0x7fffffff })
  } catch (e) {
    fs.rmSync(partial, { force: true })
    throw e
  } finally {
    db.close()
  }
  putInPlace(partial, out)
  return { file: out, bytes: fs.statSync(out).size, ms: Math.round(performance.now() - started) }
}

/**
 * Puts the backup `source` in place of the SQLite database at `databaseUrl`, refusing while a server uses it.
 *
 * The backup is checked first (SQLite's quick_check, and a migrated schema). A process that has the database open
 * (every server keeps its connection for as long as it runs) is found by switching the database out of WAL mode,
 * which SQLite allows only to the sole connection: it fails at once with SQLITE_BUSY while any other is open. That
 * switch also folds the write-ahead log into the file and removes it, so no log of the old database is left to be
 * applied to the restored one. The backup is then copied beside the database and renamed onto it in one step.
 */
export function restoreSqlite(databaseUrl: string, source: string): { file: string; bytes: number } {
  if (isPostgresUrl(databaseUrl)) throw new BackupError(POSTGRES_RESTORE)
  const target = sqliteFile(databaseUrl)
  const backup = path.resolve(source)
  if (!fs.existsSync(backup)) throw new BackupError(`no backup at ${backup}`)
  if (backup === target) throw new BackupError('the backup is the database itself')
  checkBackup(backup)
  if (!fs.existsSync(path.dirname(target))) throw new BackupError(`the folder ${path.dirname(target)} does not exist`)
  if (fs.existsSync(target)) {
    const db = new Database(target, { fileMustExist: true, timeout: 0 })
    try {
      const mode = db.pragma('journal_mode = DELETE', { simple: true })
      if (mode !== 'delete') throw new BackupError(`could not take ${target} for itself (journal mode ${String(mode)})`)
    } catch (e) {
      if ((e as { code?: unknown }).code === 'SQLITE_BUSY') {
        throw new BackupError(`a server is using ${target}: stop it (every process that serves it) before restoring`)
      }
      throw e
    } finally {
      db.close()
    }
  }
  const partial = `${target}.restore-${process.pid}`
  try {
    fs.copyFileSync(backup, partial)
    // The database is readable by its owner only, whatever mode the backup file had.
    fs.chmodSync(partial, 0o600)
    putInPlace(partial, target)
  } catch (e) {
    fs.rmSync(partial, { force: true })
    throw e
  }
  for (const companion of ['-wal', '-shm', '-journal']) fs.rmSync(target + companion, { force: true })
  return { file: target, bytes: fs.statSync(target).size }
}

/** The backup is a sound SQLite database with this server's schema (its migration record). */
function checkBackup(file: string): void {
  let db: Database.Database
  try {
    db = new Database(file, { readonly: true, fileMustExist: true })
  } catch {
    throw new BackupError(`${file} is not a SQLite database`)
  }
  try {
    const check = db.pragma('quick_check', { simple: true })
    if (check !== 'ok') throw new BackupError(`${file} is damaged (quick_check: ${String(check)})`)
    const table = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'").get()
    if (!table) throw new BackupError(`${file} is not a database of this server (it has no migration record)`)
  } catch (e) {
    if (e instanceof BackupError) throw e
    throw new BackupError(`${file} is not a readable SQLite database: ${(e as Error).message}`)
  } finally {
    db.close()
  }
}
