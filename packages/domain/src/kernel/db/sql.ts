import type { Database, Statement } from 'better-sqlite3'
import type { Pool, PoolClient, QueryConfig } from 'pg'

// The SQL runner: the one way repositories reach the database (docs/protocol.md §9). One prepared statement per
// query, no per-call query compilation, no result interpretation. Prisma keeps the schema, the migrations and the
// console's read-only models (read-models.ts), over the same connections and, on SQLite, behind the same gate.
//
// SQL is written once, in the subset both databases share: quoted identifiers, `$1`-style parameters (rewritten to
// SQLite's `?1`), `INSERT … ON CONFLICT DO NOTHING`, `RETURNING`. Dates go in as Dates and come back as Dates.

export type SqlValue = string | number | Date | null

/** Runs statements: on the store outside a transaction, or inside one. */
export interface SqlRunner {
  /** The rows a query returns; DATETIME (SQLite) and timestamp (PostgreSQL) columns as Dates. */
  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]>
  /** The number of rows a statement changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<number>
}

export interface Sql extends SqlRunner {
  /** Which database runs the statements: for the few statements the two do not share (table locks). */
  readonly dialect: 'sqlite' | 'postgresql'
  /**
   * Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. Inside, use only the
   * runner it is given: on SQLite the store is held for the transaction, so a statement through the store (or
   * through Prisma) would wait for the transaction that is waiting for it.
   */
  transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T>
  /** How busy the database is, read when metrics are scraped. */
  pressure(): SqlPressure
}

/**
 * SQLite: the write-lock retries so far (a write found the file locked by another process and tried again).
 * PostgreSQL: the pool's connections, open, idle, and requests waiting for one.
 */
export type SqlPressure =
  | {
      dialect: 'sqlite'
      busyRetries: number
      /** Write batches committed (group commit): one commit, one flush each. */
      commitBatches: number
      /** Write transactions committed in those batches. */
      batchedTransactions: number
    }
  | { dialect: 'postgresql'; poolTotal: number; poolIdle: number; poolWaiting: number }

/**
 * Group commit on SQLite (docs/operating.md, Storage): write transactions that arrive together run in one SQLite
 * transaction, each in a savepoint of its own, and share its one commit, so one flush to disk serves many.
 */
export interface GroupCommit {
  /** The most write transactions in one batch. 1: each commits alone. */
  maxTransactions: number
  /**
   * How long a batch stays open for more after its first transaction arrived: 0 closes it at the next turn of the
   * event loop (the requests that reached their write in the same turn share it).
   */
  maxWaitMs: number
}

export const DEFAULT_GROUP_COMMIT: GroupCommit = { maxTransactions: 64, maxWaitMs: 0 }

/** A write transaction waiting for its batch. */
interface Member {
  fn: (tx: SqlRunner) => Promise<unknown>
  resolve: (value: unknown) => void
  reject: (e: unknown) => void
}

/**
 * One holder at a time, first come first served. SQLite: Prisma's better-sqlite3 adapter and the hot paths share one
 * connection, and on one connection every statement belongs to whatever transaction is open. Without the gate a
 * plain write made while another request's transaction was open (a revocation, a signature nonce, a rate-limit
 * count) ran inside that transaction and was undone if it rolled back, and a plain read saw its uncommitted rows.
 * So transactions hold the gate from BEGIN to COMMIT or ROLLBACK, and every statement outside a transaction waits
 * for it.
 */
export class Gate {
  #held = false
  readonly #waiting: (() => void)[] = []

  acquire(): Promise<void> {
    if (!this.#held) {
      this.#held = true
      return Promise.resolve()
    }
    return new Promise((resolve) => this.#waiting.push(resolve))
  }

  release(): void {
    const next = this.#waiting.shift()
    if (next) next()
    else this.#held = false
  }

  async hold<T>(fn: () => T | Promise<T>): Promise<T> {
    await this.acquire()
    try {
      return await fn()
    } finally {
      this.release()
    }
  }
}

/** Prisma's own format for DateTime in SQLite (its adapter's default `iso8601`), so both read what the other wrote. */
const sqliteDate = (d: Date): string => d.toISOString().replace('Z', '+00:00')

interface Prepared {
  stmt: Statement
  reader: boolean
  /** For each `?` of the statement, the index of its value among the `$n` parameters. */
  order: number[]
  /** Columns declared DATETIME, turned into Dates on the way out. */
  dates: string[]
}

/**
 * SQLite through the better-sqlite3 connection Prisma's adapter opened (`connection()` gives the current one), with
 * the statements prepared once and kept, and the same gate as the adapter's transactions (sqlite-adapter.ts).
 * better-sqlite3 is synchronous: a batch runs from BEGIN IMMEDIATE to COMMIT without giving the event loop away,
 * unless a transaction's `fn` awaits real I/O, which it must not (it would hold up every member of its batch).
 *
 * Group commit: `transaction` and every write outside one (a write is a transaction of one statement) join a queue;
 * a batch starts at the next turn of the event loop (or after `maxWaitMs`), takes up to `maxTransactions` of them
 * once it holds the file's write lock, and runs each in a savepoint of its own. A transaction that throws is rolled
 * back to its savepoint and answered with its own error, the others go on; one COMMIT (one flush under
 * synchronous=FULL) then ends the batch, and only after it are the members answered. A COMMIT that fails rolls the
 * whole batch back and answers every member that had succeeded with its error: nothing of theirs was applied.
 */
export class SqliteSql implements Sql {
  readonly dialect = 'sqlite'
  #prepared = new Map<string, Prepared>()
  #forConnection: Database | null = null
  readonly #direct: SqlRunner
  #busyRetries = 0
  #commitBatches = 0
  #batchedTransactions = 0
  readonly #queue: Member[] = []
  /** A batch is scheduled or running: later transactions join the queue it (or the one after it) takes. */
  #batching = false

  /**
   * `busyTimeoutMs`: the connection's busy timeout (as opened by Prisma's adapter), which statements here restore
   * after taking the write lock without it.
   */
  constructor(
    private readonly connection: () => Database,
    private readonly gate: Gate,
    private readonly busyTimeoutMs: number,
    private readonly groupCommit: GroupCommit = DEFAULT_GROUP_COMMIT,
  ) {
    this.#direct = {
      all: <T>(sql: string, params: readonly SqlValue[] = []) => Promise.resolve(this.#all<T>(sql, params)),
      run: (sql: string, params: readonly SqlValue[] = []) => Promise.resolve(this.#run(sql, params)),
    }
  }

  all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    if (this.#prepare(sql).stmt.readonly) return this.gate.hold(() => this.#all<T>(sql, params))
    return this.transaction(async () => this.#all<T>(sql, params))
  }

  run(sql: string, params: readonly SqlValue[] = []): Promise<number> {
    if (this.#prepare(sql).stmt.readonly) return this.gate.hold(() => this.#run(sql, params))
    return this.transaction(async () => this.#run(sql, params))
  }

  pressure(): SqlPressure {
    return {
      dialect: 'sqlite',
      busyRetries: this.#busyRetries,
      commitBatches: this.#commitBatches,
      batchedTransactions: this.#batchedTransactions,
    }
  }

  transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ fn, resolve: resolve as (value: unknown) => void, reject })
      this.#schedule()
    })
  }

  /**
   * Starts the next batch at the next turn of the event loop (or after `maxWaitMs`), unless one is on its way. Members
   * left waiting when a batch ends (beyond its `maxTransactions`, or queued while it ran) start the next one at once.
   */
  #schedule(now = false): void {
    if (this.#batching || this.#queue.length === 0) return
    this.#batching = true
    const start = () => {
      this.#runBatch()
        .catch((e: unknown) => {
          // The write lock was never taken (SQLITE_BUSY past the timeout, or the connection is gone): every
          // transaction waiting then is answered with that error, none of them ran.
          for (const m of this.#queue.splice(0)) m.reject(e)
        })
        .finally(() => {
          this.#batching = false
          this.#schedule(true)
        })
    }
    if (now) start()
    else if (this.groupCommit.maxWaitMs > 0) setTimeout(start, this.groupCommit.maxWaitMs)
    else setImmediate(start)
  }

  /**
   * One batch: BEGIN IMMEDIATE (IMMEDIATE takes the write lock at once, so another process on the same file makes it
   * wait instead of failing when a deferred transaction tries to upgrade its read lock), then the members waiting at
   * the moment the lock is held (the ones that queued while another process held it included), one savepoint each,
   * then one COMMIT.
   */
  #runBatch(): Promise<void> {
    return this.#whenWritable(
      () => this.#run('BEGIN IMMEDIATE', []),
      async () => {
        const batch = this.#queue.splice(0, Math.max(1, this.groupCommit.maxTransactions))
        const done: { member: Member; result: unknown }[] = []
        try {
          for (let i = 0; i < batch.length; i++) {
            const member = batch[i]!
            const outcome = await this.#inSavepoint(member)
            if (outcome.ok) done.push({ member, result: outcome.result })
            else if (!this.connection().inTransaction) {
              // SQLite ended the whole transaction itself (an I/O error, a full disk): the members before this one
              // were undone with it and are answered with its error; the ones not yet run wait for the next batch.
              for (const d of done) d.member.reject(outcome.error)
              this.#queue.unshift(...batch.slice(i + 1))
              return
            }
          }
          this.#run('COMMIT', [])
        } catch (e) {
          // The COMMIT failed (or a savepoint statement did): nothing of the batch is applied, and every member not
          // answered yet is answered with the error (a promise already rejected stays as it was), first, so that a
          // ROLLBACK that fails too leaves none of them waiting.
          for (const m of batch) m.reject(e)
          if (this.connection().inTransaction) this.#run('ROLLBACK', [])
          return
        }
        this.#commitBatches++
        this.#batchedTransactions += done.length
        for (const d of done) d.member.resolve(d.result)
      },
    )
  }

  /** Runs one member in a savepoint: released when it resolves; rolled back to, and the member answered, when it throws. */
  async #inSavepoint(member: Member): Promise<{ ok: true; result: unknown } | { ok: false; error: unknown }> {
    try {
      this.#run('SAVEPOINT "member"', [])
      const result = await member.fn(this.#direct)
      this.#run('RELEASE "member"', [])
      return { ok: true, result }
    } catch (error) {
      if (this.connection().inTransaction) {
        this.#run('ROLLBACK TO "member"', [])
        this.#run('RELEASE "member"', [])
      }
      member.reject(error)
      return { ok: false, error }
    }
  }

  /**
   * Runs `takesLock`, a statement that takes the file's write lock (a batch's BEGIN IMMEDIATE), then `holding` with
   * its result, both holding the gate; but without SQLite's busy handler. While
   * another process (another worker of `pnpm start`) holds the lock, that handler sleeps, synchronously, 1, 2, 5,
   * 10… ms between tries, and the whole worker sleeps with it. Here the statement fails at once with SQLITE_BUSY while the lock
   * is taken; the gate is let go, and the statement is tried again after a turn of the event loop (later after a
   * growing pause), so the worker serves its other requests, and this connection its other statements, meanwhile.
   * Past the busy timeout the error stands, as SQLite's own would. The connection keeps its busy timeout for
   * everything else (Prisma's statements).
   */
  async #whenWritable<L, T>(takesLock: () => L, holding: (locked: L) => T | Promise<T>): Promise<T> {
    const deadline = performance.now() + this.busyTimeoutMs
    for (let tries = 0; ; tries++) {
      await this.gate.acquire()
      try {
        let locked: { value: L } | null = null
        this.#run('PRAGMA busy_timeout = 0', [])
        try {
          locked = { value: takesLock() }
        } catch (e) {
          if (!isBusy(e) || performance.now() >= deadline) throw e
        } finally {
          this.#run(`PRAGMA busy_timeout = ${this.busyTimeoutMs}`, [])
        }
        if (locked) return await holding(locked.value)
      } finally {
        this.gate.release()
      }
      this.#busyRetries++
      await (tries < 2 ? new Promise((resolve) => setImmediate(resolve)) : later(Math.min(2 ** (tries - 2), 10)))
    }
  }

  #prepare(sql: string): Prepared {
    const db = this.connection()
    if (db !== this.#forConnection) {
      this.#prepared = new Map()
      this.#forConnection = db
    }
    let p = this.#prepared.get(sql)
    if (!p) {
      // better-sqlite3 binds only anonymous `?` by position: each `$n` becomes a `?` fed the n-th value.
      const order: number[] = []
      const stmt = db.prepare(
        sql.replace(/\$(\d+)/g, (_m, n: string) => {
          order.push(Number(n) - 1)
          return '?'
        }),
      )
      // Prisma's adapter turns safe integers on for the whole connection; our columns are small integers.
      if (stmt.reader) stmt.safeIntegers(false)
      const dates = stmt.reader
        ? stmt
            .columns()
            .filter((c) => c.type?.toUpperCase() === 'DATETIME')
            .map((c) => c.name)
        : []
      p = { stmt, reader: stmt.reader, order, dates }
      this.#prepared.set(sql, p)
    }
    return p
  }

  #all<T>(sql: string, params: readonly SqlValue[]): T[] {
    const p = this.#prepare(sql)
    const rows = p.stmt.all(...bind(p, params)) as Record<string, unknown>[]
    if (p.dates.length) {
      for (const row of rows) for (const c of p.dates) if (typeof row[c] === 'string') row[c] = new Date(row[c])
    }
    return rows as T[]
  }

  #run(sql: string, params: readonly SqlValue[]): number {
    const p = this.#prepare(sql)
    if (p.reader) return p.stmt.all(...bind(p, params)).length
    return p.stmt.run(...bind(p, params)).changes
  }
}

const isBusy = (e: unknown): boolean => typeof (e as { code?: unknown })?.code === 'string' && (e as { code: string }).code.startsWith('SQLITE_BUSY')
const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const toSqlite = (v: SqlValue | undefined): string | number | null => (v instanceof Date ? sqliteDate(v) : (v ?? null))
const bind = (p: Prepared, params: readonly SqlValue[]) => p.order.map((i) => toSqlite(params[i]))

// Prisma stores DateTime in `timestamp(3)` (no zone) as UTC; pg would read it as local time.
const TIMESTAMP_OID = 1114

/**
 * PostgreSQL through the pool Prisma's adapter uses: named prepared statements (pg prepares each once per
 * connection), transactions on one connection of the pool. READ COMMITTED, as Prisma's: the conditional updates
 * and row locks the repositories write decide races (grant.repo.ts `holdGrantState`).
 */
export class PgSql implements Sql {
  readonly dialect = 'postgresql'
  readonly #names = new Map<string, string>()
  readonly #types: QueryConfig['types']

  constructor(
    private readonly pool: Pool,
    getTypeParser: (oid: number, format?: 'text' | 'binary') => unknown,
  ) {
    this.#types = {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === TIMESTAMP_OID ? (v: string) => new Date(`${v.replace(' ', 'T')}Z`) : getTypeParser(oid, format)) as never,
    }
  }

  all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.#on(this.pool).all<T>(sql, params)
  }

  run(sql: string, params: readonly SqlValue[] = []): Promise<number> {
    return this.#on(this.pool).run(sql, params)
  }

  pressure(): SqlPressure {
    return { dialect: 'postgresql', poolTotal: this.pool.totalCount, poolIdle: this.pool.idleCount, poolWaiting: this.pool.waitingCount }
  }

  async transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T> {
    const client = await this.pool.connect()
    let broken = false
    try {
      await client.query('BEGIN')
      const result = await fn(this.#on(client))
      await client.query('COMMIT')
      return result
    } catch (e) {
      await client.query('ROLLBACK').catch(() => (broken = true))
      throw e
    } finally {
      // A connection that could not roll back is dropped, not handed to the next request mid-transaction.
      client.release(broken)
    }
  }

  #config(sql: string, params: readonly SqlValue[]): QueryConfig {
    let name = this.#names.get(sql)
    if (!name) {
      name = `gnap_${this.#names.size}`
      this.#names.set(sql, name)
    }
    return { name, text: sql, values: params.map(toPg), types: this.#types }
  }

  #on(target: Pool | PoolClient): SqlRunner {
    return {
      all: async <T>(sql: string, params: readonly SqlValue[] = []) => (await target.query(this.#config(sql, params))).rows as T[],
      run: async (sql: string, params: readonly SqlValue[] = []) => (await target.query(this.#config(sql, params))).rowCount ?? 0,
    }
  }
}

// A zone in a literal for `timestamp without time zone` is ignored: the UTC wall-clock time is stored, as Prisma does.
const toPg = (v: SqlValue): string | number | null => (v instanceof Date ? v.toISOString() : v)
