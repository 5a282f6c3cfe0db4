import { createHash } from 'node:crypto'
import { z } from 'zod'
import type { Deps } from '../../protocol/deps'
import { hashPassword } from '../sign-in/password'
import { passwordProblem } from '../owner/password-rules'
import { attemptSignIn } from '../sign-in/sign-in-limit'
import { hashSecret } from '../../kernel/secrets'
import { deleteUnusedPasswordLinks } from '../password-link/password-link.repo'
import { deleteOtherSessionsOf, deleteSession, listSessionsOf } from '../../kernel/session/session.repo'
import { findAdminByEmail, setAdminPasswordHash } from './admin.repo'
import { deleteSignInChallengesOf } from './admin-totp.repo'
import type { AdminIdentity } from './admin-session'
import { insertAuditEntry } from '../audit/audit.repo'
import { ConsoleError } from './console-error'

// An administrator's own account in the console (docs/protocol.md §2.17): their password and their sessions.
// Every change is audited.

export const ChangeAdminPasswordInputSchema = z.strictObject({
  currentPassword: z.string().max(256),
  newPassword: z.string().max(1024),
  confirmPassword: z.string().max(1024),
})

/** The session ids the console sees: derived one-way from the stored id, itself a hash of the cookie value. */
const sessionHandle = (storedId: string): string => createHash('sha256').update(`session-handle:${storedId}`, 'utf8').digest('hex')

export const SessionHandleInputSchema = z.strictObject({ sessionId: z.string().regex(/^[0-9a-f]{64}$/, 'not a session id') })

export interface MySession {
  id: string
  createdAt: Date
  expiresAt: Date
  current: boolean
}

/**
 * Changes the password of the signed-in administrator: the current one is checked as a sign-in is (a wrong one
 * counts toward the sign-in limit, docs/protocol.md §2.11), the new one follows the password rules. Their other
 * sessions, pending two-step sign-ins and unused password links end; this session stays.
 * @throws ConsoleError bad_request with the problem in words; GnapError 429 past the sign-in limit
 */
export async function changeAdminPassword(
  deps: Deps,
  input: { admin: AdminIdentity; sessionValue: string; ip: string | null } & z.infer<typeof ChangeAdminPasswordInputSchema>,
): Promise<{ endedSessions: number }> {
  const problem = passwordProblem(input.newPassword, { email: input.admin.email })
  if (problem) throw new ConsoleError('bad_request', problem)
  if (input.newPassword !== input.confirmPassword) throw new ConsoleError('bad_request', 'The new password and its confirmation differ.')
  const checked = await attemptSignIn(deps, {
    scope: 'admin',
    email: input.admin.email,
    password: input.currentPassword.slice(0, 256),
    ip: input.ip,
    find: findAdminByEmail,
  })
  if (!checked || checked.id !== input.admin.id) throw new ConsoleError('bad_request', 'Your current password is not right.')
  const passwordHash = await hashPassword(input.newPassword)
  const now = deps.clock()
  const endedSessions = await deps.sql.transaction(async (tx) => {
    await setAdminPasswordHash(tx, input.admin.id, passwordHash)
    const ended = await deleteOtherSessionsOf(tx, 'admin', input.admin.id, hashSecret(input.sessionValue))
    // What was given under the old password ends with it (docs/security.md): links to set one, sign-ins awaiting a code.
    await deleteUnusedPasswordLinks(tx, 'admin', input.admin.id)
    await deleteSignInChallengesOf(tx, input.admin.id)
    await insertAuditEntry(tx, {
      actor: input.admin.email,
      action: 'admin.password-change',
      target: `admin:${input.admin.email}`,
      detail: ended > 0 ? `${ended} other session${ended === 1 ? '' : 's'} ended` : null,
      now,
    })
    return ended
  })
  deps.log.info({ adminId: input.admin.id, endedSessions }, 'administrator changed their password')
  return { endedSessions }
}

/** The signed-in administrator's live sessions, newest first, this one marked. */
export async function listMySessions(deps: Deps, input: { admin: AdminIdentity; sessionValue: string }): Promise<MySession[]> {
  const current = hashSecret(input.sessionValue)
  const rows = await listSessionsOf(deps.sql, 'admin', input.admin.id, deps.clock())
  return rows.map((r) => ({ id: sessionHandle(r.id), createdAt: r.createdAt, expiresAt: r.expiresAt, current: r.id === current }))
}

/**
 * Ends one of the signed-in administrator's other sessions (`sessionId` as `listMySessions` gives it).
 * @throws ConsoleError not_found for a session that is not theirs or has ended, bad_request for this very session
 */
export async function endMySession(deps: Deps, input: { admin: AdminIdentity; sessionValue: string; sessionId: string }): Promise<void> {
  const current = hashSecret(input.sessionValue)
  const now = deps.clock()
  const rows = await listSessionsOf(deps.sql, 'admin', input.admin.id, now)
  const row = rows.find((r) => sessionHandle(r.id) === input.sessionId)
  if (!row) throw new ConsoleError('not_found', 'That session has already ended.')
  if (row.id === current) throw new ConsoleError('bad_request', 'This is the session you are using: sign out instead.')
  await deps.sql.transaction(async (tx) => {
    await deleteSession(tx, row.id)
    await insertAuditEntry(tx, {
      actor: input.admin.email,
      action: 'admin.session-end',
      target: `admin:${input.admin.email}`,
      detail: 'one session',
      now,
    })
  })
}

/** Ends every other session of the signed-in administrator, and their pending two-step sign-ins; how many sessions. */
export async function endMyOtherSessions(deps: Deps, input: { admin: AdminIdentity; sessionValue: string }): Promise<{ endedSessions: number }> {
  const now = deps.clock()
  const endedSessions = await deps.sql.transaction(async (tx) => {
    const ended = await deleteOtherSessionsOf(tx, 'admin', input.admin.id, hashSecret(input.sessionValue))
    await deleteSignInChallengesOf(tx, input.admin.id)
    if (ended > 0) {
      await insertAuditEntry(tx, {
        actor: input.admin.email,
        action: 'admin.session-end',
        target: `admin:${input.admin.email}`,
        detail: `${ended} other session${ended === 1 ? '' : 's'}`,
        now,
      })
    }
    return ended
  })
  return { endedSessions }
}
