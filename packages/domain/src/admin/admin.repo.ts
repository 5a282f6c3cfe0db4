import type { SqlRunner } from '../db/sql'
import { newId } from '../secrets'
import type { AdminIdentity } from './admin-session'
import type { AdminRole } from './roles'

// Every SQL statement about administrators' accounts (their audit log: audit.repo.ts).

/** A live administrator and their hash, for sign-in (a disabled one is null). */
export async function findAdminByEmail(db: SqlRunner, email: string): Promise<(AdminIdentity & { passwordHash: string }) | null> {
  const [row] = await db.all<AdminIdentity & { passwordHash: string }>(
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
export async function insertAdmin(db: SqlRunner, input: { email: string; passwordHash: string; role: AdminRole; now: Date }): Promise<AdminIdentity> {
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
export async function listAdminsWithHashes(db: SqlRunner): Promise<(AdminIdentity & { passwordHash: string })[]> {
  return db.all<AdminIdentity & { passwordHash: string }>(`SELECT "id", "email", "role", "passwordHash" FROM "Admin" ORDER BY "email"`)
}

export async function deleteAdmin(db: SqlRunner, id: string): Promise<void> {
  await db.run(`DELETE FROM "Admin" WHERE "id" = $1`, [id])
}
