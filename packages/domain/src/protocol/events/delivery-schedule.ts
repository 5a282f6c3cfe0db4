// When a failed delivery is tried again (docs/webhooks.md): exponential backoff with jitter, for about a day. Pure.

/** Each attempt waits at most this long for the receiver's answer. */
export const ATTEMPT_TIMEOUT_MS = 5_000
/** A delivery is retried for this long after its event (or after a replay), then marked failed. */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000
/** The first retry waits about this long; each next one twice as long, up to MAX_RETRY_DELAY_MS. */
export const FIRST_RETRY_DELAY_MS = 30_000
export const MAX_RETRY_DELAY_MS = 4 * 60 * 60 * 1000

/**
 * How long to wait after the `attempts`-th failed attempt (1 for the first): 30 s, 1 min, 2 min, … doubling up to
 * 4 h, each scaled by a random factor in [0.5, 1) ("equal jitter"), so deliveries that failed together (a receiver
 * that was down) do not all come back at the same instant. `random` returns a number in [0, 1).
 */
export function retryDelayMs(attempts: number, random: () => number): number {
  const exponent = Math.max(0, Math.min(attempts - 1, 30))
  const ceiling = Math.min(FIRST_RETRY_DELAY_MS * 2 ** exponent, MAX_RETRY_DELAY_MS)
  return Math.round(ceiling * (0.5 + random() / 2))
}

/**
 * What follows a failed attempt: another one at `nextAttemptAt`, or, when that would be past the delivery's
 * `giveUpAt`, failed for good.
 */
export function afterFailedAttempt(
  delivery: { attempts: number; giveUpAt: Date },
  now: Date,
  random: () => number,
): { state: 'pending'; nextAttemptAt: Date } | { state: 'failed' } {
  const next = new Date(now.getTime() + retryDelayMs(delivery.attempts, random))
  return next.getTime() > delivery.giveUpAt.getTime() ? { state: 'failed' } : { state: 'pending', nextAttemptAt: next }
}
