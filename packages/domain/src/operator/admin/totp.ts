import { randomBytes } from 'node:crypto'
import { Secret, TOTP } from 'otpauth'
import { hashSecret } from '../../kernel/secrets'

// Time-based one-time passwords (RFC 6238: HMAC-SHA-1, 6 digits, 30-second steps, the parameters every
// authenticator app reads from an otpauth:// URI) and recovery codes: the rules of docs/protocol.md §2.17.

/** Steps of 30 s; a code of the step before or after the server's is accepted too (clock drift, RFC 6238 §5.2). */
export const TOTP_PERIOD_SECONDS = 30
const WINDOW = 1
const DIGITS = 6
/** Shown as the account's issuer in authenticator apps. */
const ISSUER = 'GNAP admin'
/** Recovery codes given at enrolment (and when they are renewed). */
export const RECOVERY_CODE_COUNT = 10

const totpOf = (secretBase32: string, label = 'administrator') =>
  new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: DIGITS, period: TOTP_PERIOD_SECONDS, secret: Secret.fromBase32(secretBase32) })

/** A new TOTP secret: 160 random bits (RFC 4226 §4 recommends 160), in base32 as authenticator apps take it. */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32

/** The otpauth:// URI of a secret, for the QR code an authenticator app scans. */
export const totpUri = (secretBase32: string, accountName: string): string => totpOf(secretBase32, accountName).toString()

/** The code of a secret at `at`: for tests and tooling that play the authenticator app. */
export const totpCodeAt = (secretBase32: string, at: Date): string => totpOf(secretBase32).generate({ timestamp: at.getTime() })

/** Whether `code` looks like a TOTP code (six digits, spaces allowed) rather than a recovery code. */
export const isTotpCodeShape = (code: string): boolean => /^\d{6}$/.test(code.replace(/\s/g, ''))

/**
 * The time step a right code belongs to, or null: six digits of the step at `now` or one step either side. A code
 * of a step at or before `lastStep` (already used) is refused, so a code accepted once never works again.
 */
export function matchTotpStep(secretBase32: string, code: string, now: Date, lastStep: number | null): number | null {
  const token = code.replace(/\s/g, '')
  if (!/^\d{6}$/.test(token)) return null
  const delta = totpOf(secretBase32).validate({ token, timestamp: now.getTime(), window: WINDOW })
  if (delta === null) return null
  const step = TOTP.counter({ period: TOTP_PERIOD_SECONDS, timestamp: now.getTime() }) + delta
  return lastStep !== null && step <= lastStep ? null : step
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567'

/** A recovery code: 80 random bits as 16 base32 letters and digits in groups of four (`abcd-efgh-…`). */
export function newRecoveryCode(): string {
  const bytes = randomBytes(10)
  let bits = 0
  let value = 0
  let out = ''
  for (const b of bytes) {
    value = (value << 8) | b
    bits += 8
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  return out.match(/.{4}/g)!.join('-')
}

/**
 * The stored form of a recovery code: the SHA-256 of its letters, case and separators ignored. A fast hash is
 * enough (docs/protocol.md §2.17): 80 random bits cannot be found by trying hashes, unlike a chosen password.
 */
export const recoveryCodeHash = (code: string): string => hashSecret(code.toLowerCase().replace(/[^a-z2-7]/g, ''))
