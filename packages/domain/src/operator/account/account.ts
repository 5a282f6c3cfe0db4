import type { Deps } from '../../protocol/deps'
import { findAccessItemRows, rowToAccessItem } from '../../protocol/access/access.repo'
import { describeAccessItem, type AccessDescription } from '../../protocol/access/describe-access'
import { parseInterval } from '../../protocol/access/interval'
import type { AccessItem } from '../../protocol/access/access.wire'
import { recordRevocations, revokeAuditedInTransaction, revokeGrantAs } from '../admin/admin-revoke-grant'
import { isConsoleError } from '../admin/console-error'
import { ownsAccess } from '../../protocol/owner/owns-access'
import { sqlRowsOfTenant, tenantOfGrant } from '../../protocol/tenant/tenants'
import { findOwnerByEmail } from '../owner/owner.repo'
import { hashPassword } from '../sign-in/password'
import { passwordProblem } from '../owner/password-rules'
import { attemptSignIn } from '../sign-in/sign-in-limit'
import { csrfMatches } from '../../kernel/session/csrf'
import { endSession } from '../../kernel/session/end-session'
import { findSession } from '../../kernel/session/find-session'
import { deleteUnusedPasswordLinks } from '../password-link/password-link.repo'
import {
  countUnapprovedAccessTypes,
  countUnapprovedByClient,
  findAccountOwner,
  findGrantsNaming,
  findUnapprovedGrantIds,
  findRevokers,
  setOwnerPasswordEndingOtherSessions,
  type AccountGrantRow,
  type AccountOwner,
  type GrantScope,
  type UnapprovedGroup,
} from './account.repo'

// The owner's own account page (docs/protocol.md §2.12): the apps they approved, the grants nobody approved counted
// per client, revoking one grant or a client's unapproved ones, what happened recently, and changing the password. Every grant shown or touched here is one whose
// access items all name the owner's wallet addresses or resources below them, the same rule as consent
// (protocol/owner/owns-access.ts), and of the owner's own tenant (docs/protocol.md §2.21): an owner never sees nor
// revokes another owner's grant, nor another tenant's, whatever id they send.

/** How many grants the history reads at most; how many approved apps and unapproved clients one page shows. */
const MAX_GRANTS = 200
const APPS_PAGE = 50
const CLIENTS_PAGE = 20
/** Longer than any client identifier the grant endpoint stores (a wallet address URL or a JWK thumbprint URI). */
const MAX_CLIENT_LENGTH = 2048

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

/**
 * What the account's queries read: grants naming the owner's wallet addresses, of the owner's tenant only (an owner
 * with no tenant is the operator tenant's, or the implicit one's: protocol/tenant/tenants.ts rowsOfTenant).
 */
const scopeOf = (deps: Deps, owner: AccountOwner): GrantScope => ({
  walletAddresses: owner.walletAddresses,
  tenant: (column, params) => sqlRowsOfTenant(deps, tenantOfGrant(deps, owner), column, params),
})

/** Of these grants, those that are the owner's: every access item naming a resource names one of their wallet addresses. */
async function ownedGrants(deps: Deps, owner: AccountOwner, rows: AccountGrantRow[]): Promise<{ row: AccountGrantRow; items: AccessItem[] }[]> {
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

/** One of the owner's live grants, approved or not; null when it is not theirs, unknown or not live. */
async function ownedLiveGrant(deps: Deps, owner: AccountOwner, grantId: string): Promise<{ row: AccountGrantRow; items: AccessItem[] } | null> {
  const [grant] = await ownedGrants(deps, owner, await findGrantsNaming(deps.sql, scopeOf(deps, owner), { live: true, grantId, take: 1 }))
  return grant ?? null
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

/**
 * The apps holding a live grant on the owner's wallet addresses that the owner (or the identity provider) approved,
 * newest first, a page of APPS_PAGE from `skip`; `next` is where the next page starts (null: none). Grants nobody
 * approved are not here (listUnapprovedClients), so however many of them clients make, these stay listed.
 */
export async function listConnectedApps(deps: Deps, ownerId: string, skip = 0): Promise<{ apps: ConnectedApp[]; next: number | null }> {
  const owner = await findAccountOwner(deps.sql, ownerId)
  if (!owner) return { apps: [], next: null }
  const from = pageStart(skip)
  const rows = await findGrantsNaming(deps.sql, scopeOf(deps, owner), { live: true, consent: 'approved', take: APPS_PAGE + 1, skip: from })
  const apps = (await ownedGrants(deps, owner, rows.slice(0, APPS_PAGE))).map(toApp)
  return { apps, next: rows.length > APPS_PAGE ? from + APPS_PAGE : null }
}

/** A page's first row from a query string's number: a whole number, 0 otherwise. */
const pageStart = (skip: number): number => (Number.isSafeInteger(skip) && skip > 0 ? skip : 0)

/** One of the owner's live grants (approved or not), for the confirmation page; null when it is not theirs, unknown or not live. */
export async function findConnectedApp(deps: Deps, ownerId: string, grantId: string): Promise<ConnectedApp | null> {
  const owner = await findAccountOwner(deps.sql, ownerId)
  if (!owner || grantId.length > 64) return null
  const grant = await ownedLiveGrant(deps, owner, grantId)
  return grant ? toApp(grant) : null
}

/** The clients holding live grants on the owner's wallet addresses that nobody approved, each with how many. */
export interface UnapprovedClients {
  clients: UnapprovedClient[]
  /** How many clients and grants there are in all, on every page. */
  totalClients: number
  totalGrants: number
  /** Where the next page starts; null: none. */
  next: number | null
}

export interface UnapprovedClient {
  clientName: string
  clientWalletAddress: string
  grants: number
  /** When the newest of them was made. */
  newestAt: Date
}

const toClient = (g: UnapprovedGroup): UnapprovedClient => ({
  clientName: g.clientName ?? g.client,
  clientWalletAddress: g.client,
  grants: g.grants,
  newestAt: g.newestAt,
})

/**
 * The live grants on the owner's wallet addresses nobody consented to (access that needs no interaction, §2.1),
 * grouped per client and counted in the database: most grants first, a page of CLIENTS_PAGE clients from `skip`.
 */
export async function listUnapprovedClients(deps: Deps, ownerId: string, skip = 0): Promise<UnapprovedClients> {
  const owner = await findAccountOwner(deps.sql, ownerId)
  if (!owner) return { clients: [], totalClients: 0, totalGrants: 0, next: null }
  const from = pageStart(skip)
  const counted = await countUnapprovedByClient(deps.sql, scopeOf(deps, owner), { take: CLIENTS_PAGE, skip: from })
  return {
    clients: counted.groups.map(toClient),
    totalClients: counted.clients,
    totalGrants: counted.grants,
    next: from + CLIENTS_PAGE < counted.clients ? from + CLIENTS_PAGE : null,
  }
}

/** One client's grants nobody approved on the owner's wallet addresses, for the confirmation: how many, of which access. */
export interface UnapprovedClientDetail extends UnapprovedClient {
  /** How many of the grants hold each access type (a grant may hold several). */
  access: { type: string; grants: number }[]
}

/** One client's unapproved grants on the owner's wallet addresses; null when it holds none (or the owner is gone). */
export async function findUnapprovedClient(deps: Deps, ownerId: string, client: string): Promise<UnapprovedClientDetail | null> {
  const owner = await findAccountOwner(deps.sql, ownerId)
  if (!owner || client.length > MAX_CLIENT_LENGTH) return null
  const [group] = (await countUnapprovedByClient(deps.sql, scopeOf(deps, owner), { take: 1, skip: 0, client })).groups
  if (!group) return null
  return { ...toClient(group), access: await countUnapprovedAccessTypes(deps.sql, scopeOf(deps, owner), client) }
}

/**
 * The owner revokes every live grant of one client on their wallet addresses that nobody approved, in one
 * transaction: each as revokeFromAccount revokes one (its tokens, its audit entry naming `owner:<email>`, its
 * grant.revoked event naming the owner). Only grants the owner owns in full are touched, whatever client is sent:
 * another owner's grants of the same client, and the ones the owner approved, stay as they are. The number revoked.
 */
export async function revokeClientFromAccount(deps: Deps, ownerId: string, client: string): Promise<number> {
  const owner = await findAccountOwner(deps.sql, ownerId)
  if (!owner || client.length > MAX_CLIENT_LENGTH) return 0
  const who = { kind: 'owner' as const, id: owner.id, email: owner.email }
  const now = deps.clock()
  const revoked = await deps.sql.transaction(async (tx) => {
    const out: { grantId: string; revokedTokens: number }[] = []
    for (const grantId of await findUnapprovedGrantIds(tx, scopeOf(deps, owner), client)) {
      // The query compares identifiers as stored; the consent rule (owns-access.ts) has the last word.
      const identifiers = (await findAccessItemRows(tx, grantId)).map((r) => r.identifier)
      if (!ownsAccess(owner.walletAddresses, identifiers)) continue
      const revocation = await revokeAuditedInTransaction(tx, grantId, who, now, deps.config)
      if (revocation.outcome === 'revoked') out.push({ grantId, revokedTokens: revocation.revokedTokens })
    }
    return out
  })
  recordRevocations(deps, who, revoked)
  return revoked.length
}

/**
 * The owner revokes one of their live grants: the same revocation, tokens and audit entry as the console's
 * (operator/admin/admin-revoke-grant.ts revokeGrantAs), the entry naming `owner:<email>`. 'not-found' for a grant that is
 * not the owner's, unknown, or no longer live: nothing is revoked.
 */
export async function revokeFromAccount(deps: Deps, ownerId: string, grantId: string): Promise<'revoked' | 'not-found'> {
  const owner = await findAccountOwner(deps.sql, ownerId)
  if (!owner || grantId.length > 64) return 'not-found'
  const grant = await ownedLiveGrant(deps, owner, grantId)
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

/**
 * What the owner (or the identity provider) approved and denied on their wallet addresses, and which of those grants
 * were revoked by whom; newest first, at most `take`. Grants nobody decided on are left out, so that a client making
 * many cannot push the owner's own decisions out of it.
 */
export async function ownerHistory(deps: Deps, ownerId: string, take = 20): Promise<HistoryEntry[]> {
  const owner = await findAccountOwner(deps.sql, ownerId)
  if (!owner) return []
  const rows = await findGrantsNaming(deps.sql, scopeOf(deps, owner), { live: false, consent: 'decided', take: MAX_GRANTS })
  const grants = (await ownedGrants(deps, owner, rows)).map((g) => g.row)
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
