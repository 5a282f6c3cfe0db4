/** Shortest and longest password an owner may set, in code points. */
export const PASSWORD_LENGTH = { min: 12, max: 256 } as const

/**
 * What is wrong with a new owner password, in words for the owner; null when it may be used (docs/protocol.md
 * §2.11): 12 to 256 characters, and not the account's email address.
 */
export function passwordProblem(password: string, context: { email?: string | null; name?: string | null }): string | null {
  const length = [...password].length
  if (length < PASSWORD_LENGTH.min) return `Use at least ${PASSWORD_LENGTH.min} characters.`
  if (length > PASSWORD_LENGTH.max) return `Use at most ${PASSWORD_LENGTH.max} characters.`
  if (context.email && password.trim().toLowerCase() === context.email.trim().toLowerCase()) return 'Do not use your email address as your password.'
  return null
}
