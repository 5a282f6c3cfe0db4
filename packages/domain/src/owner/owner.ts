import { z } from 'zod'
import type { Deps } from '../deps'
import type { DbTx } from '../db/client'
import { newId } from '../secrets'
import { createSession } from '../session/session'
import { hashPassword, verifyPassword } from './password'
import { assertSignInAllowed, countFailedSignIn } from '../rate-limit/sign-in-limit'

/** Owner sessions last this long: long enough to read and decide, short enough not to linger. */
export const OWNER_SESSION_SECONDS = 30 * 60

export const OwnerInputSchema = z.object({
  email: z.email().max(254).transform((e) => e.toLowerCase()),
  name: z.string().min(1).max(120),
  password: z.string().min(8).max(256),
  walletAddresses: z.array(z.url({ protocol: /^https?$/ })).min(1).max(20),
})

/** Creates a resource owner with the wallet addresses they own (seed data, operators' scripts). */
export async function createOwner(db: DbTx, input: z.input<typeof OwnerInputSchema>): Promise<{ id: string }> {
  const data = OwnerInputSchema.parse(input)
  const passwordHash = await hashPassword(data.password)
  const id = newId()
  await db.owner.create({
    data: {
      id,
      email: data.email,
      name: data.name,
      passwordHash,
      walletAddresses: { create: data.walletAddresses.map((url) => ({ url: url.replace(/\/+$/, '') })) },
    },
  })
  return { id }
}

/**
 * Checks an owner's email and password and opens a session. Null for any failure, with the same work done
 * whether or not the email exists (no owner enumeration). Failures are counted per email and per known caller
 * address; past the limit sign-in pauses for the rest of the window.
 * @throws GnapError request_denied (429, retryAfterSeconds) when too many sign-ins failed
 */
export async function signInOwner(
  deps: Deps,
  input: { email: string; password: string; ip?: string | null },
): Promise<{ value: string; expiresAt: Date } | null> {
  const email = input.email.trim().toLowerCase().slice(0, 254)
  const password = input.password.slice(0, 256)
  const ip = input.ip ?? null
  const now = deps.clock()
  await assertSignInAllowed(deps.db, 'owner', email, ip, now)
  const owner = email ? await deps.db.owner.findUnique({ where: { email } }) : null
  const ok = await verifyPassword(owner?.passwordHash ?? null, password)
  if (!owner || !ok) {
    await countFailedSignIn(deps.db, 'owner', email, ip, now)
    return null
  }
  return createSession(deps.db, { kind: 'owner', subjectId: owner.id, ttlSeconds: OWNER_SESSION_SECONDS, now })
}

/**
 * Whether every access item that names a resource names one of the owner's wallet addresses or a resource
 * below it (`https://wallet.example/alice` owns `https://wallet.example/alice/incoming-payments/…`).
 * Both sides are compared in their WHATWG URL form, so dot segments (`…/alice/../bob`, `…/alice/%2e%2e/bob`)
 * cannot climb out of the owner's wallet address.
 */
export function ownsAccess(walletAddresses: string[], identifiers: (string | null)[]): boolean {
  const named = identifiers.filter((i): i is string => i !== null)
  if (named.length === 0) return false
  const owned = walletAddresses.map(normalUrl).filter((wa): wa is string => wa !== null)
  return named.every((raw) => {
    const id = normalUrl(raw)
    return id !== null && owned.some((wa) => id === wa || id.startsWith(`${wa}/`))
  })
}

/** The URL as the WHATWG parser writes it (dot segments resolved, host lower-cased), without a trailing slash. */
function normalUrl(url: string): string | null {
  return URL.canParse(url) ? new URL(url).href.replace(/\/+$/, '') : null
}
