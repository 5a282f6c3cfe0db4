// Read-only looks into the server's SQLite file for the hardening tests (better-sqlite3, read-only handle).
import { createRequire } from 'node:module'

interface Statement {
  get(...params: unknown[]): unknown
  all(...params: unknown[]): unknown[]
  pluck(on?: boolean): Statement
}
export interface ReadonlyDb {
  prepare(sql: string): Statement
  close(): void
}
const require = createRequire(import.meta.url)
const Database = require('better-sqlite3') as new (file: string, options: { readonly: boolean; fileMustExist: boolean }) => ReadonlyDb

export function withDb<T>(dbFile: string, read: (db: ReadonlyDb) => T): T {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true })
  try {
    return read(db)
  } finally {
    db.close()
  }
}
