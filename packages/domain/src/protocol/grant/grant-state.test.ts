import { describe, expect, it } from 'vitest'
import { canRevoke, isFinalized, isInteractionExpired, isIssued, isRejected, isRevoked, secondsUntilContinue, type GrantStatus } from './grant-state'

const pending: GrantStatus = { state: 'pending', finalizedReason: null }
const approved: GrantStatus = { state: 'approved', finalizedReason: null }
const issued: GrantStatus = { state: 'finalized', finalizedReason: 'issued' }
const rejected: GrantStatus = { state: 'finalized', finalizedReason: 'rejected' }
const revoked: GrantStatus = { state: 'finalized', finalizedReason: 'revoked' }

describe('grant state predicates (docs/protocol.md §3)', () => {
  it.each<[string, GrantStatus, { finalized: boolean; issued: boolean; rejected: boolean; revoked: boolean; canRevoke: boolean }]>([
    ['pending', pending, { finalized: false, issued: false, rejected: false, revoked: false, canRevoke: true }],
    ['approved', approved, { finalized: false, issued: false, rejected: false, revoked: false, canRevoke: true }],
    ['finalized/issued', issued, { finalized: true, issued: true, rejected: false, revoked: false, canRevoke: true }],
    ['finalized/rejected', rejected, { finalized: true, issued: false, rejected: true, revoked: false, canRevoke: false }],
    ['finalized/revoked', revoked, { finalized: true, issued: false, rejected: false, revoked: true, canRevoke: false }],
  ])('classifies %s', (_name, status, expected) => {
    expect({
      finalized: isFinalized(status),
      issued: isIssued(status),
      rejected: isRejected(status),
      revoked: isRevoked(status),
      canRevoke: canRevoke(status),
    }).toEqual(expected)
  })

  it('does not read a reason on a grant that is not finalized', () => {
    // A stale reason on a non-finalized row never makes it terminal.
    expect(isRevoked({ state: 'pending', finalizedReason: 'revoked' })).toBe(false)
    expect(isIssued({ state: 'approved', finalizedReason: 'issued' })).toBe(false)
  })
})

describe('secondsUntilContinue (docs/protocol.md §2.2 step 6)', () => {
  const now = new Date('2025-01-15T12:00:00.000Z')
  const at = (ms: number) => new Date(now.getTime() + ms)

  it.each<[string, Date | null, number]>([
    ['no wait set', null, 0],
    ['wait long passed', at(-60_000), 0],
    ['wait ends now', at(0), 0],
    ['1 ms left', at(1), 1],
    ['exactly 5 s left', at(5_000), 5],
    ['4.2 s left, rounded up', at(4_200), 5],
  ])('%s → %i', (_name, notBefore, expected) => {
    expect(secondsUntilContinue(notBefore, now)).toBe(expected)
  })
})

describe('isInteractionExpired (docs/protocol.md §3: expired when now > created + INTERACTION_EXPIRY_SECONDS)', () => {
  const expiresAt = new Date('2025-01-15T12:10:00.000Z')

  it.each<[string, number, boolean]>([
    ['a minute before', -60_000, false],
    ['at the expiry instant', 0, false],
    ['1 ms after', 1, true],
    ['an hour after', 3_600_000, true],
  ])('%s → %s', (_name, offset, expected) => {
    expect(isInteractionExpired({ expiresAt }, new Date(expiresAt.getTime() + offset))).toBe(expected)
  })
})
