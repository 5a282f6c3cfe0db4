import { describe, expect, it } from 'vitest'
import { MAX_RETRY_DELAY_MS, RETRY_WINDOW_MS, afterFailedAttempt, retryDelayMs } from './delivery-schedule'

// The retry schedule of docs/webhooks.md: 30 s after the first failed attempt, doubling, capped at 4 h, each delay
// scaled by a jitter factor in [0.5, 1); failed for good once the next attempt would fall past the retry window.

const S = 1000
const MIN = 60 * S
const H = 60 * MIN
/** The largest value Math.random can return. */
const ALMOST_ONE = 1 - Number.EPSILON / 2

describe('retryDelayMs', () => {
  it.each([
    [1, 30 * S],
    [2, 1 * MIN],
    [3, 2 * MIN],
    [4, 4 * MIN],
    [5, 8 * MIN],
    [6, 16 * MIN],
    [7, 32 * MIN],
    [8, 64 * MIN],
    [9, 128 * MIN],
    [10, 4 * H],
    [11, 4 * H],
    [50, 4 * H],
    [1_000, 4 * H],
  ])('after failed attempt %i waits between half of %i ms and all of it', (attempts, ceiling) => {
    expect(retryDelayMs(attempts, () => 0)).toBe(ceiling / 2)
    expect(retryDelayMs(attempts, () => 0.5)).toBe((ceiling * 3) / 4)
    expect(retryDelayMs(attempts, () => ALMOST_ONE)).toBe(ceiling)
    expect(retryDelayMs(attempts, () => ALMOST_ONE)).toBeLessThanOrEqual(MAX_RETRY_DELAY_MS)
  })

  it('never waits more than 4 h nor less than 15 s, whatever the count of attempts', () => {
    for (let attempts = 0; attempts <= 2_000; attempts++) {
      for (const r of [0, 0.3, ALMOST_ONE]) {
        const delay = retryDelayMs(attempts, () => r)
        expect(Number.isInteger(delay)).toBe(true)
        expect(delay).toBeGreaterThanOrEqual(15 * S)
        expect(delay).toBeLessThanOrEqual(4 * H)
      }
    }
  })
})

describe('afterFailedAttempt', () => {
  const at = new Date('2025-01-15T12:00:00.000Z')
  const giveUpAt = new Date(at.getTime() + RETRY_WINDOW_MS)

  it('schedules the next attempt after the delay while it falls within the window', () => {
    expect(afterFailedAttempt({ attempts: 1, giveUpAt }, at, () => 0)).toEqual({ state: 'pending', nextAttemptAt: new Date(at.getTime() + 15 * S) })
    const late = new Date(giveUpAt.getTime() - 2 * H)
    expect(afterFailedAttempt({ attempts: 12, giveUpAt }, late, () => 0)).toEqual({ state: 'pending', nextAttemptAt: giveUpAt })
  })

  it('gives up when the next attempt would fall past giveUpAt', () => {
    const late = new Date(giveUpAt.getTime() - 2 * H + 1)
    expect(afterFailedAttempt({ attempts: 12, giveUpAt }, late, () => 0)).toEqual({ state: 'failed' })
    expect(afterFailedAttempt({ attempts: 1, giveUpAt }, giveUpAt, () => 0)).toEqual({ state: 'failed' })
    expect(afterFailedAttempt({ attempts: 1, giveUpAt }, new Date(giveUpAt.getTime() + H), () => 0)).toEqual({ state: 'failed' })
  })

  it.each([
    ['shortest', 0],
    ['middle', 0.5],
    ['longest', ALMOST_ONE],
  ])('with the %s jitter, retries for about a day, then fails', (_name, r) => {
    let now = at
    const attemptTimes = [now]
    for (let attempts = 1; ; attempts++) {
      const next = afterFailedAttempt({ attempts, giveUpAt }, now, () => r)
      if (next.state === 'failed') break
      expect(next.nextAttemptAt.getTime()).toBeGreaterThan(now.getTime())
      now = next.nextAttemptAt
      attemptTimes.push(now)
    }
    const last = attemptTimes.at(-1)!
    expect(last.getTime()).toBeLessThanOrEqual(giveUpAt.getTime())
    // The last attempt comes within one longest delay of the end of the window: retries go on for about 24 h.
    expect(giveUpAt.getTime() - last.getTime()).toBeLessThan(MAX_RETRY_DELAY_MS)
    expect(attemptTimes.length).toBeGreaterThanOrEqual(12)
    expect(attemptTimes.length).toBeLessThanOrEqual(25)
  })
})
