import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'

/** Token and continuation values: 24 random bytes as upper-case hex (ASCII, header-safe, opaque). */
export const newSecret = (): string => randomBytes(24).toString('hex').toUpperCase()

/** Ids that appear in URLs (continue, manage, interaction) and interact_ref: UUID v4 (RFC 9635 §4.2). */
export const newId = (): string => randomUUID()

const ID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/**
 * Whether a presented id has the shape `newId` gives. The finders answer "none" for anything else without asking
 * the database, so hostile or mangled ids (very long, %-encoded, binary) cost nothing.
 */
export const isId = (value: string): boolean => ID_SHAPE.test(value)

/** The AS nonce returned as interact.finish. */
export const newNonce = (): string => randomBytes(16).toString('hex').toUpperCase()

/** Only this hash of a secret is stored. */
export const hashSecret = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex')

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(presented: string, storedHash: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest()
  const b = Buffer.from(storedHash, 'hex')
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Constant-time comparison of two configured or presented secrets of any length. */
export function secretsEqual(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest()
  const b = createHash('sha256').update(expected, 'utf8').digest()
  return timingSafeEqual(a, b)
}

/**
 * Whether a presented secret equals any of the configured ones (a list while one is being replaced), in constant
 * time: every entry is compared, whichever matches.
 */
export function secretsInclude(presented: string, expected: readonly string[]): boolean {
  let found = false
  for (const e of expected) found = secretsEqual(presented, e) || found
  return found
}
