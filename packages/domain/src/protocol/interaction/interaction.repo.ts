import type { AccessItem, Interaction } from '../../kernel/db/generated/client'
import type { SqlRunner } from '../../kernel/db/sql'
import type { InteractionState } from '../grant/grant-state'
import { findAccessItemRows } from '../access/access.repo'
import { findGrantById, type StoredGrant } from '../grant/grant.repo'
import { isId } from '../../kernel/secrets'
import { findTenant } from '../tenant/tenant.repo'

// Every SQL statement about interactions. The conditional updates decide races: a decision is taken once, an
// interaction finishes once, an interaction reference is used once.

/** An interaction row with its state typed. */
export type StoredInteraction = Omit<Interaction, 'state'> & { state: InteractionState }

export type InteractionWithGrant = StoredInteraction & { grant: StoredGrant & { accessItems: AccessItem[] } }

/**
 * An interaction by its id and AS nonce (both appear in the owner's URL), with its grant and the grant's access items.
 * None for a grant of a deleted tenant (docs/protocol.md §2.21).
 */
export async function findInteraction(db: SqlRunner, id: string, nonce: string): Promise<InteractionWithGrant | null> {
  if (!isId(id)) return null
  const [interaction] = await db.all<StoredInteraction>(`SELECT * FROM "Interaction" WHERE "id" = $1`, [id])
  if (!interaction || interaction.nonce !== nonce) return null
  const grant = await findGrantById(db, interaction.grantId)
  if (!grant) return null
  if (grant.tenantId !== null && ((await findTenant(db, grant.tenantId))?.deletedAt ?? null) !== null) return null
  return { ...interaction, grant: { ...grant, accessItems: await findAccessItemRows(db, grant.id) } }
}

/** Binds the owner's browser to the interaction: the hash of its session cookie's value. */
export async function setInteractionSession(db: SqlRunner, id: string, sessionHash: string): Promise<void> {
  await db.run(`UPDATE "Interaction" SET "sessionHash" = $1 WHERE "id" = $2`, [sessionHash, id])
}

/** Records the owner's decision only while the interaction is still pending: false when another decision came first. */
export async function decideInteractionOnce(
  db: SqlRunner,
  id: string,
  decision: { state: Exclude<InteractionState, 'pending'>; now: Date; ownerId: string | null },
): Promise<boolean> {
  const changed = await db.run(`UPDATE "Interaction" SET "state" = $1, "decidedAt" = $2, "ownerId" = $3 WHERE "id" = $4 AND "state" = 'pending'`, [
    decision.state,
    decision.now,
    decision.ownerId,
    id,
  ])
  return changed === 1
}

/** Marks the interaction finished, once: false when it already was. */
export async function finishInteractionOnce(tx: SqlRunner, id: string, now: Date): Promise<boolean> {
  return (await tx.run(`UPDATE "Interaction" SET "finishedAt" = $1 WHERE "id" = $2 AND "finishedAt" IS NULL`, [now, id])) === 1
}

/** A grant's interaction, as stored; null when the grant has none (a non-interactive grant). */
export async function findInteractionOfGrant(db: SqlRunner, grantId: string): Promise<StoredInteraction | null> {
  const [row] = await db.all<StoredInteraction>(`SELECT * FROM "Interaction" WHERE "grantId" = $1`, [grantId])
  return row ?? null
}

/** A new interaction waiting for the owner (state pending). */
export async function insertInteraction(
  tx: SqlRunner,
  i: Pick<Interaction, 'id' | 'nonce' | 'grantId' | 'interactRef' | 'expiresAt' | 'createdAt'>,
): Promise<void> {
  await tx.run(
    `INSERT INTO "Interaction" ("id", "nonce", "grantId", "state", "interactRef", "expiresAt", "createdAt") VALUES ($1, $2, $3, 'pending', $4, $5, $6)`,
    [i.id, i.nonce, i.grantId, i.interactRef, i.expiresAt, i.createdAt],
  )
}

/** Marks an interaction's reference used, once: false when it already was (RFC 9635 §5.1). */
export async function useInteractRef(tx: SqlRunner, interactionId: string, now: Date): Promise<boolean> {
  return (await tx.run(`UPDATE "Interaction" SET "refUsedAt" = $1 WHERE "id" = $2 AND "refUsedAt" IS NULL`, [now, interactionId])) === 1
}
