import { dictionary } from '@zxcvbn-ts/language-common'

/** Shortest and longest password an owner may set, in Unicode code points (docs/protocol.md §7). */
export const PASSWORD_LENGTH = { min: 12, max: 256 } as const

// The common-password list of @zxcvbn-ts/language-common (some 49,000 leaked passwords, most used first), in lower case.
let common: Set<string> | null = null
const commonPasswords = (): Set<string> => (common ??= new Set(dictionary['passwords-common'].map((p) => p.toLowerCase())))

/** The rules in plain words, for the forms that ask for a new password. */
export const PASSWORD_RULES_TEXT = `At least ${PASSWORD_LENGTH.min} characters. Not a commonly used password, and not your email address or name. A few unrelated words make a good one.`

/**
 * Why a new password is not acceptable, in plain words, or null when it is (docs/protocol.md §7): 12 to 256
 * characters, not a common password, not the owner's email or name.
 */
export function passwordProblem(password: string, context: { email?: string | null; name?: string | null }): string | null {
  const length = [...password].length
  if (length < PASSWORD_LENGTH.min) return `The password is too short: use at least ${PASSWORD_LENGTH.min} characters.`
  if (length > PASSWORD_LENGTH.max) return `The password is too long: use at most ${PASSWORD_LENGTH.max} characters.`
  const lower = password.trim().toLowerCase()
  if (commonPasswords().has(lower)) return 'This password is on a list of commonly used passwords: choose another one.'
  for (const [what, value] of [
    ['email address', context.email],
    ['name', context.name],
  ] as const) {
    if (value && value.trim().toLowerCase() === lower) return `The password is your ${what}: choose another one.`
  }
  return null
}
