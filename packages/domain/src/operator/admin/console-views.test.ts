import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ZodError } from 'zod'
import { buildTestDeps, type TestDeps } from '../../testing/deps'
import { issueNonInteractiveGrant } from '../../testing/grant-flows'
import { ConsoleError } from './console-error'
import { orderChain, toTokenChain, tokenStatus, type TokenSource } from './admin-views'
import { decodeCursor, encodeCursor } from './page-cursor'
import { getStats, GetStatsInputSchema } from './get-stats'
import { getTokenChain } from './get-token-chain'

const at = (minutes: number) => new Date(Date.UTC(2025, 0, 15, 12, minutes))

function token(id: string, previousId: string | null, minutes: number, over: Partial<TokenSource> = {}): TokenSource {
  return {
    id,
    managementId: `m-${id}`,
    state: 'rotated',
    expiresIn: 600,
    expiresAt: at(minutes + 10),
    createdAt: at(minutes),
    rotatedAt: at(minutes + 10),
    revokedAt: null,
    previousId,
    ...over,
  }
}

describe('orderChain / toTokenChain', () => {
  it('follows previousId from the first token to the current one, whatever order the rows come in', () => {
    const rows = [token('c', 'b', 20, { state: 'active', rotatedAt: null }), token('a', null, 0), token('b', 'a', 10)]
    expect(orderChain(rows).map((r) => r.id)).toEqual(['a', 'b', 'c'])
    expect(toTokenChain(rows, at(25)).map((v) => [v.managementId, v.replacesManagementId, v.replacedByManagementId, v.status])).toEqual([
      ['m-a', null, 'm-b', 'rotated'],
      ['m-b', 'm-a', 'm-c', 'rotated'],
      ['m-c', 'm-b', null, 'active'],
    ])
  })

  it('starts at the oldest kept token when retention deleted the first ones (dangling previousId)', () => {
    const rows = [token('d', 'c', 30, { state: 'active', rotatedAt: null }), token('c', 'gone', 20)]
    expect(toTokenChain(rows, at(35)).map((v) => [v.managementId, v.replacesManagementId])).toEqual([
      ['m-c', null],
      ['m-d', 'm-c'],
    ])
  })

  it('keeps every row when there are several chains, oldest chain first', () => {
    const rows = [token('y', 'x', 50), token('b', 'a', 10), token('x', null, 40), token('a', null, 0)]
    expect(orderChain(rows).map((r) => r.id)).toEqual(['a', 'b', 'x', 'y'])
  })

  it.each([
    ['active', { state: 'active', expiresAt: at(10) }, at(9), 'active'],
    ['active past its expiry', { state: 'active', expiresAt: at(10) }, at(10), 'expired'],
    ['rotated', { state: 'rotated', expiresAt: at(10) }, at(5), 'rotated'],
    ['revoked after expiry', { state: 'revoked', expiresAt: at(10) }, at(20), 'revoked'],
  ] as const)('tokenStatus: %s', (_name, t, now, expected) => {
    expect(tokenStatus(t, now)).toBe(expected)
  })
})

describe('page cursors', () => {
  it('round-trips a position for its ordering only', () => {
    const cursor = encodeCursor('createdAt:desc', { value: at(3), id: 'abc' })
    expect(decodeCursor('createdAt:desc', cursor)).toEqual({ value: at(3), id: 'abc' })
    expect(() => decodeCursor('updatedAt:desc', cursor)).toThrow(ConsoleError)
  })

  it.each(['', '!!!', Buffer.from('[]').toString('base64url'), Buffer.from('{"o":"createdAt:desc","v":"yesterday","i":"x"}').toString('base64url')])(
    'refuses %j with bad_request',
    (cursor) => {
      expect(() => decodeCursor('createdAt:desc', cursor)).toThrow(expect.objectContaining({ code: 'bad_request' }))
    },
  )
})

describe('getStats and getTokenChain on the database', () => {
  let t: TestDeps
  beforeEach(async () => {
    t = await buildTestDeps({ now: new Date('2025-01-15T22:00:00.000Z'), config: { grantRequestsPerMinutePerClient: 0 } })
  })
  afterEach(async () => {
    await t.cleanup()
  })

  it('cuts the range into UTC days and counts only inside the range at both ends', async () => {
    await issueNonInteractiveGrant(t) // 15 Jan 22:00
    t.clock.advance(3 * 3600)
    await issueNonInteractiveGrant(t) // 16 Jan 01:00
    t.clock.advance(3600)
    await issueNonInteractiveGrant(t) // 16 Jan 02:00, outside [from, to)
    const stats = await getStats(t.deps, { from: new Date('2025-01-15T21:00:00.000Z'), to: new Date('2025-01-16T02:00:00.000Z'), bucket: 'day' })
    expect(stats.series).toEqual([
      { start: new Date('2025-01-15T00:00:00.000Z'), grantsCreated: 1, rotations: 0 },
      { start: new Date('2025-01-16T00:00:00.000Z'), grantsCreated: 1, rotations: 0 },
    ])
    expect(stats.grants).toMatchObject({ total: 2, issued: 2 })
    // Both tokens in the range expired (22:10 and 01:10) before now (02:00); the third is outside it.
    expect(stats.tokens).toEqual({ issued: 2, rotated: 0, revoked: 0, expired: 2 })
  })

  it('refuses ranges it will not count', async () => {
    const now = t.clock.now
    // The router's `.input()` refuses them; getStats takes what it parsed.
    expect(() => GetStatsInputSchema.parse({ from: now, to: now })).toThrow(ZodError)
    // Only days so far.
    expect(() => GetStatsInputSchema.parse({ from: new Date(0), to: now, bucket: 'hour' })).toThrow(ZodError)
  })

  it('answers not_found for the chain of an unknown grant', async () => {
    await expect(getTokenChain(t.deps, crypto.randomUUID())).rejects.toMatchObject({ code: 'not_found' })
  })
})
