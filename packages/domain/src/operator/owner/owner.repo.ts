import type { Sql, SqlRunner, SqlValue } from '../../kernel/db/sql'

// Every SQL statement about resource owners and the wallet addresses they own.

/**
 * The rows of one tenant, for a query that must stay inside it (docs/protocol.md §2.21): `where` writes the condition
 * on a `tenantId` column and pushes its parameters onto `params` (tenants.ts sqlRowsOfTenant).
 */
export interface TenantScope {
  where: (column: string, params: SqlValue[]) => string
}

/** A new owner with their wallet addresses: call inside a transaction, so the owner never exists without them. */
export async function insertOwner(
  tx: SqlRunner,
  o: { id: string; email: string; name: string; passwordHash: string | null; walletAddresses: string[]; now: Date; tenantId?: string | null },
): Promise<void> {
  await tx.run(
    `INSERT INTO "Owner" ("id", "email", "name", "nameKey", "passwordHash", "status", "createdAt", "updatedAt", "tenantId") VALUES ($1, $2, $3, $4, $5, 'active', $6, $6, $7)`,
    [o.id, o.email, o.name, o.name.toLowerCase(), o.passwordHash, o.now, o.tenantId ?? null],
  )
  for (const url of o.walletAddresses) await insertOwnerWalletAddress(tx, o.id, url)
}

export async function insertOwnerWalletAddress(tx: SqlRunner, ownerId: string, url: string): Promise<void> {
  await tx.run(`INSERT INTO "OwnerWalletAddress" ("url", "ownerId") VALUES ($1, $2)`, [url, ownerId])
}

/** The account a sign-in checks: a null hash (no password set yet) never verifies. `tenantId` null: the operator's or implicit tenant. */
export async function findOwnerByEmail(
  db: SqlRunner,
  email: string,
): Promise<{ id: string; passwordHash: string | null; status: string; tenantId: string | null; tenantDeleted: boolean } | null> {
  const [row] = await db.all<{ id: string; passwordHash: string | null; status: string; tenantId: string | null; tenantDeleted: number }>(
    `SELECT o."id", o."passwordHash", o."status", o."tenantId",
            CASE WHEN t."deletedAt" IS NULL THEN 0 ELSE 1 END AS "tenantDeleted"
       FROM "Owner" o LEFT JOIN "Tenant" t ON t."id" = o."tenantId" WHERE o."email" = $1`,
    [email],
  )
  return row ? { ...row, tenantDeleted: Number(row.tenantDeleted) === 1 } : null
}

export interface OwnerRow {
  id: string
  email: string
  name: string
  status: string
  /** Null: the operator tenant's (or the implicit tenant's). */
  tenantId: string | null
  hasPassword: boolean
  lastSignInAt: Date | null
  createdAt: Date
  updatedAt: Date
}

const OWNER_COLUMNS = `o."id", o."email", o."name", o."status", o."tenantId", o."lastSignInAt", o."createdAt", o."updatedAt", CASE WHEN o."passwordHash" IS NULL THEN 0 ELSE 1 END AS "hasPassword"`

const toOwnerRow = (r: Omit<OwnerRow, 'hasPassword'> & { hasPassword: number | string }): OwnerRow => ({
  ...r,
  hasPassword: Number(r.hasPassword) === 1,
})

export async function findOwnerById(db: SqlRunner, id: string): Promise<OwnerRow | null> {
  const [row] = await db.all<Omit<OwnerRow, 'hasPassword'> & { hasPassword: number }>(`SELECT ${OWNER_COLUMNS} FROM "Owner" o WHERE o."id" = $1`, [
    id,
  ])
  return row ? toOwnerRow(row) : null
}

/** Whether another owner than `exceptId` has this email. */
export async function emailTaken(db: SqlRunner, email: string, exceptId: string | null): Promise<boolean> {
  const rows = await db.all<{ id: string }>(`SELECT "id" FROM "Owner" WHERE "email" = $1`, [email])
  return rows.some((r) => r.id !== exceptId)
}

export async function updateOwnerProfile(tx: SqlRunner, id: string, p: { email: string; name: string; now: Date }): Promise<void> {
  await tx.run(`UPDATE "Owner" SET "email" = $1, "name" = $2, "nameKey" = $3, "updatedAt" = $4 WHERE "id" = $5`, [
    p.email,
    p.name,
    p.name.toLowerCase(),
    p.now,
    id,
  ])
}

export async function updateOwnerStatus(tx: SqlRunner, id: string, status: 'active' | 'disabled', now: Date): Promise<void> {
  await tx.run(`UPDATE "Owner" SET "status" = $1, "updatedAt" = $2 WHERE "id" = $3`, [status, now, id])
}

export async function recordOwnerSignIn(db: SqlRunner, id: string, now: Date): Promise<void> {
  await db.run(`UPDATE "Owner" SET "lastSignInAt" = $1 WHERE "id" = $2`, [now, id])
}

export async function findWalletAddressesOf(db: SqlRunner, ownerId: string): Promise<string[]> {
  const rows = await db.all<{ url: string }>(`SELECT "url" FROM "OwnerWalletAddress" WHERE "ownerId" = $1 ORDER BY "url"`, [ownerId])
  return rows.map((r) => r.url)
}

/**
 * The wallet addresses, of any owner, that overlap `url` (a normalised URL): the same one, one above it (a path
 * prefix ending at a `/`) or one below it. Ranges on the primary key: `/` sorts just before `0`.
 */
/**
 * Makes every other transaction that writes wallet addresses wait for the rest of this one (docs/protocol.md §2.13).
 * PostgreSQL: SHARE ROW EXCLUSIVE conflicts with the ROW EXCLUSIVE lock an INSERT or UPDATE takes, and with itself;
 * readers are not held. SQLite: nothing to do, BEGIN IMMEDIATE already lets one writer in at a time.
 */
export async function lockWalletAddressWrites(tx: SqlRunner, dialect: Sql['dialect']): Promise<void> {
  if (dialect === 'postgresql') await tx.run(`LOCK TABLE "OwnerWalletAddress" IN SHARE ROW EXCLUSIVE MODE`)
}

export function findOverlappingWalletAddresses(db: SqlRunner, url: string): Promise<{ url: string; ownerId: string }[]> {
  const above: string[] = []
  const parsed = new URL(url)
  const segments = parsed.pathname.split('/').filter(Boolean)
  for (let i = 0; i < segments.length; i++) above.push(`${parsed.origin}${i === 0 ? '' : `/${segments.slice(0, i).join('/')}`}`)
  const params: string[] = [url, `${url}/`, `${url}0`, ...above]
  const inList = above.map((_, i) => `$${i + 4}`).join(', ')
  return db.all(
    `SELECT "url", "ownerId" FROM "OwnerWalletAddress" WHERE "url" = $1 OR ("url" >= $2 AND "url" < $3)${above.length ? ` OR "url" IN (${inList})` : ''}`,
    params,
  )
}

/** Ids of the grants with an access item naming `url` or a resource below it, newest first. */
export function findGrantsNamingWalletAddress(
  db: SqlRunner,
  url: string,
  take: number,
  scope: TenantScope | null = null,
): Promise<
  { id: string; state: string; finalizedReason: string | null; client: string; clientName: string | null; createdAt: Date; identifier: string }[]
> {
  const params: SqlValue[] = [url, `${url}/`, `${url}0`, take]
  return db.all(
    `SELECT DISTINCT g."id", g."state", g."finalizedReason", g."client", g."clientName", g."createdAt", a."identifier"
       FROM "AccessItem" a JOIN "Grant" g ON g."id" = a."grantId"
      WHERE (a."identifier" = $1 OR (a."identifier" >= $2 AND a."identifier" < $3))${scope ? ` AND ${scope.where('g."tenantId"', params)}` : ''}
      ORDER BY g."createdAt" DESC, g."id" DESC LIMIT $4`,
    params,
  )
}

export interface OwnerListRow {
  id: string
  email: string
  name: string
  status: string
  tenantId: string | null
  createdAt: Date
  key: string
}

/**
 * One page of owners. Without search: newest first (createdAt, id). With search: by the searched key (email,
 * lower-cased name or wallet address), then id, as ranges on their indexes. `after` is the last row of the
 * previous page (its key and id).
 */
export async function findOwnerPage(
  db: SqlRunner,
  q: {
    by: 'all' | 'email' | 'name' | 'walletAddress'
    prefix: string
    after: { key: string; id: string } | null
    take: number
    /** Each narrows the list to one tenant's owners (the caller's binding, the tenant filter). */
    scopes?: TenantScope[]
  },
): Promise<OwnerListRow[]> {
  const cols = `o."id", o."email", o."name", o."status", o."tenantId", o."createdAt"`
  const scopes = q.scopes ?? []
  if (q.by === 'all') {
    const params: SqlValue[] = []
    const where = scopes.map((sc) => sc.where(`o."tenantId"`, params))
    if (q.after) where.push(`(o."createdAt", o."id") < ($${params.push(new Date(q.after.key))}, $${params.push(q.after.id)})`)
    const rows = await db.all<Omit<OwnerListRow, 'key'>>(
      `SELECT ${cols} FROM "Owner" o${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY o."createdAt" DESC, o."id" DESC LIMIT $${params.push(q.take)}`,
      params,
    )
    return rows.map((r) => ({ ...r, key: r.createdAt.toISOString() }))
  }
  const column = q.by === 'email' ? `o."email"` : q.by === 'name' ? `o."nameKey"` : `w."url"`
  const from = q.by === 'walletAddress' ? `"OwnerWalletAddress" w JOIN "Owner" o ON o."id" = w."ownerId"` : `"Owner" o`
  // U+FFFF sorts after every character a key may hold (SQLite compares UTF-8 bytes).
  const params: SqlValue[] = [q.prefix, `${q.prefix}\uffff`]
  let where = `${column} >= $1 AND ${column} < $2`
  if (q.after) {
    // A row value: both databases seek the (key, id) index to it instead of scanning an OR.
    where += ` AND (${column}, o."id") > ($3, $4)`
    params.push(q.after.key, q.after.id)
  }
  for (const sc of scopes) where += ` AND ${sc.where(`o."tenantId"`, params)}`
  params.push(q.take)
  return db.all<OwnerListRow>(
    `SELECT ${cols}, ${column} AS "key" FROM ${from} WHERE ${where} ORDER BY ${column}, o."id" LIMIT $${params.length}`,
    params,
  )
}
/** The owner who owns this wallet address, if any. */
export async function findOwnerOfWalletAddress(db: SqlRunner, url: string): Promise<{ id: string; email: string } | null> {
  const [row] = await db.all<{ id: string; email: string }>(
    `SELECT o."id", o."email" FROM "OwnerWalletAddress" w JOIN "Owner" o ON o."id" = w."ownerId" WHERE w."url" = $1`,
    [url],
  )
  return row ?? null
}

/** Deletes an owner; their wallet addresses go with them (ON DELETE CASCADE). */
export async function deleteOwner(db: SqlRunner, id: string): Promise<void> {
  await db.run(`DELETE FROM "Owner" WHERE "id" = $1`, [id])
}

export async function deleteOwnerWalletAddress(db: SqlRunner, url: string): Promise<void> {
  await db.run(`DELETE FROM "OwnerWalletAddress" WHERE "url" = $1`, [url])
}

/**
 * The grants naming `url` or a resource below it that a revocation still changes (pending, approved, issued), with
 * their tenant; only `scope`'s tenant's when given.
 */
export async function findLiveGrantsNamingWalletAddress(
  db: SqlRunner,
  url: string,
  scope: TenantScope | null = null,
): Promise<{ id: string; tenantId: string | null }[]> {
  const params: SqlValue[] = [url, `${url}/`, `${url}0`]
  return db.all<{ id: string; tenantId: string | null }>(
    `SELECT DISTINCT g."id", g."tenantId" FROM "AccessItem" a JOIN "Grant" g ON g."id" = a."grantId"
      WHERE (a."identifier" = $1 OR (a."identifier" >= $2 AND a."identifier" < $3))
        AND (g."state" IN ('pending', 'approved') OR (g."state" = 'finalized' AND g."finalizedReason" = 'issued'))${scope ? ` AND ${scope.where('g."tenantId"', params)}` : ''}`,
    params,
  )
}

/** Records that an owner changed (a wallet address added or removed). */
export async function touchOwner(tx: SqlRunner, id: string, now: Date): Promise<void> {
  await tx.run(`UPDATE "Owner" SET "updatedAt" = $1 WHERE "id" = $2`, [now, id])
}

/** Replaces an owner's password hash; whether the owner exists. */
export async function updateOwnerPasswordHash(db: SqlRunner, id: string, passwordHash: string): Promise<boolean> {
  return (await db.run(`UPDATE "Owner" SET "passwordHash" = $1 WHERE "id" = $2`, [passwordHash, id])) === 1
}

/** An owner's email, name and status, for the password rules and the audit log; null when no owner has this id. */
export async function findOwnerIdentity(db: SqlRunner, id: string): Promise<{ id: string; email: string; name: string; status: string } | null> {
  const [row] = await db.all<{ id: string; email: string; name: string; status: string }>(
    `SELECT "id", "email", "name", "status" FROM "Owner" WHERE "id" = $1`,
    [id],
  )
  return row ?? null
}

/** Renames an owner (the search key follows the name). */
export async function updateOwnerName(db: SqlRunner, id: string, name: string, now: Date): Promise<void> {
  await db.run(`UPDATE "Owner" SET "name" = $1, "nameKey" = $2, "updatedAt" = $3 WHERE "id" = $4`, [name, name.toLowerCase(), now, id])
}
