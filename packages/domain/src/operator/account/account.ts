import type { Deps } from '../../protocol/deps'
import { findAccessItemRows, rowToAccessItem } from '../../protocol/access/access.repo'
import { describeAccessItem, type AccessDescription } from '../../protocol/access/describe-access'
import { parseInterval } from '../../protocol/access/interval'
import type { AccessItem } from '../../protocol/access/access.wire'
import { revokeGrantAs } from '../admin/admin-revoke-grant'
import { isConsoleError } from '../admin/console-error'
import { ownsAccess } from '../../protocol/owner/owns-access'
import { findOwnerByEmail } from '../owner/owner.repo'
import { hashPassword } from '../sign-in/password'
import { passwordProblem } from '../owner/password-rules'
import { attemptSignIn } from '../sign-in/sign-in-limit'
import { csrfMatches } from '../../kernel/session/csrf'
import { endSession } from '../../kernel/session/end-session'
import { findSession } from '../../kernel/session/find-session'
import { deleteUnusedPasswordLinks } from '../password-link/password-link.repo'
import {
  findAccountOwner,
  findGrantsNaming,
  findRevokers,
  setOwnerPasswordEndingOtherSessions,
  type AccountGrantRow,
  type AccountOwner,
} from './account.repo'

// The owner's own account page (docs/protocol.md §2.12): the apps holding live grants on their wallet addresses,
// revoking one, what happened recently, and changing the password. Every grant shown or touched here is one whose
// access items all name the owner's wallet addresses or resources below them, the same rule as consent
// (protocol/owner/owns-access.ts): an owner never sees nor revokes another owner's grant, whatever id they send.

/** How many grants the page reads at most: connected apps, and grants for the history. */
const MAX_GRANTS = 200

/** One connected app: a live grant, described as the consent screen describes it. */
export interface ConnectedApp {
  grantId: string
  clientName: string
  clientWalletAddress: string
  access: AccessDescription[]
  /** When the owner approved it; null for a grant that needed no approval (receiving payments only). */
  approvedAt: Date | null
  /** When its newest access token was issued (at approval or by rotation); null before the first one. */
  lastTokenAt: Date | null
  /** When the access ends because its interval does; null when it does not end. */
  endsAt: Date | null
}

/** Grants that are the owner's: every access item naming a resource names one of their wallet addresses. */
async function ownedGrants(
  deps: Deps,
  owner: AccountOwner,
  options: { live: boolean; grantId?: string },
): Promise<{ row: AccountGrantRow; items: AccessItem[] }[]> {
  const rows = await findGrantsNaming(deps.sql, owner.walletAddresses, { ...options, take: MAX_GRANTS })
  const out: { row: AccountGrantRow; items: AccessItem[] }[] = []
  for (const row of rows) {
    const itemRows = await findAccessItemRows(deps.sql, row.id)
    if (
      !ownsAccess(
        owner.walletAddresses,
        itemRows.map((r) => r.identifier),
      )
    )
      continue
    out.push({ row, items: itemRows.map(rowToAccessItem) })
  }
  return out
}

const toApp = ({ row, items }: { row: AccountGrantRow; items: AccessItem[] }): ConnectedApp => ({
  grantId: row.id,
  clientName: row.clientName ?? row.client,
  clientWalletAddress: row.client,
  access: items.map(describeAccessItem),
  approvedAt: row.interactionState === 'approved' ? row.decidedAt : null,
  lastTokenAt: row.lastTokenAt,
  endsAt: grantEnd(items),
})

/** Every app holding a live (approved or issued) grant on the owner's wallet addresses, newest first. */
export async function listConnectedApps(deps: Deps, ownerId: string): Promise<ConnectedApp[]> {
  const owner = await findAccountOwner(deps.sql, ownerId)
  if (!owner) return []
  return (await ownedGrants(deps, owner, { live: true })).map(toApp)
}

/** One of the owner's live grants, for the confirmation page; null when it is not theirs, unknown or not live. */
export async function findConnectedApp(deps: Deps, ownerId: string, grantId: string): Promise<ConnectedApp | null> {
  const owner = await findAccountOwner(deps.sql, ownerId)
  if (!owner || grantId.length > 64) return null
  const [grant] = await ownedGrants(deps, owner, { live: true, grantId })
  return grant ? toApp(grant) : null
}

/**
 * The owner revokes one of their live grants: the same revocation, tokens and audit entry as the console's
 * (operator/admin/admin-revoke-grant.ts revokeGrantAs), the entry naming `owner:<email>`. 'not-found' for a grant that is
 * not the owner's, unknown, or no longer live: nothing is revoked.
 */
export async function revokeFromAccount(deps: Deps, ownerId: string, grantId: string): Promise<'revoked' | 'not-found'> {
  const owner = await findAccountOwner(deps.sql, ownerId)
  if (!owner || grantId.length > 64) return 'not-found'
  const [grant] = await ownedGrants(deps, owner, { live: true, grantId })
  if (!grant) return 'not-found'
  try {
    await revokeGrantAs(deps, { grantId, who: { kind: 'owner', id: owner.id, email: owner.email } })
    return 'revoked'
  } catch (e) {
    // Revoked by another request in between: nothing left to do here.
    if (isConsoleError(e)) return 'not-found'
    throw e
  }
}

/** One line of the owner's recent history. */
export interface HistoryEntry {
  at: Date
  what: 'approved' | 'denied' | 'revoked'
  clientName: string
  clientWalletAddress: string
  /** For a revocation: who revoked it. */
  by?: 'you' | 'an administrator' | 'the app'
}

/** What the owner approved, denied, and what was revoked, on their wallet addresses; newest first, at most `take`. */
export async function ownerHistory(deps: Deps, ownerId: string, take = 20): Promise<HistoryEntry[]> {
  const owner = await findAccountOwner(deps.sql, ownerId)
  if (!owner) return []
  const grants = (await ownedGrants(deps, owner, { live: false })).map((g) => g.row)
  const revokers = await findRevokers(
    deps.sql,
    grants.filter((g) => g.finalizedReason === 'revoked').map((g) => g.id),
  )
  const entries: HistoryEntry[] = []
  for (const g of grants) {
    const client = { clientName: g.clientName ?? g.client, clientWalletAddress: g.client }
    if (g.decidedAt && (g.interactionState === 'approved' || g.interactionState === 'denied')) {
      entries.push({ at: g.decidedAt, what: g.interactionState, ...client })
    }
    if (g.state === 'finalized' && g.finalizedReason === 'revoked' && g.finalizedAt) {
      const actor = revokers.get(g.id)
      const by = actor === undefined ? 'the app' : actor === `owner:${owner.email}` ? 'you' : 'an administrator'
      entries.push({ at: g.finalizedAt, what: 'revoked', ...client, by })
    }
  }
  return entries.sort((a, b) => b.at.getTime() - a.at.getTime()).slice(0, take)
}

/** A refusal names the field it is about (`field`), for the page to show it there; null when it is about none. */
export type PasswordChange = { ok: true; endedSessions: number } | { ok: false; problem: string; field: 'current' | 'new' | 'confirm' | null }

/**
 * The owner changes their password: the new one must follow the password rules and match its confirmation, then the
 * current one is checked as a sign-in is (the password-check queue and the sign-in limits, scope `owner`). The new
 * hash is stored, every other owner session of theirs ends and their unused password links are deleted, in one
 * transaction; the current session stays.
 * @throws GnapError request_denied (429, retryAfterSeconds) when too many sign-ins failed or are being checked
 */
export async function changeOwnerPassword(
  deps: Deps,
  input: { ownerId: string; sessionId: string; currentPassword: string; newPassword: string; confirmPassword: string; ip: string | null },
): Promise<PasswordChange> {
  const owner = await findAccountOwner(deps.sql, input.ownerId)
  if (!owner) return { ok: false, problem: 'Your account could not be found. Sign in again.', field: null }
  const problem = passwordProblem(input.newPassword, { email: owner.email, name: owner.name })
  if (problem) return { ok: false, problem, field: 'new' }
  if (input.newPassword !== input.confirmPassword) return { ok: false, problem: 'The new password and its confirmation differ.', field: 'confirm' }
  const checked = await attemptSignIn(deps, {
    scope: 'owner',
    email: owner.email,
    password: input.currentPassword.slice(0, 256),
    ip: input.ip,
    find: findOwnerByEmail,
  })
  if (!checked || checked.id !== owner.id) return { ok: false, problem: 'Your current password is not right.', field: 'current' }
  const passwordHash = await hashPassword(input.newPassword)
  const endedSessions = await deps.sql.transaction(async (tx) => {
    const ended = await setOwnerPasswordEndingOtherSessions(tx, { ownerId: owner.id, passwordHash, keepSessionId: input.sessionId })
    // A link to set a password was for the one this replaces (docs/security.md, "Password links").
    await deleteUnusedPasswordLinks(tx, 'owner', owner.id)
    return ended
  })
  deps.log.info({ ownerId: owner.id, endedSessions }, 'owner changed their password')
  return { ok: true, endedSessions }
}

/**
 * When a grant's access ends because the intervals of its limits do: the latest end of its items' intervals, or
 * null when some item never ends (no interval, or one repeating without end). docs/protocol.md §6: `R<n>` is n + 1
 * periods.
 */
export function grantEnd(items: AccessItem[]): Date | null {
  let latest: Date | null = null
  for (const item of items) {
    const interval = item.type === 'outgoing-payment' ? item.limits?.interval : undefined
    const end = interval === undefined ? null : intervalEnd(interval)
    if (!end) return null
    if (!latest || end > latest) latest = end
  }
  return latest
}

function intervalEnd(interval: string): Date | null {
  const parsed = parseInterval(interval)
  if (!parsed) return null
  if (parsed.end && !parsed.start) return parsed.end.toJSDate()
  if (parsed.repetitions === null) return null
  const periods = parsed.repetitions + 1
  const end = parsed.start.plus(
    parsed.duration ? parsed.duration.mapUnits((v) => v * periods) : parsed.end.diff(parsed.start).mapUnits((v) => v * periods),
  )
  return end.isValid ? end.toJSDate() : null
}

/** The signed-in owner of an account page request: their live owner session and who they are. */
export interface AccountSession {
  sessionId: string
  csrfHash: string
  owner: { id: string; email: string; name: string; walletAddresses: string[] }
}

/** The live owner session of a cookie value with its owner; null when signed out (or the owner is gone). */
export async function accountSession(deps: Deps, sessionValue: string | null): Promise<AccountSession | null> {
  const session = await findSession(deps.sql, 'owner', sessionValue, deps.clock())
  if (!session) return null
  const owner = await findAccountOwner(deps.sql, session.subjectId)
  if (!owner) return null
  return {
    sessionId: session.id,
    csrfHash: session.csrfHash,
    owner: { id: owner.id, email: owner.email, name: owner.name, walletAddresses: owner.walletAddresses },
  }
}

/** Whether a form's CSRF token belongs to this account session (kernel/session/csrf.ts). */
export const accountFormIsGenuine = (session: AccountSession, csrf: string | null): boolean => csrfMatches(session, csrf)

/** Ends the account session of this cookie value when the form carries its CSRF token; false (nothing ends) otherwise. */
export async function signOutOfAccount(deps: Deps, sessionValue: string | null, csrf: string | null): Promise<boolean> {
  const session = await accountSession(deps, sessionValue)
  if (!session || !csrfMatches(session, csrf)) return false
  await endSession(deps.sql, sessionValue)
  return true
}
