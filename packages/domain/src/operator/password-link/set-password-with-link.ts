import { z } from 'zod'
import type { Deps } from '../../protocol/deps'
import type { SqlRunner } from '../../kernel/db/sql'
import { insertAuditEntry, type AuditAction } from '../audit/audit.repo'
import { findAdminAccount, updateAdminPasswordHash } from '../admin/admin.repo'
import { findOwnerIdentity, updateOwnerPasswordHash } from '../owner/owner.repo'
import { hashPassword } from '../sign-in/password'
import { passwordProblem } from '../owner/password-rules'
import { hashSecret } from '../../kernel/secrets'
import { deleteSessionsOf } from '../../kernel/session/session.repo'
import { deleteSignInChallengesOf } from '../admin/admin-totp.repo'
import {
  deleteUnusedPasswordLinks,
  findPasswordLinkByHash,
  markPasswordLinkUsed,
  type LinkKind,
  type LinkSubject,
  type PasswordLinkRow,
} from './password-link.repo'

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

/** The account a link sets the password of, as both kinds of account are read and written. */
interface LinkAccount {
  id: string
  email: string
  /** Shown on the page: an owner's name, an administrator's email. */
  name: string
  disabled: boolean
}

const ACCOUNTS: Record<
  LinkSubject,
  {
    find(db: SqlRunner, id: string): Promise<LinkAccount | null>
    setHash(db: SqlRunner, id: string, hash: string): Promise<unknown>
    action: AuditAction
  }
> = {
  owner: {
    find: async (db, id) => {
      const owner = await findOwnerIdentity(db, id)
      return owner && { id: owner.id, email: owner.email, name: owner.name, disabled: owner.status === 'disabled' }
    },
    setHash: updateOwnerPasswordHash,
    action: 'owner.set-password',
  },
  admin: {
    find: async (db, id) => {
      const admin = await findAdminAccount(db, id)
      return admin && { id: admin.id, email: admin.email, name: admin.email, disabled: admin.disabledAt !== null }
    },
    setHash: updateAdminPasswordHash,
    action: 'admin.set-password',
  },
}

export type LinkState = { kind: 'usable'; accountName: string; linkKind: LinkKind } | { kind: 'problem'; problem: LinkProblem }

async function linkState(
  deps: Pick<Deps, 'sql'>,
  subject: LinkSubject,
  secret: string,
  now: Date,
): Promise<{ link: PasswordLinkRow; account: LinkAccount } | LinkProblem> {
  if (!SECRET_SHAPE.test(secret)) return 'unknown'
  const link = await findPasswordLinkByHash(deps.sql, subject, hashSecret(secret))
  if (!link) return 'unknown'
  if (link.usedAt !== null) return 'used'
  if (link.expiresAt.getTime() <= now.getTime()) return 'expired'
  const account = await ACCOUNTS[subject].find(deps.sql, link.subjectId)
  if (!account) return 'unknown'
  // A disabled account's link sets nothing (docs/protocol.md §2.13, §2.14): enabling it and a new link are needed.
  return account.disabled ? 'disabled' : { link, account }
}

/** Whether a set-password link of an owner or an administrator can be used now, for the page that shows its form. */
export async function checkPasswordLink(deps: Pick<Deps, 'sql' | 'clock'>, subject: LinkSubject, secret: string): Promise<LinkState> {
  const state = await linkState(deps, subject, secret, deps.clock())
  return typeof state === 'string'
    ? { kind: 'problem', problem: state }
    : { kind: 'usable', accountName: state.account.name, linkKind: state.link.kind }
}

// Any strings: a secret of the wrong shape is a link that is not valid, a password of the wrong length is refused in words.
const InputSchema = z.object({ subject: z.enum(['owner', 'admin']), secret: z.string(), password: z.string(), confirm: z.string() })

export type SetPasswordResult =
  | { kind: 'done' }
  | { kind: 'problem'; problem: LinkProblem }
  /** `field`: the one the reason is about, the new password or its second typing. */
  | { kind: 'refused'; reason: string; field: 'password' | 'confirm'; accountName: string; linkKind: LinkKind }

/**
 * Sets an owner's or an administrator's password with a one-time link (docs/protocol.md §7, §2.14): the password
 * hash, the link marked used, the account's other unused links deleted, every session of the account (and an
 * administrator's pending two-step sign-in) ended and an audit entry, in one transaction. The link is marked used by a
 * conditional update, so of two uses at the same time exactly one sets its password.
 */
export async function setPasswordWithLink(
  deps: Pick<Deps, 'sql' | 'clock'>,
  input: { subject: LinkSubject; secret: string; password: string; confirm: string },
): Promise<SetPasswordResult> {
  const { subject, secret, password, confirm } = InputSchema.parse(input)
  const state = await linkState(deps, subject, secret, deps.clock())
  if (typeof state === 'string') return { kind: 'problem', problem: state }
  const { link, account } = state
  const refused = (reason: string, field: 'password' | 'confirm'): SetPasswordResult => ({
    kind: 'refused',
    reason,
    field,
    accountName: account.name,
    linkKind: link.kind,
  })
  if (password !== confirm) return refused('The two passwords are not the same: type the new password twice.', 'confirm')
  const problem = passwordProblem(password, { email: account.email, name: subject === 'owner' ? account.name : null })
  if (problem) return refused(problem, 'password')
  // Hashed before the transaction: no slow work while the write lock is held.
  const passwordHash = await hashPassword(password)
  const now = deps.clock()
  const done = await deps.sql.transaction(async (tx) => {
    if (!(await markPasswordLinkUsed(tx, link.id, now))) return false
    await ACCOUNTS[subject].setHash(tx, account.id, passwordHash)
    await deleteSessionsOf(tx, subject, account.id)
    // The account's other links (an invitation and a reset) were for the password this one replaces.
    await deleteUnusedPasswordLinks(tx, subject, account.id)
    if (subject === 'admin') await deleteSignInChallengesOf(tx, account.id)
    const target = subject === 'owner' ? `owner:${account.id}` : `admin:${account.email}`
    // Owners act as `owner:<email>` in the audit log, as on /account (docs/protocol.md §2.15); administrators by their email.
    const actor = subject === 'owner' ? `owner:${account.email}` : account.email
    await insertAuditEntry(tx, { actor, action: ACCOUNTS[subject].action, target, detail: link.kind, now })
    return true
  })
  if (done) return { kind: 'done' }
  // Used (or expired) between the check and the update.
  const after = await linkState(deps, subject, secret, now)
  return { kind: 'problem', problem: typeof after === 'string' ? after : 'used' }
}
