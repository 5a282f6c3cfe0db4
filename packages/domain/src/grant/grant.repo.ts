import type { DbTx } from '../db/client'
import { isId } from '../secrets'
import type { FinalizedReason, GrantState } from './grant-state'

export async function findGrantByContinueId(db: DbTx, continueId: string) {
  if (!isId(continueId)) return null
  return db.grant.findUnique({
    where: { continueId },
    include: { accessItems: { orderBy: { position: 'asc' } }, interaction: true },
  })
}

export type GrantWithRelations = NonNullable<Awaited<ReturnType<typeof findGrantByContinueId>>>

/**
 * Moves a grant from one of `from` to a new state, only if it is still there: the conditional update decides
 * races between requests and instances. False when another request moved it first.
 */
export async function moveGrant(
  tx: DbTx,
  id: string,
  from: { state: GrantState; finalizedReason?: FinalizedReason | null }[],
  to: { state: GrantState; finalizedReason?: FinalizedReason | null; now: Date; continueNotBefore?: Date | null },
): Promise<boolean> {
  const { count } = await tx.grant.updateMany({
    where: {
      id,
      OR: from.map((f) => ({ state: f.state, ...(f.finalizedReason !== undefined ? { finalizedReason: f.finalizedReason } : {}) })),
    },
    data: {
      state: to.state,
      finalizedReason: to.finalizedReason ?? null,
      updatedAt: to.now,
      ...(to.state === 'finalized' ? { finalizedAt: to.now } : {}),
      ...(to.continueNotBefore !== undefined ? { continueNotBefore: to.continueNotBefore } : {}),
    },
  })
  return count === 1
}

/**
 * Holds a grant in the state the caller read, for the rest of the transaction; false when it has moved since.
 * Rewrites the state with itself: on PostgreSQL the row lock makes a concurrent revocation wait for this transaction
 * (or this wait for it and see the new state), so a token issued here is committed before the revocation's
 * `revokeLiveTokens` statement starts, and is revoked by it. Without the lock a READ COMMITTED revocation could miss a
 * successor inserted by a concurrent rotation and leave it live. On SQLite writers are serialised anyway; the update
 * only takes the write lock a little earlier.
 */
export async function holdGrantState(
  tx: DbTx,
  id: string,
  seen: { state: string; finalizedReason: string | null; updatedAt: Date },
): Promise<boolean> {
  const { count } = await tx.grant.updateMany({
    where: { id, state: seen.state, finalizedReason: seen.finalizedReason },
    // updatedAt given as it was: @updatedAt would otherwise stamp the grant as changed.
    data: { state: seen.state, updatedAt: seen.updatedAt },
  })
  return count === 1
}
