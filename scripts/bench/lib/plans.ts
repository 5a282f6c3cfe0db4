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

/**
 * `liveValue` is the value of a live seeded token: the lookups run for real rows, so every statement they send
 * (the token, then its grant and access items) is captured. The conditional update names no row, so nothing changes.
 */
export async function hotQueryPlans(file: string, liveValue: string): Promise<QueryPlan[]> {
  const ids = new Database(file, { readonly: true })
  const row = ids
    .prepare(
      `SELECT t."managementId", g."continueId" FROM "AccessToken" t JOIN "Grant" g ON g."id" = t."grantId" WHERE t."state" = 'active' LIMIT 1`,
    )
    .get() as { managementId: string; continueId: string }
  ids.close()
  const db = new PrismaClient({ adapter: new PrismaBetterSQLite3({ url: `file:${file}` }), log: [{ emit: 'event', level: 'query' }] })
  const captured: { operation: string; sql: string }[] = []
  let operation = ''
  db.$on('query', (e) => captured.push({ operation, sql: e.query }))
  const steps: [string, () => Promise<unknown>][] = [
    ['token by managementId (rotate, revoke)', () => findTokenByManagementId(db, row.managementId)],
    ['token by valueHash (introspect)', () => findTokenByValue(db, liveValue)],
    ['grant by continueId (continue, cancel)', () => findGrantByContinueId(db, row.continueId)],
    ['rotation: conditional update', () => db.$transaction((tx) => markRotated(tx, randomUUID(), new Date()))],
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
