import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { migrateFile } from '../testing/test-db'
import { openStore } from './store'

// docs/protocol.md §9: on SQLite a commit is on disk before it is answered (synchronous=FULL in WAL mode), unless the
// operator accepts losing the last commits on a power loss (SQLITE_SYNCHRONOUS=normal).
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-store-'))
const file = path.join(dir, 'store.db')
migrateFile(file)
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

/** What the store's own connection reports: journal mode, and synchronous (1 NORMAL, 2 FULL). */
async function pragmas(options?: Parameters<typeof openStore>[1]) {
  const store = await openStore(`file:${file}`, options)
  try {
    const [journal] = await store.sql.all<{ journal_mode: string }>('PRAGMA journal_mode')
    const [sync] = await store.sql.all<{ synchronous: number }>('PRAGMA synchronous')
    return { journal: journal?.journal_mode, synchronous: sync?.synchronous }
  } finally {
    await store.close()
  }
}

describe('SQLite durability', () => {
  it('syncs the write-ahead log at every commit by default', async () => {
    expect(await pragmas()).toEqual({ journal: 'wal', synchronous: 2 })
  })

  it('syncs only at checkpoints when the operator chose normal', async () => {
    expect(await pragmas({ sqliteSynchronous: 'normal' })).toEqual({ journal: 'wal', synchronous: 1 })
  })
})
