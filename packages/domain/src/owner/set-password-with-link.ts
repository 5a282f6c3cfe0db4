import { z } from 'zod'
import type { Deps } from '../deps'
import { insertAuditEntry } from '../admin/audit.repo'
import { hashSecret } from '../secrets'
import { deleteSessionsOf } from '../session/session.repo'
import { findOwnerLinkByHash, markOwnerLinkUsed, type OwnerLinkRow } from './owner-link.repo'
import { findOwnerIdentity, updateOwnerPasswordHash } from './owner.repo'
import { hashPassword } from './password'
import { passwordProblem } from './password-rules'

/** A link's secret as issued: 43 base64url characters. Anything else is not looked up. */
const SECRET_SHAPE = /^[A-Za-z0-9_-]{43}$/

export type LinkProblem = 'unknown' | 'used' | 'expired' | 'disabled'

/** What a person is told about a link that cannot be used (docs/protocol.md §7). */
export const LINK_PROBLEM_TEXT: Record<LinkProblem, { title: string; message: string }> = {
  unknown: {
    title: 'This link is not valid',
    message: 'This link is not valid: it may be mistyped, or a newer link replaced it. Ask your administrator for a new one.',
  },
  used: {
    title: 'This link was already used',
    message: 'This link was already used to set a password. Ask your administrator for a new one if you need it.',
  },
  expired: { title: 'This link has expired', message: 'This link has expired. Ask your administrator for a new one.' },
  disabled: {
    title: 'This account is disabled',
    message: 'This account is disabled, so its password cannot be set. Ask your administrator to enable it and give you a new link.',
  },
}

export type LinkState = { kind: 'usable'; ownerName: string; linkKind: OwnerLinkRow['kind'] } | { kind: 'problem'; problem: LinkProblem }

async function linkState(
  deps: Pick<Deps, 'sql'>,
  secret: string,
  now: Date,
): Promise<{ link: OwnerLinkRow; owner: { id: string; email: string; name: string; status: string } } | LinkProblem> {
  if (!SECRET_SHAPE.test(secret)) return 'unknown'
  const link = await findOwnerLinkByHash(deps.sql, hashSecret(secret))
  if (!link) return 'unknown'
  if (link.usedAt !== null) return 'used'
  if (link.expiresAt.getTime() <= now.getTime()) return 'expired'
  const owner = await findOwnerIdentity(deps.sql, link.ownerId)
  if (!owner) return 'unknown'
  // A disabled owner's link sets nothing (docs/protocol.md §2.13): enabling the owner and a new link are needed.
  return owner.status === 'disabled' ? 'disabled' : { link, owner }
}

/** Whether a set-password link can be used now, for the page that shows its form. */
export async function checkOwnerLink(deps: Pick<Deps, 'sql' | 'clock'>, secret: string): Promise<LinkState> {
  const state = await linkState(deps, secret, deps.clock())
  return typeof state === 'string' ? { kind: 'problem', problem: state } : { kind: 'usable', ownerName: state.owner.name, linkKind: state.link.kind }
}

// Any strings: a secret of the wrong shape is a link that is not valid, a password of the wrong length is refused in words.
const InputSchema = z.object({ secret: z.string(), password: z.string(), confirm: z.string() })

export type SetPasswordResult =
  | { kind: 'done' }
  | { kind: 'problem'; problem: LinkProblem }
  | { kind: 'refused'; reason: string; ownerName: string; linkKind: OwnerLinkRow['kind'] }

/**
 * Sets an owner's password with a one-time link (docs/protocol.md §7): the password hash, the link marked used, every
 * session of the owner ended and an audit entry, in one transaction. The link is marked used by a conditional update,
 * so of two uses at the same time exactly one sets its password.
 */
export async function setPasswordWithLink(
  deps: Pick<Deps, 'sql' | 'clock'>,
  input: { secret: string; password: string; confirm: string },
): Promise<SetPasswordResult> {
  const { secret, password, confirm } = InputSchema.parse(input)
  const state = await linkState(deps, secret, deps.clock())
  if (typeof state === 'string') return { kind: 'problem', problem: state }
  const { link, owner } = state
  if (password !== confirm)
    return { kind: 'refused', reason: 'The two passwords are not the same: type the new password twice.', ownerName: owner.name, linkKind: link.kind }
  const problem = passwordProblem(password, owner)
  if (problem) return { kind: 'refused', reason: problem, ownerName: owner.name, linkKind: link.kind }
  // Hashed before the transaction: no slow work while the write lock is held.
  const passwordHash = await hashPassword(password)
  const now = deps.clock()
  const done = await deps.sql.transaction(async (tx) => {
    if (!(await markOwnerLinkUsed(tx, link.id, now))) return false
    await updateOwnerPasswordHash(tx, owner.id, passwordHash)
    await deleteSessionsOf(tx, 'owner', owner.id)
    await insertAuditEntry(tx, { actor: owner.email, action: 'owner.set-password', target: `owner:${owner.id}`, detail: link.kind, now })
    return true
  })
  if (done) return { kind: 'done' }
  // Used (or expired) between the check and the update.
  const after = await linkState(deps, secret, now)
  return { kind: 'problem', problem: typeof after === 'string' ? after : 'used' }
}
