import type { SqlRunner } from '../db/sql'

// Every SQL statement about resource owners and the wallet addresses they own.

/** A new owner with their wallet addresses: call inside a transaction, so the owner never exists without them. */
export async function insertOwner(
  tx: SqlRunner,
  o: { id: string; email: string; name: string; passwordHash: string; walletAddresses: string[]; now: Date },
): Promise<void> {
  await tx.run(`INSERT INTO "Owner" ("id", "email", "name", "passwordHash", "createdAt") VALUES ($1, $2, $3, $4, $5)`, [
    o.id,
    o.email,
    o.name,
    o.passwordHash,
    o.now,
  ])
  for (const url of o.walletAddresses) {
    await tx.run(`INSERT INTO "OwnerWalletAddress" ("url", "ownerId") VALUES ($1, $2)`, [url, o.id])
  }
}

export async function findOwnerByEmail(db: SqlRunner, email: string): Promise<{ id: string; passwordHash: string } | null> {
  const [row] = await db.all<{ id: string; passwordHash: string }>(`SELECT "id", "passwordHash" FROM "Owner" WHERE "email" = $1`, [email])
  return row ?? null
}

/** An owner's name and the wallet addresses they own; null when no owner has this id. */
export async function findOwnerWithWalletAddresses(
  db: SqlRunner,
  id: string,
): Promise<{ id: string; name: string; walletAddresses: string[] } | null> {
  const [owner] = await db.all<{ id: string; name: string }>(`SELECT "id", "name" FROM "Owner" WHERE "id" = $1`, [id])
  if (!owner) return null
  const rows = await db.all<{ url: string }>(`SELECT "url" FROM "OwnerWalletAddress" WHERE "ownerId" = $1`, [id])
  return { ...owner, walletAddresses: rows.map((r) => r.url) }
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

/** Replaces an owner's password hash; whether the owner exists. */
export async function updateOwnerPasswordHash(db: SqlRunner, id: string, passwordHash: string): Promise<boolean> {
  return (await db.run(`UPDATE "Owner" SET "passwordHash" = $1 WHERE "id" = $2`, [passwordHash, id])) === 1
}

/** An owner's email and name, for the password rules and the audit log; null when no owner has this id. */
export async function findOwnerIdentity(db: SqlRunner, id: string): Promise<{ id: string; email: string; name: string } | null> {
  const [row] = await db.all<{ id: string; email: string; name: string }>(`SELECT "id", "email", "name" FROM "Owner" WHERE "id" = $1`, [id])
  return row ?? null
}

/** Renames an owner. */
export async function updateOwnerName(db: SqlRunner, id: string, name: string): Promise<void> {
  await db.run(`UPDATE "Owner" SET "name" = $1 WHERE "id" = $2`, [name, id])
}

/** Gives an owner one more wallet address (a unique violation when another owner has it). */
export async function insertOwnerWalletAddress(db: SqlRunner, ownerId: string, url: string): Promise<void> {
  await db.run(`INSERT INTO "OwnerWalletAddress" ("url", "ownerId") VALUES ($1, $2)`, [url, ownerId])
}
