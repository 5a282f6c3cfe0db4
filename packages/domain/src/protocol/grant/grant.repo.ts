import type { AccessItem, Grant } from '../../kernel/db/generated/client'
import type { SqlRunner, SqlValue } from '../../kernel/db/sql'
import { isId } from '../../kernel/secrets'
import { findAccessItemRows } from '../access/access.repo'
import { findInteractionOfGrant, type StoredInteraction } from '../interaction/interaction.repo'
import { JOIN_TENANT, LIVE_TENANT } from '../tenant/tenant.repo'
import type { FinalizedReason, GrantState, GrantStatus } from './grant-state'

// Every SQL statement about grants: read on every continuation, moved by continuation, interaction, cancel and
// revocation. Rows keep the model's shape and types.

/** A grant row with its state typed as the state machine's (grant-state.ts). */
export type StoredGrant = Omit<Grant, 'state' | 'finalizedReason'> & GrantStatus

export type GrantWithRelations = StoredGrant & {
  accessItems: AccessItem[]
  interaction: StoredInteraction | null
  /** Whether an operator blocked the grant's client (docs/protocol.md §2.16). */
  clientBlocked: boolean
}

/**
 * A grant by its continuation id, with its access items in request order, its interaction, and whether its client is
 * blocked (read in the same statement). None for a grant of a deleted tenant (docs/protocol.md §2.21).
 */
export async function findGrantByContinueId(db: SqlRunner, continueId: string): Promise<GrantWithRelations | null> {
  if (!isId(continueId)) return null
  const [row] = await db.all<StoredGrant & { blockedClient: string | null }>(
    `SELECT g.*, b."client" AS "blockedClient" FROM "Grant" g LEFT JOIN "ClientBlock" b ON b."client" = g."client" ${JOIN_TENANT}
     WHERE g."continueId" = $1 AND ${LIVE_TENANT}`,
    [continueId],
  )
  if (!row) return null
  const { blockedClient, ...grant } = row
  const [accessItems, interaction] = await Promise.all([findAccessItemRows(db, grant.id), findInteractionOfGrant(db, grant.id)])
  return { ...grant, accessItems, interaction, clientBlocked: blockedClient !== null }
}

/** A grant by its id, as stored; null when none. */
export async function findGrantById(db: SqlRunner, id: string): Promise<StoredGrant | null> {
  const [grant] = await db.all<StoredGrant>(`SELECT * FROM "Grant" WHERE "id" = $1`, [id])
  return grant ?? null
}

/** A grant's state and finalization reason; null when no grant has this id. */
export async function findGrantStatus(db: SqlRunner, id: string): Promise<GrantStatus | null> {
  const [row] = await db.all<GrantStatus>(`SELECT "state", "finalizedReason" FROM "Grant" WHERE "id" = $1`, [id])
  return row ?? null
}

/** A new grant row; `updatedAt` starts at `createdAt`. Columns left out are null. */
export async function insertGrant(
  tx: SqlRunner,
  g: Pick<StoredGrant, 'id' | 'state' | 'client' | 'continueId' | 'continueTokenHash' | 'createdAt'> &
    Partial<
      Pick<
        StoredGrant,
        | 'finalizedReason'
        | 'finalizedAt'
        | 'clientName'
        | 'continueNotBefore'
        | 'interactStart'
        | 'finishMethod'
        | 'finishUri'
        | 'clientNonce'
        | 'clientJwk'
        | 'tenantId'
      >
    >,
): Promise<void> {
  await tx.run(
    `INSERT INTO "Grant" ("id", "state", "finalizedReason", "client", "clientName", "continueId", "continueTokenHash", "continueNotBefore",
       "interactStart", "finishMethod", "finishUri", "clientNonce", "createdAt", "updatedAt", "finalizedAt", "clientJwk", "tenantId")
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, $14, $15, $16)`,
    [
      g.id,
      g.state,
      g.finalizedReason ?? null,
      g.client,
      g.clientName ?? null,
      g.continueId,
      g.continueTokenHash,
      g.continueNotBefore ?? null,
      g.interactStart ?? null,
      g.finishMethod ?? null,
      g.finishUri ?? null,
      g.clientNonce ?? null,
      g.createdAt,
      g.finalizedAt ?? null,
      g.clientJwk ?? null,
      g.tenantId ?? null,
    ],
  )
}

/** A state to match: `finalizedReason` undefined matches any reason, null only none. */
export type StateMatch = { state: GrantState; finalizedReason?: FinalizedReason | null }

/** SQL matching one of `from`, its parameters numbered from `first`. */
function matching(from: StateMatch[], first: number): { sql: string; params: SqlValue[] } {
  const params: SqlValue[] = []
  const arg = (v: SqlValue) => `$${first + params.push(v) - 1}`
  const sql = from
    .map((f) => {
      const state = `"state" = ${arg(f.state)}`
      if (f.finalizedReason === undefined) return `(${state})`
      if (f.finalizedReason === null) return `(${state} AND "finalizedReason" IS NULL)`
      return `(${state} AND "finalizedReason" = ${arg(f.finalizedReason)})`
    })
    .join(' OR ')
  return { sql, params }
}

/**
 * Moves a grant from one of `from` to a new state, only if it is still there: the conditional update decides
 * races between requests and instances. False when another request moved it first.
 * With `continuableAt`, also only if the grant's continuation wait has passed at that time (docs/protocol.md §2.2
 * step 6): of concurrent continuations sent once `wait` passed, the first to restart the clock is the only one.
 */
export async function moveGrant(
  tx: SqlRunner,
  id: string,
  from: StateMatch[],
  to: { state: GrantState; finalizedReason?: FinalizedReason | null; now: Date; continueNotBefore?: Date | null },
  when: { continuableAt?: Date } = {},
): Promise<boolean> {
  const params: SqlValue[] = [to.state, to.finalizedReason ?? null, to.now]
  let set = `"state" = $1, "finalizedReason" = $2, "updatedAt" = $3`
  if (to.state === 'finalized') set += `, "finalizedAt" = $3`
  if (to.continueNotBefore !== undefined) set += `, "continueNotBefore" = $${params.push(to.continueNotBefore)}`
  let condition = `"id" = $${params.push(id)}`
  if (when.continuableAt !== undefined) {
    const at = `$${params.push(when.continuableAt)}`
    condition += ` AND ("continueNotBefore" IS NULL OR "continueNotBefore" <= ${at})`
  }
  const where = matching(from, params.length + 1)
  const count = await tx.run(`UPDATE "Grant" SET ${set} WHERE ${condition} AND (${where.sql})`, [...params, ...where.params])
  return count === 1
}

/**
 * Moves every grant of a client (its wallet address as stored) that is in one of `from` to a finalized state, in one
 * statement: the set-based form of moveGrant for blocking a client (docs/protocol.md §2.16). The ids of the grants
 * moved (each gets its own event).
 */
export async function finalizeGrantsOfClient(
  tx: SqlRunner,
  client: string,
  from: StateMatch[],
  to: { finalizedReason: FinalizedReason; now: Date },
): Promise<string[]> {
  const where = matching(from, 4)
  const rows = await tx.all<{ id: string }>(
    `UPDATE "Grant" SET "state" = 'finalized', "finalizedReason" = $1, "updatedAt" = $2, "finalizedAt" = $2 WHERE "client" = $3 AND (${where.sql})
     RETURNING "id"`,
    [to.finalizedReason, to.now, client, ...where.params],
  )
  return rows.map((r) => r.id)
}

/**
 * Holds a grant in the state the caller read, for the rest of the transaction; false when it has moved since.
 * Rewrites the state with itself: on PostgreSQL the row lock makes a concurrent revocation wait for this transaction
 * (or this wait for it and see the new state), so a token issued here is committed before the revocation's
 * `revokeLiveTokens` statement starts, and is revoked by it. Without the lock a READ COMMITTED revocation could miss a
 * successor inserted by a concurrent rotation and leave it live. On SQLite writers are serialised anyway.
 */
export async function holdGrantState(
  tx: SqlRunner,
  id: string,
  seen: { state: GrantState; finalizedReason: FinalizedReason | null },
): Promise<boolean> {
  const where = matching([seen], 2)
  return (await tx.run(`UPDATE "Grant" SET "state" = "state" WHERE "id" = $1 AND ${where.sql}`, [id, ...where.params])) === 1
}

/**
 * Finalizes a grant as expired only if it is still pending and its interaction expired before `now`, in one
 * conditional update (docs/protocol.md §3): of this and a finish approving the grant at the same instant, only the
 * first to move it from pending wins, on PostgreSQL too (the second re-reads the row after the first commits and
 * finds it no longer pending). The grant moved (its id and client, for its event); null when the grant is not, or no
 * longer, such a grant.
 */
export async function expireOverdueGrant(db: SqlRunner, id: string, now: Date): Promise<{ id: string; client: string } | null> {
  const [moved] = await db.all<{ id: string; client: string }>(
    `UPDATE "Grant" SET "state" = 'finalized', "finalizedReason" = 'expired', "updatedAt" = $1, "finalizedAt" = $1
     WHERE "id" = $2 AND "state" = 'pending' AND EXISTS (SELECT 1 FROM "Interaction" i WHERE i."grantId" = $2 AND i."expiresAt" < $1)
     RETURNING "id", "client"`,
    [now, id],
  )
  return moved ?? null
}

/** Ids of up to `take` grants still pending whose interaction expired before `now`, the longest expired first. */
export async function findOverdueGrantIds(db: SqlRunner, now: Date, take: number): Promise<string[]> {
  const rows = await db.all<{ id: string }>(
    `SELECT g."id" FROM "Grant" g JOIN "Interaction" i ON i."grantId" = g."id"
     WHERE g."state" = 'pending' AND i."expiresAt" < $1 ORDER BY i."expiresAt" ASC, g."id" ASC LIMIT $2`,
    [now, take],
  )
  return rows.map((r) => r.id)
}
