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
