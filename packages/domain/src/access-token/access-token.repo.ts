import type { DbTx } from '../db/client'
import { hashSecret, isId, newId, newSecret } from '../secrets'

export type AccessTokenState = 'active' | 'rotated' | 'revoked'

export interface IssuedToken {
  id: string
  managementId: string
  /** The value, returned to the client once and never stored. */
  value: string
  expiresIn: number
}

/** Inserts a live token for a grant; `previousId` links a rotation's successor to its predecessor. */
export async function insertAccessToken(
  tx: DbTx,
  input: { grantId: string; expiresIn: number; now: Date; previousId?: string },
): Promise<IssuedToken> {
  const value = newSecret()
  const token = await tx.accessToken.create({
    data: {
      id: newId(),
      grantId: input.grantId,
      managementId: newId(),
      valueHash: hashSecret(value),
      state: 'active',
      expiresIn: input.expiresIn,
      expiresAt: new Date(input.now.getTime() + input.expiresIn * 1000),
      createdAt: input.now,
      previousId: input.previousId ?? null,
    },
    select: { id: true, managementId: true },
  })
  return { id: token.id, managementId: token.managementId, value, expiresIn: input.expiresIn }
}

export async function findTokenByManagementId(db: DbTx, managementId: string) {
  if (!isId(managementId)) return null
  return db.accessToken.findUnique({
    where: { managementId },
    include: { grant: { select: { id: true, client: true, state: true, finalizedReason: true } } },
  })
}

export function findTokenByValue(db: DbTx, value: string) {
  return db.accessToken.findUnique({
    where: { valueHash: hashSecret(value) },
    include: {
      grant: {
        select: {
          id: true,
          client: true,
          state: true,
          finalizedReason: true,
          accessItems: { orderBy: { position: 'asc' } },
        },
      },
    },
  })
}

/** Marks a token rotated only if it is still live; false for the loser of a race (PROTOCOL.md §2.4 step 5). */
export async function markRotated(tx: DbTx, id: string, now: Date): Promise<boolean> {
  const { count } = await tx.accessToken.updateMany({ where: { id, state: 'active' }, data: { state: 'rotated', rotatedAt: now } })
  return count === 1
}

/** Revokes the live tokens given; tokens already rotated or revoked keep their state and first time. */
export async function revokeLiveTokens(tx: DbTx, where: { grantId: string } | { id: string }, now: Date): Promise<number> {
  const { count } = await tx.accessToken.updateMany({ where: { ...where, state: 'active' }, data: { state: 'revoked', revokedAt: now } })
  return count
}

export const isTokenExpired = (t: { expiresAt: Date }, now: Date): boolean => now.getTime() >= t.expiresAt.getTime()
