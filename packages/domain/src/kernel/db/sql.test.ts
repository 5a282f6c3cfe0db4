import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTestDb } from '../../testing/test-db'
import { Gate, SqliteSql, type Sql } from './sql'

// One process shares one SQLite connection between Prisma and the hot paths. A statement made outside a transaction
// while another request's transaction is open must neither land inside it (and be undone by its rollback) nor read
// its uncommitted rows. On PostgreSQL each transaction has a connection of its own; the same tests hold there.

let t: Awaited<ReturnType<typeof createTestDb>>
let sql: Sql
beforeEach(async () => {
  t = await createTestDb()
  sql = t.store.sql
})
afterEach(() => t.cleanup())

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
class Abort extends Error {}
const nonces = async () => (await t.store.prisma.signatureNonce.findMany({ orderBy: { nonce: 'asc' } })).map((n) => n.nonce)
const expiresAt = new Date('2030-01-01T00:00:00.000Z')

describe('statements outside a transaction, while one is open', () => {
  // Each opens a transaction, inserts a nonce inside it, and then runs `meanwhile` before rolling back.
  const insideTransactions: [string, (meanwhile: () => void) => Promise<unknown>][] = [
    [
      'a Prisma transaction',
      (meanwhile) =>
        t.store.prisma.$transaction(async (tx) => {
          await tx.signatureNonce.create({ data: { keyRef: 'k', nonce: 'in-rolled-back-tx', expiresAt } })
          meanwhile()
          await later(30)
          throw new Abort()
        }),
    ],
    [
      'a hot-path transaction',
      (meanwhile) =>
        sql.transaction(async (tx) => {
          await tx.run(`INSERT INTO "SignatureNonce" ("keyRef", "nonce", "expiresAt") VALUES ($1, $2, $3)`, ['k', 'in-rolled-back-tx', expiresAt])
          meanwhile()
          await later(30)
          throw new Abort()
        }),
    ],
  ]

  it.each(insideTransactions)('writes made during %s that rolls back are kept', async (_name, rolledBack) => {
    const outside: Promise<unknown>[] = []
    await expect(
      rolledBack(() => {
        outside.push(t.store.prisma.signatureNonce.create({ data: { keyRef: 'k', nonce: 'plain-prisma', expiresAt } }))
        outside.push(sql.run(`INSERT INTO "SignatureNonce" ("keyRef", "nonce", "expiresAt") VALUES ($1, $2, $3)`, ['k', 'plain-sql', expiresAt]))
      }),
    ).rejects.toBeInstanceOf(Abort)
    await Promise.all(outside)
    expect(await nonces()).toEqual(['plain-prisma', 'plain-sql'])
  })

  it('reads made during a transaction do not see its uncommitted rows', async () => {
    const reads: Promise<number>[] = []
    await expect(
      t.store.prisma.$transaction(async (tx) => {
        await tx.signatureNonce.create({ data: { keyRef: 'k', nonce: 'uncommitted', expiresAt } })
        reads.push(t.store.prisma.signatureNonce.count())
        reads.push(sql.all<{ n: unknown }>(`SELECT COUNT(*) AS "n" FROM "SignatureNonce"`).then((r) => Number(r[0]!.n)))
        await later(30)
        throw new Abort()
      }),
    ).rejects.toBeInstanceOf(Abort)
    expect(await Promise.all(reads)).toEqual([0, 0])
  })

  it('a committed transaction keeps its rows and the writes made meanwhile', async () => {
    let outside: Promise<unknown> = Promise.resolve()
    await sql.transaction(async (tx) => {
      await tx.run(`INSERT INTO "SignatureNonce" ("keyRef", "nonce", "expiresAt") VALUES ($1, $2, $3)`, ['k', 'committed', expiresAt])
      outside = t.store.prisma.signatureNonce.create({ data: { keyRef: 'k', nonce: 'plain-prisma', expiresAt } })
      await later(10)
    })
    await outside
    expect(await nonces()).toEqual(['committed', 'plain-prisma'])
  })
})

describe('the hot paths’ SQL', () => {
  it('reads back what Prisma wrote, dates as Dates, and Prisma reads back what it wrote', async () => {
    const at = new Date('2031-02-03T04:05:06.789Z')
    await t.store.prisma.signatureNonce.create({ data: { keyRef: 'k', nonce: 'by-prisma', expiresAt: at } })
    await sql.run(`INSERT INTO "SignatureNonce" ("keyRef", "nonce", "expiresAt") VALUES ($1, $2, $3)`, ['k', 'by-sql', at])
    const rows = await sql.all<{ nonce: string; expiresAt: Date }>(`SELECT "nonce", "expiresAt" FROM "SignatureNonce" ORDER BY "nonce"`)
    expect(rows).toEqual([
      { nonce: 'by-prisma', expiresAt: at },
      { nonce: 'by-sql', expiresAt: at },
    ])
    expect((await t.store.prisma.signatureNonce.findMany({ where: { expiresAt: at }, orderBy: { nonce: 'asc' } })).map((n) => n.nonce)).toEqual([
      'by-prisma',
      'by-sql',
    ])
  })

  it('binds a parameter used twice and parameters out of order', async () => {
    await sql.run(`INSERT INTO "SignatureNonce" ("keyRef", "nonce", "expiresAt") VALUES ($2, $1, $3)`, ['n', 'k', expiresAt])
    expect(await sql.all(`SELECT "keyRef", "nonce" FROM "SignatureNonce" WHERE "keyRef" = $1 OR "nonce" = $1`, ['k'])).toEqual([
      { keyRef: 'k', nonce: 'n' },
    ])
  })
})

// Workers of `pnpm start` share one SQLite file; a second connection to the test's file stands for another worker.
// While it holds the write lock, a hot-path write waits for it without putting this process to sleep: here the other
// worker's COMMIT is scheduled on this very event loop, so a write that slept in SQLite's busy handler would sleep
// through the whole busy timeout and fail. (SQLite only: on PostgreSQL each transaction has a connection of its
// own and waits on row locks, not a file lock.)
if (process.env.TEST_DATABASE_URL === undefined)
  describe('the write lock held by another worker', () => {
    let other: Database.Database
    beforeEach(() => {
      other = new Database(t.url.slice('file:'.length))
      other.exec('BEGIN IMMEDIATE')
    })
    afterEach(() => {
      if (other.inTransaction) other.exec('ROLLBACK')
      other.close()
    })
    const insert = `INSERT INTO "SignatureNonce" ("keyRef", "nonce", "expiresAt") VALUES ($1, $2, $3)`

    it('a transaction waits for it while the event loop goes on, then commits; the retries are counted', async () => {
      const before = sql.pressure()
      setTimeout(() => other.exec('COMMIT'), 50)
      await sql.transaction(async (tx) => {
        await tx.run(insert, ['k', 'after-the-other', expiresAt])
      })
      expect(await nonces()).toEqual(['after-the-other'])
      // The metrics' gnap_sqlite_busy_retries_total: every try that found the file locked.
      const after = sql.pressure()
      if (before.dialect !== 'sqlite' || after.dialect !== 'sqlite') throw new Error('expected SQLite')
      expect(after.busyRetries - before.busyRetries).toBeGreaterThan(0)
      await sql.run(insert, ['k', 'unlocked', expiresAt])
      expect(sql.pressure()).toMatchObject({ busyRetries: after.busyRetries })
    })

    it('so does a write outside a transaction, while reads go on', async () => {
      setTimeout(() => other.exec('COMMIT'), 50)
      const write = sql.run(insert, ['k', 'plain-write', expiresAt])
      // The other worker has not committed yet: reads are not held up by the waiting write.
      expect(await sql.all(`SELECT "nonce" FROM "SignatureNonce"`)).toEqual([])
      await write
      expect(await nonces()).toEqual(['plain-write'])
    })

    it('fails with SQLITE_BUSY after the busy timeout, and leaves the connection its busy timeout', async () => {
      const mine = new Database(t.url.slice('file:'.length), { timeout: 100 })
      try {
        const hot = new SqliteSql(() => mine, new Gate(), 100)
        let timerRan = false
        setTimeout(() => (timerRan = true), 20)
        await expect(hot.run(insert, ['k', 'never', expiresAt])).rejects.toMatchObject({ code: 'SQLITE_BUSY' })
        await expect(hot.transaction(async () => 'never')).rejects.toMatchObject({ code: 'SQLITE_BUSY' })
        expect(timerRan).toBe(true)
        expect(mine.pragma('busy_timeout', { simple: true })).toBe(100)
        expect(mine.inTransaction).toBe(false)
      } finally {
        mine.close()
      }
    })
  })

// Group commit (docs/operating.md, Storage): writes that arrive together share one SQLite transaction, each in a
// savepoint of its own, and one commit. Started in the same turn of the event loop, they fall in one batch.
const insertNonce = `INSERT INTO "SignatureNonce" ("keyRef", "nonce", "expiresAt") VALUES ($1, $2, $3)`
const batches = () => {
  const p = sql.pressure()
  if (p.dialect !== 'sqlite') throw new Error('expected SQLite')
  return { commitBatches: p.commitBatches, batchedTransactions: p.batchedTransactions }
}
const settled = (ps: Promise<unknown>[]) => Promise.allSettled(ps)

describe('writes that arrive together', () => {
  it('a transaction that throws is undone alone and answered with its own error; the others are committed', async () => {
    await sql.run(insertNonce, ['k', 'existing', expiresAt])
    const results = await settled([
      sql.transaction(async (tx) => tx.run(insertNonce, ['k', 'first', expiresAt])),
      sql.transaction(async (tx) => {
        await tx.run(insertNonce, ['k', 'undone', expiresAt])
        throw new Abort('refused')
      }),
      // A statement that fails inside a transaction (a duplicate key) fails that transaction only.
      sql.transaction(async (tx) => {
        await tx.run(insertNonce, ['k', 'also-undone', expiresAt])
        await tx.run(insertNonce, ['k', 'existing', expiresAt])
      }),
      sql.run(insertNonce, ['k', 'plain-write', expiresAt]),
    ])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled'])
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(Abort)
    expect(await nonces()).toEqual(['existing', 'first', 'plain-write'])
  })

  if (process.env.TEST_DATABASE_URL === undefined) {
    it('share one commit, and are answered only after it', async () => {
      const before = batches()
      let answered = 0
      const writes = ['a', 'b', 'c', 'd'].map((n) => sql.run(insertNonce, ['k', n, expiresAt]).then(() => answered++))
      // Queued, not yet run: nothing is answered before the batch commits.
      await Promise.resolve()
      expect(answered).toBe(0)
      await Promise.all(writes)
      expect(batches()).toEqual({ commitBatches: before.commitBatches + 1, batchedTransactions: before.batchedTransactions + 4 })
      expect(await nonces()).toEqual(['a', 'b', 'c', 'd'])
    })

    it('a batch holds at most SQLITE_GROUP_COMMIT_MAX transactions', async () => {
      const connection = new Database(t.url.slice('file:'.length))
      try {
        const capped = new SqliteSql(() => connection, new Gate(), 1000, { maxTransactions: 2, maxWaitMs: 0 })
        await Promise.all(['a', 'b', 'c', 'd', 'e'].map((n) => capped.run(insertNonce, ['k', n, expiresAt])))
        expect(capped.pressure()).toMatchObject({ commitBatches: 3, batchedTransactions: 5 })
        expect(await nonces()).toEqual(['a', 'b', 'c', 'd', 'e'])
      } finally {
        connection.close()
      }
    })

    it('a batch whose commit fails answers every member with its error, and applies none of them', async () => {
      // A deferred foreign key is checked at COMMIT: one member leaves a row pointing at no grant, so the batch's
      // COMMIT fails (SQLite keeps the transaction open then; it is rolled back).
      const results = await settled([
        sql.run(insertNonce, ['k', 'before', expiresAt]),
        sql.transaction(async (tx) => {
          await tx.run('PRAGMA defer_foreign_keys = ON')
          await tx.run(`INSERT INTO "GrantSubject" ("id", "grantId", "position", "format", "subId") VALUES ('s', 'no-such-grant', 0, 'opaque', 'x')`)
        }),
        sql.run(insertNonce, ['k', 'after', expiresAt]),
      ])
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected'])
      for (const r of results) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' })
      expect(await nonces()).toEqual([])
      expect(await sql.all(`SELECT "id" FROM "GrantSubject"`)).toEqual([])
      // The connection is usable again: the next batch commits.
      await sql.run(insertNonce, ['k', 'next', expiresAt])
      expect(await nonces()).toEqual(['next'])
    })

    it('when SQLite ends the whole transaction itself, the members before are answered with its error and the rest run in the next batch', async () => {
      // What an I/O error or a full disk does mid-batch (SQLite rolls the transaction back), done here by a ROLLBACK.
      const ioError = Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' })
      const results = await settled([
        sql.run(insertNonce, ['k', 'undone-with-the-batch', expiresAt]),
        sql.transaction(async (tx) => {
          await tx.run('ROLLBACK')
          throw ioError
        }),
        sql.run(insertNonce, ['k', 'next-batch', expiresAt]),
      ])
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled'])
      expect((results[0] as PromiseRejectedResult).reason).toBe(ioError)
      expect(await nonces()).toEqual(['next-batch'])
    })
  }
})

// The metrics' gnap_postgres_pool_connections and gnap_postgres_pool_waiting.
if (process.env.TEST_DATABASE_URL !== undefined)
  describe('the PostgreSQL pool', () => {
    it('tells its connections in use and idle, and the queries waiting', async () => {
      const inside = await sql.transaction(async () => sql.pressure())
      if (inside.dialect !== 'postgresql') throw new Error('expected PostgreSQL')
      expect(inside.poolTotal - inside.poolIdle).toBeGreaterThanOrEqual(1)
      expect(inside.poolWaiting).toBe(0)
      const after = sql.pressure()
      if (after.dialect !== 'postgresql') throw new Error('expected PostgreSQL')
      expect(after.poolIdle).toBeGreaterThanOrEqual(1)
    })
  })
