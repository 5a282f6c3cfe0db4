import type { SqlRunner } from '../../kernel/db/sql'
import type { FinalizedReason, GrantState } from '../../protocol/grant/grant-state'
import type { InteractionState } from '../../protocol/grant/grant-state'

// Every SQL statement of the owner's own account page: the owner with their wallet addresses, the grants whose
// access items name one of those addresses (or a resource below one), and the owner's password and sessions.

export interface AccountOwner {
  id: string
  email: string
  name: string
  passwordHash: string
  walletAddresses: string[]
}

export async function findAccountOwner(db: SqlRunner, id: string): Promise<AccountOwner | null> {
  const [owner] = await db.all<Omit<AccountOwner, 'walletAddresses'>>(`SELECT "id", "email", "name", "passwordHash" FROM "Owner" WHERE "id" = $1`, [
    id,
  ])
  if (!owner) return null
  const rows = await db.all<{ url: string }>(`SELECT "url" FROM "OwnerWalletAddress" WHERE "ownerId" = $1 ORDER BY "url"`, [id])
  return { ...owner, walletAddresses: rows.map((r) => r.url) }
}

/** A grant as the account page reads it, with its interaction's decision and its newest token's time. */
export interface AccountGrantRow {
  id: string
  client: string
  clientName: string | null
  state: GrantState
  finalizedReason: FinalizedReason | null
  createdAt: Date
  finalizedAt: Date | null
  interactionState: InteractionState | null
  decidedAt: Date | null
  lastTokenAt: Date | null
}

const GRANT_COLUMNS = `g."id", g."client", g."clientName", g."state", g."finalizedReason", g."createdAt", g."finalizedAt",
  i."state" AS "interactionState", i."decidedAt",
  (SELECT MAX(t."createdAt") FROM "AccessToken" t WHERE t."grantId" = g."id") AS "lastTokenAt"`

/**
 * Grants with at least one access item naming one of `walletAddresses` or a resource below it, as stored (a
 * pre-selection: the caller keeps those the owner owns in full, protocol/owner/owns-access.ts). Newest first, at most `take`.
 * `live` keeps approved and issued grants only.
 */
export async function findGrantsNaming(
  db: SqlRunner,
  walletAddresses: string[],
  options: { live: boolean; take: number; grantId?: string },
): Promise<AccountGrantRow[]> {
  if (walletAddresses.length === 0) return []
  const params: (string | number)[] = []
  const naming = walletAddresses.map((wa) => {
    params.push(wa, `${wa}/`, wa.length + 1)
    const n = params.length
    return `a."identifier" = $${n - 2} OR substr(a."identifier", 1, $${n}) = $${n - 1}`
  })
  let where = `EXISTS (SELECT 1 FROM "AccessItem" a WHERE a."grantId" = g."id" AND (${naming.join(' OR ')}))`
  if (options.live) where += ` AND (g."state" = 'approved' OR (g."state" = 'finalized' AND g."finalizedReason" = 'issued'))`
  if (options.grantId !== undefined) {
    params.push(options.grantId)
    where += ` AND g."id" = $${params.length}`
  }
  params.push(options.take)
  const rows = await db.all<AccountGrantRow & { lastTokenAt: Date | string | null }>(
    `SELECT ${GRANT_COLUMNS} FROM "Grant" g LEFT JOIN "Interaction" i ON i."grantId" = g."id" WHERE ${where}
     ORDER BY g."createdAt" DESC, g."id" DESC LIMIT $${params.length}`,
    params,
  )
  // MAX() of a date column comes back as text on SQLite.
  return rows.map((r) => ({ ...r, lastTokenAt: r.lastTokenAt === null ? null : new Date(r.lastTokenAt) }))
}

/** Who revoked each of these grants by hand, from the audit log (`grant:<id>` → actor); absent when nobody did. */
export async function findRevokers(db: SqlRunner, grantIds: string[]): Promise<Map<string, string>> {
  if (grantIds.length === 0) return new Map()
  const rows = await db.all<{ target: string; actor: string }>(
    `SELECT "target", "actor" FROM "AuditLog" WHERE "action" = 'grant.revoke' AND "target" IN (${grantIds.map((_, i) => `$${i + 1}`).join(', ')})`,
    grantIds.map((id) => `grant:${id}`),
  )
  return new Map(rows.map((r) => [r.target.slice('grant:'.length), r.actor]))
}

/** Sets an owner's password hash and ends their other owner sessions, inside the caller's transaction. */
export async function setOwnerPasswordEndingOtherSessions(
  tx: SqlRunner,
  input: { ownerId: string; passwordHash: string; keepSessionId: string },
): Promise<number> {
  await tx.run(`UPDATE "Owner" SET "passwordHash" = $1 WHERE "id" = $2`, [input.passwordHash, input.ownerId])
  return tx.run(`DELETE FROM "Session" WHERE "kind" = 'owner' AND "subjectId" = $1 AND "id" <> $2`, [input.ownerId, input.keepSessionId])
}
