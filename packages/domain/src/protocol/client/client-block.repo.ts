import type { Sql, SqlRunner } from '../../kernel/db/sql'

// Blocked client instances (docs/protocol.md §2.16): one row per blocked wallet address, in its normal form. Read on
// every grant request (by primary key) and joined where continuations and token management load their grant.

export interface ClientBlockRow {
  client: string
  reason: string
  blockedBy: string
  createdAt: Date
}

/** Whether this wallet address (normal form) is blocked: one primary-key read. */
export async function isClientBlocked(db: SqlRunner, client: string): Promise<boolean> {
  return (await db.all(`SELECT 1 AS "blocked" FROM "ClientBlock" WHERE "client" = $1`, [client])).length > 0
}

export async function findClientBlock(db: SqlRunner, client: string): Promise<ClientBlockRow | null> {
  const [row] = await db.all<ClientBlockRow>(`SELECT "client", "reason", "blockedBy", "createdAt" FROM "ClientBlock" WHERE "client" = $1`, [client])
  return row ?? null
}

/** Blocks a wallet address; false when it already was (the primary key decides). */
export async function insertClientBlock(tx: SqlRunner, block: ClientBlockRow): Promise<boolean> {
  const count = await tx.run(
    `INSERT INTO "ClientBlock" ("client", "reason", "blockedBy", "createdAt") VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
    [block.client, block.reason, block.blockedBy, block.createdAt],
  )
  return count === 1
}

/** Removes a block; false when there was none. */
export async function deleteClientBlock(tx: SqlRunner, client: string): Promise<boolean> {
  return (await tx.run(`DELETE FROM "ClientBlock" WHERE "client" = $1`, [client])) === 1
}

/** The blocks, newest first. */
export function findClientBlocks(db: SqlRunner, take: number): Promise<ClientBlockRow[]> {
  return db.all<ClientBlockRow>(
    `SELECT "client", "reason", "blockedBy", "createdAt" FROM "ClientBlock" ORDER BY "createdAt" DESC, "client" ASC LIMIT $1`,
    [take],
  )
}

/** Which of these wallet addresses are blocked. */
export async function findBlockedAmong(db: SqlRunner, clients: string[]): Promise<Set<string>> {
  if (clients.length === 0) return new Set()
  const placeholders = clients.map((_, i) => `$${i + 1}`).join(', ')
  const rows = await db.all<{ client: string }>(`SELECT "client" FROM "ClientBlock" WHERE "client" IN (${placeholders})`, clients)
  return new Set(rows.map((r) => r.client))
}

/**
 * Makes every transaction that writes grants wait for the rest of this one, and this one wait for those already
 * under way (docs/protocol.md §3 Races, "grant request against blocking"). PostgreSQL: SHARE ROW EXCLUSIVE conflicts
 * with the ROW EXCLUSIVE lock any INSERT or UPDATE of "Grant" takes, and with itself (two blocks at once queue
 * rather than deadlock). SQLite: nothing to do, BEGIN IMMEDIATE already lets one writer in at a time.
 */
export async function lockGrantWrites(tx: SqlRunner, dialect: Sql['dialect']): Promise<void> {
  if (dialect === 'postgresql') await tx.run(`LOCK TABLE "Grant" IN SHARE ROW EXCLUSIVE MODE`)
}
