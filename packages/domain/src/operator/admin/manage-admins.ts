import { z } from 'zod'
import type { Deps } from '../../protocol/deps'
import type { SqlRunner } from '../../kernel/db/sql'
import { issuePasswordLink } from '../password-link/password-link'
import { deleteUnusedPasswordLinks } from '../password-link/password-link.repo'
import { deleteSessionsOf } from '../../kernel/session/session.repo'
import {
  emailTakenByAdmin,
  findAdminAccount,
  findLastAdminSignIn,
  insertAdmin,
  isLastActiveAdmin,
  listAdminAccounts,
  lockActiveAdmins,
  updateAdminDisabledAt,
  updateAdminPasswordHash,
  updateAdminRole,
  type AdminAccountRow,
} from './admin.repo'
import { insertAuditEntry, type AuditAction } from '../audit/audit.repo'
import { ConsoleError } from './console-error'
import { AdminEmailSchema } from './create-admin'
import { ADMIN_ROLES, type AdminRole, type ConsoleActor } from './roles'
import { clearTotp, deleteSignInChallengesOf } from './admin-totp.repo'
import { countLiveApiKeysByCreator } from '../api-key/api-key.repo'
import { revokeApiKeysCreatedBy } from '../api-key/api-keys'

// Administrators in the console (docs/protocol.md §2.14): every change is one transaction with the audit entry that
// names who made it. The last active `admin` can be neither disabled, demoted nor reset, so the server always keeps
// someone who can manage it.

/**
 * How long an administrator's invitation or reset link stays usable: shorter than an owner's (a week), as the
 * link opens the console with the invited role.
 */
export const ADMIN_LINK_TTL_SECONDS = 3 * 24 * 60 * 60

export const AdminIdSchema = z.string().min(1).max(64)
export const AdminRoleSchema = z.enum(ADMIN_ROLES)
export const InviteAdminInputSchema = z.strictObject({ email: AdminEmailSchema, role: AdminRoleSchema })
export const ChangeAdminRoleInputSchema = z.strictObject({ adminId: AdminIdSchema, role: AdminRoleSchema })
export const AdminIdInputSchema = z.strictObject({ adminId: AdminIdSchema })
/** `revokeKeys`: also revoke the API keys they created (docs/security.md, "API keys answer to their creator"). */
export const DisableAdminInputSchema = z.strictObject({ adminId: AdminIdSchema, revokeKeys: z.boolean().default(false) })

/** `invited`: no password yet (a new account, or one whose password was reset) — they cannot sign in until they set one. */
export type AdminStatus = 'active' | 'invited' | 'disabled'

export interface AdminListItem {
  id: string
  email: string
  role: AdminRole
  status: AdminStatus
  /** Two-step sign-in (TOTP) is on. */
  twoStep: boolean
  createdAt: Date
  lastSignInAt: Date | null
  /** How many of the API keys they created are neither revoked nor expired. */
  liveApiKeys: number
}

const statusOf = (a: AdminAccountRow): AdminStatus => (a.disabledAt !== null ? 'disabled' : a.hasPassword ? 'active' : 'invited')

/** An unknown stored role reads as the lowest: it allows nothing more than reading (roles.ts allows it nothing). */
const roleOf = (role: string): AdminRole => ((ADMIN_ROLES as readonly string[]).includes(role) ? (role as AdminRole) : 'viewer')

/** Every administrator, with their role, status and last sign-in, by email. */
export async function listAdmins(deps: Pick<Deps, 'sql' | 'clock'>): Promise<AdminListItem[]> {
  const rows = await listAdminAccounts(deps.sql)
  const keys = await countLiveApiKeysByCreator(deps.sql, deps.clock())
  return Promise.all(
    rows.map(async (a) => ({
      id: a.id,
      email: a.email,
      role: roleOf(a.role),
      status: statusOf(a),
      twoStep: a.twoStep,
      createdAt: a.createdAt,
      lastSignInAt: await findLastAdminSignIn(deps.sql, a.email),
      liveApiKeys: keys.get(a.id) ?? 0,
    })),
  )
}

async function requireAdmin(tx: SqlRunner, adminId: string): Promise<AdminAccountRow> {
  const admin = await findAdminAccount(tx, adminId)
  if (!admin) throw new ConsoleError('not_found', 'unknown administrator')
  return admin
}

/**
 * Refuses a change that would leave no active `admin` (docs/protocol.md §2.14). The active admins' rows are locked
 * first, so two administrators demoting or disabling each other at the same moment cannot both succeed.
 */
async function keepAnActiveAdmin(tx: SqlRunner, admin: AdminAccountRow, change: string): Promise<void> {
  await lockActiveAdmins(tx)
  if (await isLastActiveAdmin(tx, admin.id)) {
    throw new ConsoleError(
      'conflict',
      `no active admin would be left: ${admin.email} is the last one and cannot be ${change}. Make another administrator an admin first`,
    )
  }
}

const audit = (tx: SqlRunner, actor: ConsoleActor, action: AuditAction, admin: { email: string }, detail: string, now: Date) =>
  insertAuditEntry(tx, { actor: actor.label, action, target: `admin:${admin.email}`, detail, now })

/** What one step of `changeAdmin` is given: the transaction, the administrator as loaded, the parsed input. */
interface AdminChange<D> {
  tx: SqlRunner
  admin: AdminAccountRow
  data: D
  now: Date
}

/**
 * One change of an administrator: parses the input, then in one transaction loads the administrator (not_found for
 * an unknown id), runs the change's checks and writes, and writes the audit entry of `action` with the detail the
 * change returns, naming who made it.
 */
async function changeAdmin<D extends { adminId: string }, T>(
  deps: Deps,
  parse: (input: unknown) => D,
  input: { change: unknown; actor: ConsoleActor },
  action: AuditAction,
  change: (c: AdminChange<D>) => Promise<{ detail: string; result: T }>,
): Promise<T> {
  const data = parse(input.change)
  const now = deps.clock()
  return deps.sql.transaction(async (tx) => {
    const admin = await requireAdmin(tx, data.adminId)
    const { detail, result } = await change({ tx, admin, data, now })
    await audit(tx, input.actor, action, admin, detail, now)
    return result
  })
}

/** Refuses a change of one's own account that must be made elsewhere (or by another administrator). */
function refuseOwn(actor: ConsoleActor, admin: AdminAccountRow, message: string): void {
  if (actor.kind === 'admin' && actor.id === admin.id) throw new ConsoleError('conflict', message)
}

const parseAdminId = (v: unknown) => AdminIdInputSchema.parse(v)

/**
 * Ends every session of an administrator and their pending two-step sign-ins (a right password awaiting its code,
 * docs/security.md "Two-step sign-in"); the number of sessions ended.
 */
async function endSignIns(tx: SqlRunner, adminId: string): Promise<number> {
  await deleteSignInChallengesOf(tx, adminId)
  return deleteSessionsOf(tx, 'admin', adminId)
}

const sessionsWord = (n: number) => `${n} session${n === 1 ? '' : 's'} ended`
const keysWord = (n: number) => `${n} API key${n === 1 ? '' : 's'} revoked`

/**
 * Invites an administrator: an account with a role and no password, and a one-time link for them to set one (shown
 * once, never logged or audited). Until they use it they cannot sign in.
 * @throws ZodError for a malformed email or role; ConsoleError conflict for an email another administrator has
 */
export async function inviteAdmin(
  deps: Deps,
  input: { invite: z.input<typeof InviteAdminInputSchema>; actor: ConsoleActor },
): Promise<{ id: string; email: string; url: string; expiresAt: Date }> {
  const data = InviteAdminInputSchema.parse(input.invite)
  const now = deps.clock()
  return deps.sql.transaction(async (tx) => {
    if (await emailTakenByAdmin(tx, data.email)) throw new ConsoleError('conflict', `another administrator has the email ${data.email}`)
    const admin = await insertAdmin(tx, { email: data.email, passwordHash: null, role: data.role, now })
    const link = await issuePasswordLink(tx, {
      subject: 'admin',
      subjectId: admin.id,
      kind: 'invitation',
      now,
      ttlSeconds: ADMIN_LINK_TTL_SECONDS,
      baseUrl: deps.config.authServerUrl,
    })
    await audit(tx, input.actor, 'admin.invite', admin, `as ${data.role}; link valid until ${link.expiresAt.toISOString()}`, now)
    return { id: admin.id, email: admin.email, ...link }
  })
}

/**
 * Changes an administrator's role; it applies to their next request, and to the API keys they created (a key acts at
 * most with its creator's current role). Demoting the last active `admin` is refused.
 * @throws ConsoleError not_found; conflict for the same role or the last active admin
 */
export async function changeAdminRole(
  deps: Deps,
  input: { change: z.input<typeof ChangeAdminRoleInputSchema>; actor: ConsoleActor },
): Promise<{ id: string; role: AdminRole }> {
  return changeAdmin(
    deps,
    (v) => ChangeAdminRoleInputSchema.parse(v),
    input,
    'admin.role',
    async ({ tx, admin, data }) => {
      if (admin.role === data.role) throw new ConsoleError('conflict', `the administrator ${admin.email} is already ${data.role}`)
      if (data.role !== 'admin') await keepAnActiveAdmin(tx, admin, `made ${data.role}`)
      await updateAdminRole(tx, admin.id, data.role)
      return { detail: `${admin.role} → ${data.role}`, result: { id: admin.id, role: data.role } }
    },
  )
}

/**
 * Disables an administrator: they cannot sign in, their sessions and pending two-step sign-ins end, their unused
 * password links are deleted, and the API keys they created are refused while they stay disabled (docs/security.md).
 * With `revokeKeys`, those keys are revoked for good in the same transaction, each with its own `api-key.revoke`
 * audit entry. Not oneself (the session doing it would end with it, and another administrator can) and not the last
 * active admin.
 * @throws ConsoleError not_found; conflict for oneself, one already disabled, or the last active admin
 */
export async function disableAdmin(
  deps: Deps,
  input: { change: z.input<typeof DisableAdminInputSchema>; actor: ConsoleActor },
): Promise<{ id: string; endedSessions: number; revokedKeys: number }> {
  return changeAdmin(
    deps,
    (v) => DisableAdminInputSchema.parse(v),
    input,
    'admin.disable',
    async ({ tx, admin, data, now }) => {
      refuseOwn(input.actor, admin, 'you cannot disable your own account: another admin can')
      if (admin.disabledAt !== null) throw new ConsoleError('conflict', `the administrator ${admin.email} is already disabled`)
      await keepAnActiveAdmin(tx, admin, 'disabled')
      await updateAdminDisabledAt(tx, admin.id, now)
      const endedSessions = await endSignIns(tx, admin.id)
      await deleteUnusedPasswordLinks(tx, 'admin', admin.id)
      const revokedKeys = data.revokeKeys ? await revokeApiKeysCreatedBy(tx, { admin, actor: input.actor, now }) : 0
      const detail = data.revokeKeys ? `${sessionsWord(endedSessions)}; ${keysWord(revokedKeys)}` : sessionsWord(endedSessions)
      return { detail, result: { id: admin.id, endedSessions, revokedKeys } }
    },
  )
}

/** @throws ConsoleError not_found; conflict when not disabled */
export async function enableAdmin(deps: Deps, input: { change: z.input<typeof AdminIdInputSchema>; actor: ConsoleActor }): Promise<{ id: string }> {
  return changeAdmin(deps, parseAdminId, input, 'admin.enable', async ({ tx, admin }) => {
    if (admin.disabledAt === null) throw new ConsoleError('conflict', `the administrator ${admin.email} is not disabled`)
    await updateAdminDisabledAt(tx, admin.id, null)
    // A link from before the disable must not come back to life with the account (docs/security.md, "Password links").
    await deleteUnusedPasswordLinks(tx, 'admin', admin.id)
    return { detail: admin.role, result: { id: admin.id } }
  })
}

/**
 * Resets an administrator's password: the current one stops working, their sessions end, and a one-time link to set
 * a new one is returned once (an invitation link again for someone who never set a password). Not one's own password
 * (that is changed with the current one, on one's own account page) and not the last active admin's.
 * @throws ConsoleError not_found; conflict for oneself, a disabled administrator, or the last active admin
 */
export async function resetAdminPassword(
  deps: Deps,
  input: { change: z.input<typeof AdminIdInputSchema>; actor: ConsoleActor },
): Promise<{ id: string; url: string; expiresAt: Date; endedSessions: number }> {
  return changeAdmin(deps, parseAdminId, input, 'admin.reset-password', async ({ tx, admin, now }) => {
    refuseOwn(input.actor, admin, 'you cannot reset your own password here: change it on your account page')
    if (admin.disabledAt !== null) throw new ConsoleError('conflict', `the administrator ${admin.email} is disabled: enable them first`)
    if (admin.hasPassword) await keepAnActiveAdmin(tx, admin, 'reset')
    await updateAdminPasswordHash(tx, admin.id, null)
    const endedSessions = await endSignIns(tx, admin.id)
    const link = await issuePasswordLink(tx, {
      subject: 'admin',
      subjectId: admin.id,
      kind: admin.hasPassword ? 'reset' : 'invitation',
      now,
      ttlSeconds: ADMIN_LINK_TTL_SECONDS,
      baseUrl: deps.config.authServerUrl,
    })
    const what = admin.hasPassword ? 'password removed' : 'new invitation'
    return {
      detail: `${what}; ${sessionsWord(endedSessions)}; link valid until ${link.expiresAt.toISOString()}`,
      result: { id: admin.id, ...link, endedSessions },
    }
  })
}

/**
 * Ends every session of an administrator ("sign out everywhere"), one's own included; they can sign in again.
 * @throws ConsoleError not_found
 */
export async function signOutAdminEverywhere(
  deps: Deps,
  input: { change: z.input<typeof AdminIdInputSchema>; actor: ConsoleActor },
): Promise<{ id: string; endedSessions: number }> {
  return changeAdmin(deps, parseAdminId, input, 'admin.sign-out-everywhere', async ({ tx, admin }) => {
    const endedSessions = await endSignIns(tx, admin.id)
    return { detail: sessionsWord(endedSessions), result: { id: admin.id, endedSessions } }
  })
}

/**
 * Turns another administrator's two-step sign-in off, for someone who lost both their authenticator and their
 * recovery codes (docs/protocol.md §2.17): the secret and the recovery codes go, their sessions end, and they sign in
 * with their password alone (with ADMIN_REQUIRE_TOTP, they must set it up again before doing anything else). Not
 * one's own (My account turns it off with a current code): a stolen session must not remove its owner's second step.
 * @throws ConsoleError not_found; conflict for oneself or when two-step sign-in is not on
 */
export async function resetAdminTwoStep(
  deps: Deps,
  input: { change: z.input<typeof AdminIdInputSchema>; actor: ConsoleActor },
): Promise<{ id: string; endedSessions: number }> {
  return changeAdmin(deps, parseAdminId, input, 'admin.reset-two-step', async ({ tx, admin }) => {
    refuseOwn(input.actor, admin, 'you cannot turn off your own two-step sign-in here: do it on your account page')
    if (!admin.twoStep) throw new ConsoleError('conflict', `${admin.email} has no two-step sign-in to turn off`)
    await clearTotp(tx, admin.id)
    const endedSessions = await endSignIns(tx, admin.id)
    return { detail: `two-step sign-in and recovery codes removed; ${sessionsWord(endedSessions)}`, result: { id: admin.id, endedSessions } }
  })
}
