import type { SqlRunner } from '../../kernel/db/sql'
import { newId } from '../../kernel/secrets'
import type { AdminIdentity } from './admin-session'
import type { AdminRole } from './roles'

// Every SQL statement about administrators' accounts (their audit log: audit.repo.ts).

/** A live administrator and their hash, for sign-in (a disabled one is null; an invited one has no hash yet). */
export async function findAdminByEmail(db: SqlRunner, email: string): Promise<(AdminIdentity & { passwordHash: string | null }) | null> {
  const [row] = await db.all<AdminIdentity & { passwordHash: string | null }>(
    `SELECT "id", "email", "role", "passwordHash" FROM "Admin" WHERE "email" = $1 AND "disabledAt" IS NULL`,
    [email],
  )
  return row ?? null
}

/**
 * A live administrator (a disabled one is null: their sessions stop working at once), and whether their two-step
 * sign-in is on (docs/protocol.md §2.17).
 */
export async function findAdminById(db: SqlRunner, id: string): Promise<(AdminIdentity & { totpEnabled: boolean }) | null> {
  const [row] = await db.all<AdminIdentity & { totpSecret: string | null }>(
    `SELECT "id", "email", "role", "totpSecret" FROM "Admin" WHERE "id" = $1 AND "disabledAt" IS NULL`,
    [id],
  )
  return row ? { id: row.id, email: row.email, role: row.role, totpEnabled: row.totpSecret !== null } : null
}

/** An administrator's password hash (for the change of password). */
export async function setAdminPasswordHash(db: SqlRunner, id: string, passwordHash: string): Promise<void> {
  await db.run(`UPDATE "Admin" SET "passwordHash" = $2 WHERE "id" = $1`, [id, passwordHash])
}

export async function countAdmins(db: SqlRunner): Promise<number> {
  const [row] = await db.all<{ n: number | string }>(`SELECT COUNT(*) AS "n" FROM "Admin"`)
  return Number(row?.n ?? 0)
}

/** @throws a unique violation (`isUniqueViolation`) for a taken email */
export async function insertAdmin(
  db: SqlRunner,
  input: { email: string; passwordHash: string | null; role: AdminRole; now: Date },
): Promise<AdminIdentity> {
  const admin = { id: newId(), email: input.email, role: input.role }
  await db.run(`INSERT INTO "Admin" ("id", "email", "passwordHash", "role", "createdAt") VALUES ($1, $2, $3, $4, $5)`, [
    admin.id,
    admin.email,
    input.passwordHash,
    admin.role,
    input.now,
  ])
  return admin
}

/** Every administrator with their password hash (few rows: the console's accounts). */
export async function listAdminsWithHashes(db: SqlRunner): Promise<(AdminIdentity & { passwordHash: string | null })[]> {
  return db.all<AdminIdentity & { passwordHash: string | null }>(`SELECT "id", "email", "role", "passwordHash" FROM "Admin" ORDER BY "email"`)
}

export async function deleteAdmin(db: SqlRunner, id: string): Promise<void> {
  await db.run(`DELETE FROM "Admin" WHERE "id" = $1`, [id])
}

/** An administrator's account in any state, for the administrators page and the set-password link. */
export interface AdminAccountRow {
  id: string
  email: string
  role: string
  hasPassword: boolean
  /** Two-step sign-in (TOTP) is on. */
  twoStep: boolean
  disabledAt: Date | null
  createdAt: Date
}

const ACCOUNT_COLUMNS = `"id", "email", "role", "disabledAt", "createdAt", CASE WHEN "passwordHash" IS NULL THEN 0 ELSE 1 END AS "hasPassword",
  CASE WHEN "totpSecret" IS NULL THEN 0 ELSE 1 END AS "twoStep"`
type AccountQueryRow = Omit<AdminAccountRow, 'hasPassword' | 'twoStep'> & { hasPassword: number | string; twoStep: number | string }
const toAccount = (r: AccountQueryRow): AdminAccountRow => ({
  ...r,
  hasPassword: Number(r.hasPassword) === 1,
  twoStep: Number(r.twoStep) === 1,
})

export async function findAdminAccount(db: SqlRunner, id: string): Promise<AdminAccountRow | null> {
  const [row] = await db.all<AccountQueryRow>(`SELECT ${ACCOUNT_COLUMNS} FROM "Admin" WHERE "id" = $1`, [id])
  return row ? toAccount(row) : null
}

/** Every administrator, by email (few rows: the people who run the server). */
export async function listAdminAccounts(db: SqlRunner): Promise<AdminAccountRow[]> {
  const rows = await db.all<AccountQueryRow>(`SELECT ${ACCOUNT_COLUMNS} FROM "Admin" ORDER BY "email"`)
  return rows.map(toAccount)
}

export async function emailTakenByAdmin(db: SqlRunner, email: string): Promise<boolean> {
  return (await db.all(`SELECT 1 FROM "Admin" WHERE "email" = $1`, [email])).length > 0
}

/** Sets (or, with null, removes: a reset) an administrator's password hash. */
export async function updateAdminPasswordHash(db: SqlRunner, id: string, passwordHash: string | null): Promise<void> {
  await db.run(`UPDATE "Admin" SET "passwordHash" = $1 WHERE "id" = $2`, [passwordHash, id])
}

export async function updateAdminRole(db: SqlRunner, id: string, role: AdminRole): Promise<void> {
  await db.run(`UPDATE "Admin" SET "role" = $1 WHERE "id" = $2`, [role, id])
}

/** Disables (a date) or enables (null) an administrator. */
export async function updateAdminDisabledAt(db: SqlRunner, id: string, disabledAt: Date | null): Promise<void> {
  await db.run(`UPDATE "Admin" SET "disabledAt" = $1 WHERE "id" = $2`, [disabledAt, id])
}

/** An active `admin`: the role, enabled, and a password to sign in with (docs/protocol.md §2.14). */
const ACTIVE_ADMIN = `"role" = 'admin' AND "disabledAt" IS NULL AND "passwordHash" IS NOT NULL`

/**
 * Locks the rows of every active `admin` until the transaction ends. On PostgreSQL the no-op UPDATE takes their row
 * locks, so two transactions that each check "another active admin remains" run one after the other and the second
 * sees what the first did (READ COMMITTED reads the committed rows once the lock is granted); on SQLite a
 * transaction holds the whole database already.
 */
export async function lockActiveAdmins(db: SqlRunner): Promise<void> {
  await db.run(`UPDATE "Admin" SET "role" = "role" WHERE ${ACTIVE_ADMIN}`)
}

/** Whether the administrator is an active `admin` and no other one is. Call after lockActiveAdmins in the transaction. */
export async function isLastActiveAdmin(db: SqlRunner, id: string): Promise<boolean> {
  const rows = await db.all<{ id: string }>(`SELECT "id" FROM "Admin" WHERE ${ACTIVE_ADMIN}`)
  return rows.length === 1 && rows[0]!.id === id
}

/** When the administrator last signed in, from the audit log's sign-in entries (by their email); null if never. */
export async function findLastAdminSignIn(db: SqlRunner, email: string): Promise<Date | null> {
  const [row] = await db.all<{ createdAt: Date }>(
    `SELECT "createdAt" FROM "AuditLog" WHERE "target" = $1 AND "action" = 'admin.sign-in' ORDER BY "createdAt" DESC LIMIT 1`,
    [`admin:${email}`],
  )
  return row?.createdAt ?? null
}
