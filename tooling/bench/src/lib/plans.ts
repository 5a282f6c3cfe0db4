// EXPLAIN QUERY PLAN of the hot queries, as the server sends them: the repository functions run on the seeded file
// through a runner that records the SQL they send, and SQLite explains each statement.
import { randomUUID } from 'node:crypto'
import { openStore } from '@gnap/domain/kernel'
import { findGrantByContinueId, findTokenByManagementId, findTokenForIntrospection, markRotated, type SqlRunner } from '@gnap/domain/testing'
import { Database } from './seed'

export interface QueryPlan {
  operation: string
  sql: string
  plan: string[]
  /** True when every table access is a SEARCH on an index or the primary key: no SCAN of a table or index. */
  indexedOnly: boolean
}

/**
 * `liveValue` is the value of a live seeded token: the lookups run for real rows, so every statement they send
 * (the token, then its grant and access items) is captured. The conditional update names no row, so nothing changes.
 */
export async function hotQueryPlans(file: string, liveValue: string): Promise<QueryPlan[]> {
  const ids = new Database(file, { readonly: true })
  const row = ids
    .prepare(`SELECT t."managementId", g."continueId" FROM "AccessToken" t JOIN "Grant" g ON g."id" = t."grantId" WHERE t."state" = 'active' LIMIT 1`)
    .get() as { managementId: string; continueId: string }
  ids.close()
  const store = await openStore(`file:${file}`)
  const sql = store.sql
  const captured: { operation: string; sql: string }[] = []
  let operation = ''
  const recording = (runner: SqlRunner): SqlRunner => ({
    all: (text, params) => (captured.push({ operation, sql: text }), runner.all(text, params)),
    run: (text, params) => (captured.push({ operation, sql: text }), runner.run(text, params)),
  })
  const steps: [string, () => Promise<unknown>][] = [
    ['token by managementId (rotate, revoke)', () => findTokenByManagementId(recording(sql), row.managementId)],
    ['token, grant and access by valueHash (introspect)', () => findTokenForIntrospection(recording(sql), liveValue)],
    ['grant by continueId (continue, cancel)', () => findGrantByContinueId(recording(sql), row.continueId)],
    ['rotation: conditional update', () => sql.transaction((tx) => markRotated(recording(tx), randomUUID(), new Date()))],
  ]
  try {
    for (const [name, run] of steps) {
      operation = name
      await run()
    }
  } finally {
    await store.close()
  }
  const sqlite = new Database(file, { readonly: true })
  try {
    return captured
      .filter((q) => !/^(BEGIN|COMMIT|ROLLBACK)/i.test(q.sql.trim()))
      .map(({ operation, sql }) => {
        const text = sql.replace(/\$\d+/g, '?')
        const params = (text.match(/\?/g) ?? []).map(() => null)
        const rows = sqlite.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...params) as { detail: string }[]
        const plan = rows.map((r) => r.detail)
        return { operation, sql, plan, indexedOnly: plan.every((d) => !/^SCAN /.test(d)) }
      })
  } finally {
    sqlite.close()
  }
}
