import { randomBytes } from 'node:crypto'
import type { SqlRunner } from '../db/sql'
import { hashSecret, newId } from '../secrets'
import { deleteUnusedOwnerLinks, insertOwnerLink } from './owner-link.repo'

/** The path of the set-password page below the base URL; the link's secret follows it (docs/protocol.md §7). */
export const SET_PASSWORD_PATH = 'account/set-password/'

/** A link's secret: 32 random bytes, base64url (43 characters). */
export const newLinkSecret = (): string => randomBytes(32).toString('base64url')

/**
 * Issues a one-time link for an owner to set their password (docs/protocol.md §7): an invitation for a new account or
 * a reset. Only the secret's SHA-256 is stored; the URL is returned once, for whoever issued it, and is never logged.
 * Earlier unused links of the same kind stop working. Call inside the caller's transaction when the link goes with
 * other writes (a new owner), or on its own.
 */
export async function issueOwnerLink(
  db: SqlRunner,
  input: { ownerId: string; kind: 'invitation' | 'reset'; now: Date; ttlSeconds: number; baseUrl: string },
): Promise<{ url: string; expiresAt: Date }> {
  const secret = newLinkSecret()
  const expiresAt = new Date(input.now.getTime() + input.ttlSeconds * 1000)
  await deleteUnusedOwnerLinks(db, input.ownerId, input.kind)
  await insertOwnerLink(db, { id: newId(), ownerId: input.ownerId, kind: input.kind, tokenHash: hashSecret(secret), createdAt: input.now, expiresAt })
  return { url: `${input.baseUrl.replace(/\/+$/, '')}/${SET_PASSWORD_PATH}${secret}`, expiresAt }
}
