import { SpanKind, inSpan, statementSummary, tracingEnabled } from '../tracing'
import type { Sql, SqlRunner, SqlValue } from './sql'

/**
 * The SQL runner with a child span per statement when tracing is on (docs/operating.md "Traces"): named by operation
 * and table (`SELECT "Grant"`), with `db.system.name`, `db.operation.name` and `db.collection.name`, never the SQL's
 * values (they are parameters, and parameters are never recorded). Off, each call goes straight to the runner.
 */
export function tracedSql(sql: Sql): Sql {
  const system = sql.dialect
  const traced = (runner: SqlRunner): SqlRunner => ({
    all: <T>(text: string, params?: readonly SqlValue[]) =>
      tracingEnabled() ? inStatementSpan(system, text, () => runner.all<T>(text, params)) : runner.all<T>(text, params),
    run: (text: string, params?: readonly SqlValue[]) =>
      tracingEnabled() ? inStatementSpan(system, text, () => runner.run(text, params)) : runner.run(text, params),
  })
  const direct = traced(sql)
  return {
    dialect: sql.dialect,
    all: direct.all,
    run: direct.run,
    transaction: <T>(fn: (tx: SqlRunner) => Promise<T>) =>
      tracingEnabled()
        ? inSpan('db.transaction', { 'db.system.name': system }, () => sql.transaction((tx) => fn(traced(tx))), SpanKind.CLIENT)
        : sql.transaction(fn),
    pressure: () => sql.pressure(),
  }
}

function inStatementSpan<T>(system: string, text: string, fn: () => Promise<T>): Promise<T> {
  const { operation, table } = statementSummary(text)
  const attributes = { 'db.system.name': system, 'db.operation.name': operation, ...(table ? { 'db.collection.name': table } : {}) }
  return inSpan(table ? `${operation} ${table}` : operation, attributes, fn, SpanKind.CLIENT)
}
