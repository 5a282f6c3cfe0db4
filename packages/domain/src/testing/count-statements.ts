import type { Sql, SqlRunner, SqlValue } from '../kernel/db/sql'

/**
 * What a piece of work asked of the database through its SqlRunner: statements (BEGIN and COMMIT not counted), the
 * writes among them, and the commits that changed something, each one flush to disk under `synchronous=FULL`
 * (docs/benchmark.md, "Statements per request"): a transaction with a write that changed a row, or such a write
 * outside any transaction. A statement that throws is not counted.
 */
export interface StatementCount {
  statements: number
  writes: number
  flushes: number
}

const isWrite = (sql: string): boolean => !/^\s*(SELECT|WITH)\b/i.test(sql)

/** A Sql that runs everything on `sql` and counts it in `count` (zero it with `reset`). */
export function countingSql(sql: Sql): { sql: Sql; count: StatementCount; reset(): void } {
  const count: StatementCount = { statements: 0, writes: 0, flushes: 0 }
  // A write flushes only when it changed a row: a commit that changed no page writes nothing to the WAL.
  const counted = (runner: SqlRunner, onChange: () => void): SqlRunner => ({
    async all<T>(text: string, params?: readonly SqlValue[]) {
      const rows = await runner.all<T>(text, params)
      note(text, rows.length > 0, onChange)
      return rows
    },
    async run(text: string, params?: readonly SqlValue[]) {
      const changed = await runner.run(text, params)
      note(text, changed > 0, onChange)
      return changed
    },
  })
  const note = (text: string, changed: boolean, onChange: () => void) => {
    count.statements += 1
    if (!isWrite(text)) return
    count.writes += 1
    if (changed) onChange()
  }
  const outside = counted(sql, () => (count.flushes += 1))
  const wrapped: Sql = {
    dialect: sql.dialect,
    all: outside.all,
    run: outside.run,
    pressure: () => sql.pressure(),
    async transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T> {
      let wrote = false
      const result = await sql.transaction((tx) => fn(counted(tx, () => (wrote = true))))
      if (wrote) count.flushes += 1
      return result
    },
  }
  return { sql: wrapped, count, reset: () => Object.assign(count, { statements: 0, writes: 0, flushes: 0 }) }
}
