import { setTimeout as sleep } from 'node:timers/promises'
import { TOTP_PERIOD_SECONDS, totpCodeAt } from '@gnap/domain/operator'

// Plays the authenticator app in tests that sign in with two-step sign-in (docs/protocol.md §2.17). The server
// accepts each time step's code once, and the codes of one step either side of its own: a test that signs in twice
// within 30 seconds must use the next step's code the second time, and wait when that one is used too.

const lastStepUsed = new Map<string, number>()

const stepAt = (ms: number) => Math.floor(ms / 1000 / TOTP_PERIOD_SECONDS)

/**
 * A code for `secret` (base32, as the enrolment shows it) that the server has not seen from this process yet: the
 * current step's, else the next step's (accepted as clock drift), else it waits for a new step. Each call uses one.
 */
export async function freshTotpCode(secret: string): Promise<string> {
  for (;;) {
    const now = Date.now()
    const step = Math.max(stepAt(now), (lastStepUsed.get(secret) ?? -1) + 1)
    if (step <= stepAt(now) + 1) {
      lastStepUsed.set(secret, step)
      return totpCodeAt(secret, new Date(step * TOTP_PERIOD_SECONDS * 1000))
    }
    await sleep((stepAt(now) + 1) * TOTP_PERIOD_SECONDS * 1000 - now + 50)
  }
}

/** Tells `freshTotpCode` that the code of `at` was used (by an enrolment the test confirmed itself, say). */
export function markTotpCodeUsed(secret: string, at: Date): void {
  lastStepUsed.set(secret, Math.max(lastStepUsed.get(secret) ?? -1, stepAt(at.getTime())))
}
