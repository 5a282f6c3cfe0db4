import ipaddr from 'ipaddr.js'
import type { Sql } from '../../kernel/db/sql'
import type { Deps } from '../../protocol/deps'
import { admitPasswordCheck } from './password'
import { isGnapError, rateLimited } from '../../kernel/errors'
import { fixedWindow } from '../../kernel/rate-limit/rate-limit'
import { findRateLimitCount, releaseRateLimitHit, reserveRateLimitHit } from '../../kernel/rate-limit/rate-limit.repo'

/**
 * Sign-in attempts allowed in one fixed window (docs/protocol.md §2.11):
 * - `perAccountAndAddress`: attempts for one account from one address (a hard limit);
 * - `perAddress`: attempts from one address, whatever the account (against spraying many accounts);
 * - `perAccountBeforeDelay`: attempts for one account from all addresses before further ones are delayed: the
 *   next ones are released one at a time, 1, 2, 4, … 512 s into the window (at most `perAccountBeforeDelay` + 10
 *   per window). The delay holds back addresses that already failed for the account in the window, and callers of
 *   unknown address; an address that has not failed for the account is not delayed, so the owner of the account
 *   can still sign in from their own address while someone hammers it from elsewhere.
 * An attempt is reserved before the password is checked and given back when it succeeds: only failures (and
 * checks still running) count.
 */
export const SIGN_IN_LIMITS = { windowSeconds: 15 * 60, perAccountAndAddress: 10, perAddress: 50, perAccountBeforeDelay: 10 } as const

type Scope = 'owner' | 'admin'

/** The attempts a sign-in holds until its password check ends: given back on success. */
export interface SignInReservation {
  keys: string[]
  windowStart: Date
}

/** No limit: a count that never stops the conditional increment. */
const UNLIMITED = 2_147_483_647

const tooMany = (retryAfterSeconds: number) =>
  rateLimited(
    `too many failed sign-ins: try again in ${retryAfterSeconds < 60 ? `${retryAfterSeconds} s` : `${Math.ceil(retryAfterSeconds / 60)} min`}`,
    retryAfterSeconds,
  )

/**
 * Reserves one sign-in attempt for `email` from `ip` (null: unknown, no TRUST_PROXY) before its password is checked,
 * in one transaction: every reservation of the attempt is made, or none is (a refused attempt is not counted).
 * Concurrent attempts each take their own reservation, so attempts still being checked count too.
 * @throws GnapError request_denied (429, retryAfterSeconds) when a limit of SIGN_IN_LIMITS is reached
 */
export function reserveSignInAttempt(db: Sql, scope: Scope, email: string, ip: string | null, now: Date): Promise<SignInReservation> {
  const { windowStart, retryAfterSeconds: untilWindowEnds } = fixedWindow(now, SIGN_IN_LIMITS.windowSeconds)
  const address = ip === null ? null : addressGroup(ip)
  const accountKey = `${scope}-sign-in:account:${email}`
  return db.transaction(async (tx) => {
    const keys: string[] = []
    let addressIsNew = false
    if (address !== null) {
      const addressKey = `${scope}-sign-in:address:${address}`
      if ((await reserveRateLimitHit(tx, addressKey, windowStart, SIGN_IN_LIMITS.perAddress)) === null) throw tooMany(untilWindowEnds)
      const pairKey = `${scope}-sign-in:account-address:${email}:${address}`
      const pairCount = await reserveRateLimitHit(tx, pairKey, windowStart, SIGN_IN_LIMITS.perAccountAndAddress)
      if (pairCount === null) throw tooMany(untilWindowEnds)
      addressIsNew = pairCount === 1
      keys.push(addressKey, pairKey)
    }
    const elapsedSeconds = (now.getTime() - windowStart.getTime()) / 1000
    const accountLimit = addressIsNew ? UNLIMITED : SIGN_IN_LIMITS.perAccountBeforeDelay + releasedBy(elapsedSeconds)
    if ((await reserveRateLimitHit(tx, accountKey, windowStart, accountLimit)) === null) {
      const count = await findRateLimitCount(tx, accountKey, windowStart)
      // The attempt after `count` is released 2^(count − perAccountBeforeDelay) s into the window.
      const releasedAt = 2 ** (count - SIGN_IN_LIMITS.perAccountBeforeDelay)
      throw tooMany(releasedAt < SIGN_IN_LIMITS.windowSeconds ? Math.max(1, Math.ceil(releasedAt - elapsedSeconds)) : untilWindowEnds)
    }
    keys.push(accountKey)
    return { keys, windowStart }
  })
}

/** Gives back the attempts of a sign-in whose password was right: successes never count. */
export async function releaseSignInAttempt(db: Sql, reservation: SignInReservation): Promise<void> {
  await db.transaction(async (tx) => {
    for (const key of reservation.keys) await releaseRateLimitHit(tx, key, reservation.windowStart)
  })
}

/** The delayed attempts released `elapsedSeconds` into a window: one at 1 s, 2 s, 4 s, … (2^k s). */
function releasedBy(elapsedSeconds: number): number {
  return elapsedSeconds < 1 ? 0 : Math.floor(Math.log2(elapsedSeconds)) + 1
}

/**
 * The address a limit counts: an IPv4 address as it is, an IPv6 address by its /64 network (one subscriber gets a
 * whole /64, so counting single IPv6 addresses would hand an attacker 2^64 fresh ones). IPv4-mapped IPv6 is IPv4.
 */
export function addressGroup(address: string): string {
  const text = address.replace(/^\[(.*)\]$/, '$1').toLowerCase()
  if (!ipaddr.IPv6.isValid(text)) return text
  const ip = ipaddr.IPv6.parse(text)
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address().toString()
  return `${ip.parts
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`
}

/**
 * One sign-in attempt, in the order that keeps guessing bounded (docs/protocol.md §2.11): a place in the process's
 * password-check queue (refused at once when full), then a reservation in the database (refused past a limit), then
 * the account lookup and the password check. The account when the password is right (its reservation given back),
 * null otherwise (the reservation stays: a counted failure). The same work is done whether or not the account exists.
 * @throws GnapError request_denied (429, retryAfterSeconds) when the queue is full or a limit is reached
 */
export async function attemptSignIn<A extends { passwordHash: string | null }>(
  deps: Deps,
  input: { scope: Scope; email: string; password: string; ip: string | null; find: (db: Sql, email: string) => Promise<A | null> },
): Promise<A | null> {
  const check = counted(deps, 'password_checks', admitPasswordCheck)
  try {
    const reservation = await reserveCounted(deps, input)
    const account = input.email ? await input.find(deps.sql, input.email) : null
    const ok = await check.verify(account?.passwordHash ?? null, input.password)
    if (!account || !ok) return null
    await releaseSignInAttempt(deps.sql, reservation)
    return account
  } finally {
    check.done()
  }
}

/**
 * The second step of a sign-in (a TOTP or recovery code, docs/protocol.md §2.17) under the same counters as
 * passwords: an attempt for `email` from `ip` is reserved before `check` runs and given back when it answers
 * something; a wrong code (null) stays counted, so guessing codes locks out like guessing passwords.
 * @throws GnapError request_denied (429, retryAfterSeconds) when a limit is reached
 */
export async function attemptSignInStep<T>(
  deps: Deps,
  input: { scope: Scope; email: string; ip: string | null; check: () => Promise<T | null> },
): Promise<T | null> {
  const reservation = await reserveCounted(deps, input)
  const result = await input.check()
  if (result === null) return null
  await releaseSignInAttempt(deps.sql, reservation)
  return result
}

/** reserveSignInAttempt, its refusals counted in the metrics. */
async function reserveCounted(deps: Deps, input: { scope: Scope; email: string; ip: string | null }): Promise<SignInReservation> {
  try {
    return await reserveSignInAttempt(deps.sql, input.scope, input.email, input.ip, deps.clock())
  } catch (e) {
    if (isGnapError(e) && e.status === 429) deps.metrics.rateLimited('sign_in')
    throw e
  }
}

/** `admit()`, a refusal (429) counted in the metrics as `limit`. */
function counted<T>(deps: Deps, limit: 'password_checks', admit: () => T): T {
  try {
    return admit()
  } catch (e) {
    if (isGnapError(e) && e.status === 429) deps.metrics.rateLimited(limit)
    throw e
  }
}
