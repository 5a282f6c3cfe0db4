// EXPLAIN QUERY PLAN of the hot queries, as the server sends them: the repository functions run through a Prisma
// client with query events on the seeded file, the SQL they send is captured, and SQLite explains each statement.
import { randomUUID } from 'node:crypto'
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3'
import { PrismaClient } from '../../../packages/domain/src/db/generated/client'
import { findTokenByManagementId, findTokenByValue, markRotated } from '../../../packages/domain/src/access-token/access-token.repo'
import { findGrantByContinueId } from '../../../packages/domain/src/grant/grant.repo'
import { Database } from './seed'

export interface QueryPlan {
  operation: string
  sql: string
  plan: string[]
  /** True when every table access is a SEARCH on an index or the primary key: no SCAN of a table or index. */
  indexedOnly: boolean
}

export async function hotQueryPlans(file: string): Promise<QueryPlan[]> {
  const db = new PrismaClient({ adapter: new PrismaBetterSQLite3({ url: `file:${file}` }), log: [{ emit: 'event', level: 'query' }] })
  const captured: { operation: string; sql: string }[] = []
  let operation = ''
  db.$on('query', (e) => captured.push({ operation, sql: e.query }))
  const id = randomUUID()
  const steps: [string, () => Promise<unknown>][] = [
    ['token by managementId (rotate, revoke)', () => findTokenByManagementId(db, id)],
    ['token by valueHash (introspect)', () => findTokenByValue(db, 'X'.repeat(48))],
    ['grant by continueId (continue, cancel)', () => findGrantByContinueId(db, id)],
    ['rotation: conditional update', () => db.$transaction((tx) => markRotated(tx, id, new Date()))],
  ]
  try {
    for (const [name, run] of steps) {
      operation = name
      await run()
    }
  } finally {
    await db.$disconnect()
  }
  const sqlite = new Database(file, { readonly: true })
  try {
    return captured
      .filter((q) => !/^(BEGIN|COMMIT|ROLLBACK)/i.test(q.sql.trim()))
      .map(({ operation, sql }) => {
        const params = (sql.match(/\?/g) ?? []).map(() => null)
        const rows = sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]
        const plan = rows.map((r) => r.detail)
        return { operation, sql, plan, indexedOnly: plan.every((d) => !/^SCAN /.test(d)) }
      })
  } finally {
    sqlite.close()
  }
}
