import { randomBytes } from 'node:crypto'
import type { SqlRunner } from '../../kernel/db/sql'
import { hashSecret, newId } from '../../kernel/secrets'
import { deleteUnusedPasswordLinks, insertPasswordLink, type LinkKind, type LinkSubject } from './password-link.repo'

/** The path of each set-password page below the base URL; the link's secret follows it (docs/protocol.md §7, §2.14). */
export const SET_PASSWORD_PATHS: Record<LinkSubject, string> = { owner: 'account/set-password/', admin: 'admin/set-password/' }

/** The owners' set-password page. */
export const SET_PASSWORD_PATH = SET_PASSWORD_PATHS.owner

/** A link's secret: 32 random bytes, base64url (43 characters). */
export const newLinkSecret = (): string => randomBytes(32).toString('base64url')

/**
 * Issues a one-time link for an owner or an administrator to set their password (docs/protocol.md §7, §2.14): an
 * invitation for a new account or a reset. Only the secret's SHA-256 is stored; the URL is returned once, for
 * whoever issued it, and is never logged. Every earlier unused link of the account, of either kind, stops working
 * (docs/security.md, "Password links"). Call inside the caller's transaction when the link goes with other writes (a
 * new account), or on its own.
 */
export async function issuePasswordLink(
  db: SqlRunner,
  input: { subject: LinkSubject; subjectId: string; kind: LinkKind; now: Date; ttlSeconds: number; baseUrl: string },
): Promise<{ url: string; expiresAt: Date }> {
  const secret = newLinkSecret()
  const expiresAt = new Date(input.now.getTime() + input.ttlSeconds * 1000)
  await deleteUnusedPasswordLinks(db, input.subject, input.subjectId)
  await insertPasswordLink(db, {
    id: newId(),
    subject: input.subject,
    subjectId: input.subjectId,
    kind: input.kind,
    tokenHash: hashSecret(secret),
    createdAt: input.now,
    expiresAt,
  })
  return { url: `${input.baseUrl.replace(/\/+$/, '')}/${SET_PASSWORD_PATHS[input.subject]}${secret}`, expiresAt }
}

/** An owner's link (issuePasswordLink). */
export const issueOwnerLink = (
  db: SqlRunner,
  input: { ownerId: string; kind: LinkKind; now: Date; ttlSeconds: number; baseUrl: string },
): Promise<{ url: string; expiresAt: Date }> => issuePasswordLink(db, { ...input, subject: 'owner', subjectId: input.ownerId })
