import type { SqlRunner } from '../../kernel/db/sql'

// Every SQL statement about API keys (docs/protocol.md §2.18). The key itself is never stored: `hash` is its SHA-256.

export interface ApiKeyRow {
  id: string
  name: string
  role: string
  prefix: string
  hash: string
  createdBy: string
  /** The creating administrator's id; null for a key older than this column whose creator was not found. */
  createdById: string | null
  createdAt: Date
  expiresAt: Date | null
  lastUsedAt: Date | null
  revokedAt: Date | null
  /** The one tenant the key is bound to (docs/protocol.md §2.21); null: every tenant. */
  tenantId: string | null
}

/** The creator as they are now: null when deleted or unknown (docs/security.md, "API keys answer to their creator"). */
export interface ApiKeyCreator {
  role: string
  disabledAt: Date | null
}

export type ApiKeyWithCreator = ApiKeyRow & { creator: ApiKeyCreator | null }

const COLUMNS = ['id', 'name', 'role', 'prefix', 'hash', 'createdBy', 'createdById', 'createdAt', 'expiresAt', 'lastUsedAt', 'revokedAt', 'tenantId']
  .map((c) => `k."${c}"`)
  .join(', ')

/** Each key with its creator's current role and disabled mark, in the one read (a left join: null when gone). */
const WITH_CREATOR = `SELECT ${COLUMNS}, a."id" AS "creatorId", a."role" AS "creatorRole", a."disabledAt" AS "creatorDisabledAt"
  FROM "ApiKey" k LEFT JOIN "Admin" a ON a."id" = k."createdById"`

type JoinedRow = ApiKeyRow & { creatorId: string | null; creatorRole: string | null; creatorDisabledAt: Date | null }

const withCreator = ({ creatorId, creatorRole, creatorDisabledAt, ...row }: JoinedRow): ApiKeyWithCreator => ({
  ...row,
  creator: creatorId === null ? null : { role: creatorRole ?? '', disabledAt: creatorDisabledAt },
})

export async function insertApiKey(db: SqlRunner, row: Omit<ApiKeyRow, 'lastUsedAt' | 'revokedAt'>): Promise<void> {
  await db.run(
    `INSERT INTO "ApiKey" ("id", "name", "role", "prefix", "hash", "createdBy", "createdById", "createdAt", "expiresAt", "tenantId") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [row.id, row.name, row.role, row.prefix, row.hash, row.createdBy, row.createdById, row.createdAt, row.expiresAt, row.tenantId],
  )
}

/**
 * One key by the id part of the key (the primary key), with its creator joined: the only lookup a presented key
 * causes.
 */
export async function findApiKeyById(db: SqlRunner, id: string): Promise<ApiKeyWithCreator | null> {
  const [row] = await db.all<JoinedRow>(`${WITH_CREATOR} WHERE k."id" = $1`, [id])
  return row ? withCreator(row) : null
}

/** Every key with its creator, newest first (few rows: one per back end). */
export async function listApiKeyRows(db: SqlRunner): Promise<ApiKeyWithCreator[]> {
  return (await db.all<JoinedRow>(`${WITH_CREATOR} ORDER BY k."createdAt" DESC, k."id" DESC`)).map(withCreator)
}

/** The keys an administrator created that are neither revoked nor expired. */
export function liveApiKeysCreatedBy(db: SqlRunner, adminId: string, now: Date): Promise<{ id: string; name: string }[]> {
  return db.all<{ id: string; name: string }>(
    `SELECT "id", "name" FROM "ApiKey" WHERE "createdById" = $1 AND "revokedAt" IS NULL AND ("expiresAt" IS NULL OR "expiresAt" > $2) ORDER BY "name"`,
    [adminId, now],
  )
}

/** How many live (neither revoked nor expired) keys each administrator created, by their id. */
export async function countLiveApiKeysByCreator(db: SqlRunner, now: Date): Promise<Map<string, number>> {
  const rows = await db.all<{ createdById: string; n: number | string }>(
    `SELECT "createdById", COUNT(*) AS "n" FROM "ApiKey" WHERE "createdById" IS NOT NULL AND "revokedAt" IS NULL AND ("expiresAt" IS NULL OR "expiresAt" > $1) GROUP BY "createdById"`,
    [now],
  )
  return new Map(rows.map((r) => [r.createdById, Number(r.n)]))
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
