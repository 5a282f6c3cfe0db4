import type { SqlRunner } from '../../kernel/db/sql'
import { newId } from '../../kernel/secrets'

// Every SQL statement of administrators' two-step sign-in (docs/protocol.md §2.17): the TOTP columns of "Admin",
// "AdminRecoveryCode" and "AdminSignInChallenge". Secrets are never logged; recovery codes and challenges are
// stored as SHA-256 hashes only.

export interface AdminTotpRow {
  totpSecret: string | null
  totpEnabledAt: Date | null
  totpLastStep: number | null
  totpPendingSecret: string | null
  totpPendingAt: Date | null
}

/** The TOTP state of a live administrator; null for an unknown or disabled one. */
export async function findAdminTotp(db: SqlRunner, adminId: string): Promise<AdminTotpRow | null> {
  const [row] = await db.all<AdminTotpRow & { totpLastStep: number | string | null }>(
    `SELECT "totpSecret", "totpEnabledAt", "totpLastStep", "totpPendingSecret", "totpPendingAt" FROM "Admin" WHERE "id" = $1 AND "disabledAt" IS NULL`,
    [adminId],
  )
  return row ? { ...row, totpLastStep: row.totpLastStep === null ? null : Number(row.totpLastStep) } : null
}

/** Starts (or restarts) an enrolment: the new secret waits for its first code. */
export async function setPendingTotp(db: SqlRunner, adminId: string, secret: string, now: Date): Promise<void> {
  await db.run(`UPDATE "Admin" SET "totpPendingSecret" = $2, "totpPendingAt" = $3 WHERE "id" = $1`, [adminId, secret, now])
}

/** Turns the pending secret on, its first code's step used; 0 when another request did it first or it changed. */
export function activateTotp(db: SqlRunner, input: { adminId: string; secret: string; step: number; now: Date }): Promise<number> {
  return db.run(
    `UPDATE "Admin" SET "totpSecret" = $2, "totpEnabledAt" = $3, "totpLastStep" = $4, "totpPendingSecret" = NULL, "totpPendingAt" = NULL
     WHERE "id" = $1 AND "totpPendingSecret" = $2 AND "totpSecret" IS NULL`,
    [input.adminId, input.secret, input.now, input.step],
  )
}

/**
 * Records `step` as the last step used, only when it is later than the last one: 1 when this call used it, 0 when
 * it (or a later one) was already used: of two sign-ins with the same code, one wins.
 */
export function useTotpStep(db: SqlRunner, adminId: string, step: number): Promise<number> {
  return db.run(
    `UPDATE "Admin" SET "totpLastStep" = $2 WHERE "id" = $1 AND "totpSecret" IS NOT NULL AND ("totpLastStep" IS NULL OR "totpLastStep" < $2)`,
    [adminId, step],
  )
}

/** Turns two-step sign-in off: secret, pending enrolment, recovery codes and pending sign-in challenges gone. */
export async function clearTotp(db: SqlRunner, adminId: string): Promise<void> {
  await db.run(
    `UPDATE "Admin" SET "totpSecret" = NULL, "totpEnabledAt" = NULL, "totpLastStep" = NULL, "totpPendingSecret" = NULL, "totpPendingAt" = NULL
     WHERE "id" = $1`,
    [adminId],
  )
  await db.run(`DELETE FROM "AdminRecoveryCode" WHERE "adminId" = $1`, [adminId])
  await deleteSignInChallengesOf(db, adminId)
}

/** Replaces an administrator's recovery codes by these hashes. */
export async function replaceRecoveryCodes(db: SqlRunner, adminId: string, codeHashes: string[]): Promise<void> {
  await db.run(`DELETE FROM "AdminRecoveryCode" WHERE "adminId" = $1`, [adminId])
  for (const codeHash of codeHashes) {
    await db.run(`INSERT INTO "AdminRecoveryCode" ("id", "adminId", "codeHash", "usedAt") VALUES ($1, $2, $3, NULL)`, [newId(), adminId, codeHash])
  }
}

/** Marks an unused recovery code used: 1 when this call used it, 0 for an unknown or used one. */
export function useRecoveryCode(db: SqlRunner, adminId: string, codeHash: string, now: Date): Promise<number> {
  return db.run(`UPDATE "AdminRecoveryCode" SET "usedAt" = $3 WHERE "adminId" = $1 AND "codeHash" = $2 AND "usedAt" IS NULL`, [
    adminId,
    codeHash,
    now,
  ])
}

export async function countUnusedRecoveryCodes(db: SqlRunner, adminId: string): Promise<number> {
  const [row] = await db.all<{ n: number | string }>(`SELECT COUNT(*) AS "n" FROM "AdminRecoveryCode" WHERE "adminId" = $1 AND "usedAt" IS NULL`, [
    adminId,
  ])
  return Number(row?.n ?? 0)
}

export interface SignInChallengeRow {
  id: string
  adminId: string
  failedAttempts: number
  expiresAt: Date
}

export async function insertSignInChallenge(db: SqlRunner, input: { id: string; adminId: string; now: Date; expiresAt: Date }): Promise<void> {
  // Expired ones of the same administrator go at the same time: the table holds only live challenges and a few late ones.
  await db.run(`DELETE FROM "AdminSignInChallenge" WHERE "adminId" = $1 AND "expiresAt" <= $2`, [input.adminId, input.now])
  await db.run(`INSERT INTO "AdminSignInChallenge" ("id", "adminId", "failedAttempts", "createdAt", "expiresAt") VALUES ($1, $2, 0, $3, $4)`, [
    input.id,
    input.adminId,
    input.now,
    input.expiresAt,
  ])
}

/** A live challenge (not expired at `now`); null otherwise. */
export async function findSignInChallenge(db: SqlRunner, id: string, now: Date): Promise<SignInChallengeRow | null> {
  const [row] = await db.all<SignInChallengeRow & { failedAttempts: number | string }>(
    `SELECT "id", "adminId", "failedAttempts", "expiresAt" FROM "AdminSignInChallenge" WHERE "id" = $1 AND "expiresAt" > $2`,
    [id, now],
  )
  return row ? { ...row, failedAttempts: Number(row.failedAttempts) } : null
}

/** Counts a wrong code against a challenge; a challenge that reached `maxFailures` is deleted. */
export async function recordChallengeFailure(db: SqlRunner, id: string, maxFailures: number): Promise<void> {
  await db.run(`UPDATE "AdminSignInChallenge" SET "failedAttempts" = "failedAttempts" + 1 WHERE "id" = $1`, [id])
  await db.run(`DELETE FROM "AdminSignInChallenge" WHERE "id" = $1 AND "failedAttempts" >= $2`, [id, maxFailures])
}

/** Deletes a challenge: 1 when this call deleted it (it is used up), 0 when it was already gone. */
export function deleteSignInChallenge(db: SqlRunner, id: string): Promise<number> {
  return db.run(`DELETE FROM "AdminSignInChallenge" WHERE "id" = $1`, [id])
}

/**
 * Ends every pending two-step sign-in of an administrator (the password was right, the code is awaited): a challenge
 * stands for the password and sessions it was given under, so it ends when they do (docs/security.md, "Two-step
 * sign-in"). The number ended.
 */
export function deleteSignInChallengesOf(db: SqlRunner, adminId: string): Promise<number> {
  return db.run(`DELETE FROM "AdminSignInChallenge" WHERE "adminId" = $1`, [adminId])
}
