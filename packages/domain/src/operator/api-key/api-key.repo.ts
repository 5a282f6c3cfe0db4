import type { SqlRunner } from '../../kernel/db/sql'

// Every SQL statement about API keys (docs/protocol.md §2.18). The key itself is never stored: `hash` is its SHA-256.

export interface ApiKeyRow {
  id: string
  name: string
  role: string
  prefix: string
  hash: string
  createdBy: string
  createdAt: Date
  expiresAt: Date | null
  lastUsedAt: Date | null
  revokedAt: Date | null
}

const COLUMNS = `"id", "name", "role", "prefix", "hash", "createdBy", "createdAt", "expiresAt", "lastUsedAt", "revokedAt"`

export async function insertApiKey(db: SqlRunner, row: Omit<ApiKeyRow, 'lastUsedAt' | 'revokedAt'>): Promise<void> {
  await db.run(
    `INSERT INTO "ApiKey" ("id", "name", "role", "prefix", "hash", "createdBy", "createdAt", "expiresAt") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [row.id, row.name, row.role, row.prefix, row.hash, row.createdBy, row.createdAt, row.expiresAt],
  )
}

/** One key by the id part of the key (the primary key): the only lookup a presented key causes. */
export async function findApiKeyById(db: SqlRunner, id: string): Promise<ApiKeyRow | null> {
  const [row] = await db.all<ApiKeyRow>(`SELECT ${COLUMNS} FROM "ApiKey" WHERE "id" = $1`, [id])
  return row ?? null
}

/** Every key, newest first (few rows: one per back end). */
export function listApiKeyRows(db: SqlRunner): Promise<ApiKeyRow[]> {
  return db.all<ApiKeyRow>(`SELECT ${COLUMNS} FROM "ApiKey" ORDER BY "createdAt" DESC, "id" DESC`)
}

/** Whether a key that is not revoked already has this name. */
export async function liveApiKeyNamed(db: SqlRunner, name: string): Promise<boolean> {
  const rows = await db.all<{ id: string }>(`SELECT "id" FROM "ApiKey" WHERE "name" = $1 AND "revokedAt" IS NULL`, [name])
  return rows.length > 0
}

/** Revokes a key that is not revoked yet; false when unknown or already revoked. */
export async function markApiKeyRevoked(db: SqlRunner, id: string, now: Date): Promise<boolean> {
  return (await db.run(`UPDATE "ApiKey" SET "revokedAt" = $2 WHERE "id" = $1 AND "revokedAt" IS NULL`, [id, now])) === 1
}

/** Records a use unless another call (on any instance) recorded one since `notBefore`. */
export async function touchApiKey(db: SqlRunner, id: string, now: Date, notBefore: Date): Promise<void> {
  await db.run(`UPDATE "ApiKey" SET "lastUsedAt" = $2 WHERE "id" = $1 AND ("lastUsedAt" IS NULL OR "lastUsedAt" < $3)`, [id, now, notBefore])
}
