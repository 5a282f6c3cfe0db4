import { hash, verify } from '@node-rs/argon2'

// Passwords are hashed with argon2id (the library's default algorithm) and its default cost.

export const hashPassword = (password: string): Promise<string> => hash(password)

// A hash of a random password, verified against when no account matches, so a wrong email costs the same time
// as a wrong password and sign-in does not tell which accounts exist.
let dummyHash: Promise<string> | null = null

export async function verifyPassword(storedHash: string | null, password: string): Promise<boolean> {
  if (storedHash === null) {
    dummyHash ??= hash(`no-account-${Math.random()}`)
    await verify(await dummyHash, password).catch(() => false)
    return false
  }
  return verify(storedHash, password).catch(() => false)
}
