// Grant states (docs/protocol.md §3). Finalized is terminal (RFC 9635 §1.5): the only change allowed after it is
// issued → revoked, the reason only.

import { secretMatches } from '../../kernel/secrets'

export type GrantState = 'pending' | 'approved' | 'finalized'
export type FinalizedReason = 'issued' | 'revoked' | 'rejected' | 'expired'

export interface GrantStatus {
  state: GrantState
  finalizedReason: FinalizedReason | null
}

export const GRANT_STATES = ['pending', 'approved', 'finalized'] as const satisfies readonly GrantState[]
export const FINALIZED_REASONS = ['issued', 'revoked', 'rejected', 'expired'] as const satisfies readonly FinalizedReason[]

/** A grant's state and reason in one word, as the console shows it: pending, approved, or why it was finalized. */
export type GrantStatusName = Exclude<GrantState, 'finalized'> | FinalizedReason
export const GRANT_STATUS_NAMES = ['pending', 'approved', ...FINALIZED_REASONS] as const satisfies readonly GrantStatusName[]

export const grantStatusName = (g: GrantStatus): GrantStatusName => (g.state === 'finalized' ? (g.finalizedReason ?? 'issued') : g.state)

export const isFinalized = (g: GrantStatus): boolean => g.state === 'finalized'
export const isRevoked = (g: GrantStatus): boolean => g.state === 'finalized' && g.finalizedReason === 'revoked'
export const isIssued = (g: GrantStatus): boolean => g.state === 'finalized' && g.finalizedReason === 'issued'
export const isRejected = (g: GrantStatus): boolean => g.state === 'finalized' && g.finalizedReason === 'rejected'
/** Finalized because its interaction expired before the grant was approved (docs/protocol.md §3). */
export const isExpiredGrant = (g: GrantStatus): boolean => g.state === 'finalized' && g.finalizedReason === 'expired'

/** Grants that DELETE /continue or an administrator may revoke (docs/protocol.md §2.3). */
export const canRevoke = (g: GrantStatus): boolean => g.state !== 'finalized' || g.finalizedReason === 'issued'

/** Seconds the client must still wait before continuing; 0 when it may continue now. */
export function secondsUntilContinue(notBefore: Date | null, now: Date): number {
  if (!notBefore) return 0
  return Math.max(0, Math.ceil((notBefore.getTime() - now.getTime()) / 1000))
}

export type InteractionState = 'pending' | 'approved' | 'denied'

export const isInteractionExpired = (i: { expiresAt: Date }, now: Date): boolean => now.getTime() > i.expiresAt.getTime()

/**
 * A grant still pending whose interaction has expired: nothing can approve it any more, so the first request that
 * touches it finalizes it as expired (docs/protocol.md §3, RFC 9635 §1.5 "such as a timeout").
 */
export const isOverdue = (g: GrantStatus, interaction: { expiresAt: Date } | null, now: Date): boolean =>
  g.state === 'pending' && interaction !== null && isInteractionExpired(interaction, now)

/** Whether `session` is the browser session the interaction was started in (only its hash is stored). */
export const isInteractionSession = (i: { sessionHash: string | null }, session: string | null): boolean =>
  session !== null && i.sessionHash !== null && secretMatches(session, i.sessionHash)
