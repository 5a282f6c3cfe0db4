// Grant states (PROTOCOL.md §3). Finalized is terminal (RFC 9635 §1.5): the only change allowed after it is
// issued → revoked, the reason only.

export type GrantState = 'pending' | 'approved' | 'finalized'
export type FinalizedReason = 'issued' | 'revoked' | 'rejected'

export interface GrantStatus {
  state: GrantState
  finalizedReason: FinalizedReason | null
}

export const isFinalized = (g: GrantStatus): boolean => g.state === 'finalized'
export const isRevoked = (g: GrantStatus): boolean => g.state === 'finalized' && g.finalizedReason === 'revoked'
export const isIssued = (g: GrantStatus): boolean => g.state === 'finalized' && g.finalizedReason === 'issued'
export const isRejected = (g: GrantStatus): boolean => g.state === 'finalized' && g.finalizedReason === 'rejected'

/** Grants that DELETE /continue or an administrator may revoke (PROTOCOL.md §2.3). */
export const canRevoke = (g: GrantStatus): boolean => g.state !== 'finalized' || g.finalizedReason === 'issued'

/** Seconds the client must still wait before continuing; 0 when it may continue now. */
export function secondsUntilContinue(notBefore: Date | null, now: Date): number {
  if (!notBefore) return 0
  return Math.max(0, Math.ceil((notBefore.getTime() - now.getTime()) / 1000))
}

export type InteractionState = 'PENDING' | 'APPROVED' | 'DENIED'

export const isInteractionExpired = (i: { expiresAt: Date }, now: Date): boolean => now.getTime() > i.expiresAt.getTime()
