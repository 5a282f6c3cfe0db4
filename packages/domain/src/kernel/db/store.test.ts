import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { migrateFile } from '../../testing/test-db'
import { openStore, POSTGRES_TIMEOUT_MS } from './store'

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

// PostgreSQL: a statement stuck behind a lock nobody releases must not hold its connection (and the requests waiting
// for one) for ever.
describe.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL timeouts', () => {
  it('ends a statement that runs too long, and the pool keeps serving', async () => {
    const store = await openStore(process.env.TEST_DATABASE_URL!, { postgresTimeoutMs: 300 })
    try {
      await expect(store.sql.all('SELECT pg_sleep(2)')).rejects.toThrow(/statement timeout/)
      expect(await store.sql.all<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }])
    } finally {
      await store.close()
    }
  })

  it('sets a minute by default on every connection', async () => {
    expect(POSTGRES_TIMEOUT_MS).toBe(60_000)
    const store = await openStore(process.env.TEST_DATABASE_URL!)
    try {
      const [statement] = await store.sql.all<{ statement_timeout: string }>('SHOW statement_timeout')
      const [idle] = await store.sql.all<{ idle_in_transaction_session_timeout: string }>('SHOW idle_in_transaction_session_timeout')
      expect([statement?.statement_timeout, idle?.idle_in_transaction_session_timeout]).toEqual(['1min', '1min'])
    } finally {
      await store.close()
    }
  })
})
