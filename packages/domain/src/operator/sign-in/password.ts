import { hash, verify } from '@node-rs/argon2'
import { rateLimited } from '../../kernel/errors'

// Passwords are hashed with argon2id (the library's default algorithm) and its default cost.

export const hashPassword = (password: string): Promise<string> => hash(password)

/**
 * Password checks per process (docs/protocol.md §2.11): at most `running` argon2 checks at once and `waiting` more
 * queued behind them. argon2 runs on libuv's thread pool (4 threads by default), which DNS lookups and file reads
 * share: two checks at a time leave the other threads free, so a flood of sign-ins cannot stall the wallet address
 * and JWKS lookups of the same process. A sign-in past the queue is refused at once (429), before anything else.
 */
export const PASSWORD_CHECKS = { running: 2, waiting: 8 } as const

let admitted = 0
let running = 0
const queue: (() => void)[] = []

/** One admitted password check: `verify` waits for its turn and runs it; `done` frees its place (idempotent). */
export interface PasswordCheck {
  verify(storedHash: string | null, password: string): Promise<boolean>
  done(): void
}

/**
 * Takes a place in the process's password-check queue, synchronously.
 * @throws GnapError request_denied (429, Retry-After 1 s) when the running checks and the queue are full
 */
export function admitPasswordCheck(): PasswordCheck {
  if (admitted >= PASSWORD_CHECKS.running + PASSWORD_CHECKS.waiting) throw rateLimited('too many sign-ins in progress: try again in 1 s', 1)
  admitted++
  let state: 'admitted' | 'running' | 'done' = 'admitted'
  return {
    async verify(storedHash, password) {
      if (state !== 'admitted') throw new Error('a password check runs once')
      if (running >= PASSWORD_CHECKS.running) await new Promise<void>((resolve) => queue.push(resolve))
      else running++
      state = 'running'
      return verifyPassword(storedHash, password)
    },
    done() {
      if (state === 'done') return
      admitted--
      if (state === 'running') {
        const next = queue.shift()
        // The place passes straight to the next waiting check: `running` stays the same.
        if (next) next()
        else running--
      }
      state = 'done'
    },
  }
}

// A hash of a random password, verified against when no account matches, so a wrong email costs the same time
// as a wrong password and sign-in does not tell which accounts exist.
let dummyHash: Promise<string> | null = null

/**
 * One argon2 check, outside the request path (the production start's look for the demo password). Requests go
 * through `admitPasswordCheck`, which bounds how many run at once.
 */
export async function verifyPassword(storedHash: string | null, password: string): Promise<boolean> {
  // No account, or no password set yet (an invited owner who has not used the link; an empty hash alike): as slow as
  // a real check, and never a match.
  if (!storedHash) {
    dummyHash ??= hash(`no-account-${Math.random()}`)
    await verify(await dummyHash, password).catch(() => false)
    return false
  }
  return verify(storedHash, password).catch(() => false)
}
