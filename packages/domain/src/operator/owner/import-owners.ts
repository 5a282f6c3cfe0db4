import type { GnapConfig } from '../../kernel/config/config'
import type { Sql } from '../../kernel/db/sql'
import { insertAuditEntry } from '../audit/audit.repo'
import { ConsoleError } from '../admin/console-error'
import { isUniqueViolation } from '../../kernel/db/errors'
import { assertWalletAddressesFree } from './manage-owners'
import type { SqlRunner } from '../../kernel/db/sql'
import { newId } from '../../kernel/secrets'
import { issueOwnerLink } from '../password-link/password-link'
import type { OwnerFileRow } from './owner-import-file'
import { canonicalWalletAddress } from '../../protocol/owner/canonical-wallet-address'
import { findOwnerWithWalletAddresses } from '../../protocol/owner/consenting-owner.repo'
import { findOwnerByEmail, findOwnerById, findOwnerOfWalletAddress, insertOwner, insertOwnerWalletAddress, updateOwnerName } from './owner.repo'
import { findTenant } from '../../protocol/tenant/tenant.repo'

export type ImportOutcome = 'created' | 'updated' | 'unchanged' | 'refused'

export interface ImportRowResult {
  line: number
  /** The email as compared (trimmed, lower case), or as given when it is not an email. */
  email: string
  outcome: ImportOutcome
  /** Why a row was refused, or what an update changed, in plain words. */
  detail: string | null
}

export interface ImportReport {
  rows: ImportRowResult[]
  /** The invitation link of each created owner: for the operator's file only, never printed or logged. */
  invitations: { line: number; email: string; url: string; expiresAt: Date }[]
}

/** The audit log's actor for imports. */
export const IMPORT_ACTOR = 'owners import'

const MAX_NAME = 120
const MAX_WALLET_ADDRESSES = 20
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

const shown = (v: unknown): string => (typeof v === 'string' ? (v.length > 80 ? `${v.slice(0, 80)}…` : v) : (JSON.stringify(v) ?? String(v)))

type ValidRow = { email: string; name: string; walletAddresses: string[] }

/** A row's values, normalised, or why it is refused. */
function validate(row: Exclude<OwnerFileRow, { problem: string }>): ValidRow | string {
  if (typeof row.email !== 'string' || row.email.trim() === '') return 'no email'
  const email = row.email.trim().toLowerCase()
  if (email.length > 254 || !EMAIL.test(email)) return `"${shown(row.email)}" is not an email address`
  if (typeof row.name !== 'string' || row.name.trim() === '') return 'no name'
  const name = row.name.trim()
  if ([...name].length > MAX_NAME) return `the name is longer than ${MAX_NAME} characters`
  if (!Array.isArray(row.walletAddresses) || row.walletAddresses.length === 0) return 'no wallet address'
  if (row.walletAddresses.length > MAX_WALLET_ADDRESSES) return `more than ${MAX_WALLET_ADDRESSES} wallet addresses`
  const walletAddresses: string[] = []
  for (const raw of row.walletAddresses) {
    const text = typeof raw === 'string' ? raw.trim() : ''
    const url = URL.canParse(text) ? new URL(text) : null
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) return `wallet address "${shown(raw)}" is not an http(s) URL`
    if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '' || /[?#]/.test(text))
      return `wallet address "${shown(raw)}" has a query, fragment or user name`
    // The form every owner-side query compares (docs/protocol.md §6).
    const normal = canonicalWalletAddress(text)
    if (normal === null) return `wallet address "${shown(raw)}" is not an http(s) URL`
    if (!walletAddresses.includes(normal)) walletAddresses.push(normal)
  }
  return { email, name, walletAddresses }
}

/** Thrown inside a row's transaction to roll it back with a reason. */
class Refused extends Error {}

/**
 * The tenant the file's owners go to (docs/protocol.md §2.21): a live tenant's id, or null for the operator tenant
 * (or the implicit one).
 * @throws Error for an unknown or deleted tenant: nothing is imported
 */
async function importTenant(sql: Sql, tenantId: string | null): Promise<string | null> {
  if (tenantId === null) return null
  const tenant = await findTenant(sql, tenantId.toLowerCase())
  if (!tenant || tenant.deletedAt !== null) throw new Error(`unknown or deleted tenant ${tenantId}: name a live tenant`)
  return tenant.id
}

/**
 * Creates or updates owners from an operator's file (docs/protocol.md §7), one transaction per row: a refused row
 * writes nothing and the next row goes on. Owners are matched by email (trimmed, lower case), so nothing is
 * duplicated and the same file imported twice changes nothing the second time. An update sets the name and adds the
 * row's wallet addresses; it never removes one (that asks whether to revoke grants, in the console). A wallet address
 * of another owner refuses the row, and so does a second row for an email already in the file. Each created owner gets an invitation link, returned in the report.
 * Every owner created belongs to `tenantId` (none: the operator tenant, or the implicit one); an email of another
 * tenant's owner refuses its row.
 * @throws Error for an unknown or deleted tenant, before any row is read
 */
export async function importOwners(
  deps: {
    sql: Sql
    clock: () => Date
    config: Pick<GnapConfig, 'authServerUrl' | 'ownerLinkExpiryDays'> & { operatorTenant?: { id: string } | null }
  },
  rows: OwnerFileRow[],
  opts: { tenantId?: string | null } = {},
): Promise<ImportReport> {
  const tenantId = await importTenant(deps.sql, opts.tenantId ?? null)
  // rowsOfTenant's rule (docs/protocol.md §2.21): an owner of no tenant is the operator tenant's.
  const effective = (t: string | null) => t ?? deps.config.operatorTenant?.id ?? null
  const sameTenant = (rowTenant: string | null) => effective(rowTenant) === effective(tenantId)
  const report: ImportReport = { rows: [], invitations: [] }
  const ttlSeconds = deps.config.ownerLinkExpiryDays * 86_400
  // A second row for the same email is refused, so a file imported twice gives the same result twice.
  const seen = new Map<string, number>()
  for (const row of rows) {
    if ('problem' in row) {
      report.rows.push({ line: row.line, email: '', outcome: 'refused', detail: row.problem })
      continue
    }
    const valid = validate(row)
    if (typeof valid === 'string') {
      report.rows.push({ line: row.line, email: typeof row.email === 'string' ? row.email.trim() : '', outcome: 'refused', detail: valid })
      continue
    }
    const first = seen.get(valid.email)
    if (first !== undefined) {
      report.rows.push({ line: row.line, email: valid.email, outcome: 'refused', detail: `the same email is on line ${first}: one row per owner` })
      continue
    }
    seen.set(valid.email, row.line)
    const now = deps.clock()
    try {
      const result = await deps.sql.transaction(async (tx) =>
        importRow(tx, valid, { now, ttlSeconds, baseUrl: deps.config.authServerUrl, dialect: deps.sql.dialect, tenantId, sameTenant }),
      )
      report.rows.push({ line: row.line, email: valid.email, outcome: result.outcome, detail: result.detail })
      if (result.invitation) report.invitations.push({ line: row.line, email: valid.email, ...result.invitation })
    } catch (e) {
      if (!(e instanceof Refused) && !(e instanceof ConsoleError) && !isUniqueViolation(e)) throw e
      const detail =
        e instanceof Refused || e instanceof ConsoleError ? e.message : 'the email or a wallet address was taken by another owner meanwhile'
      report.rows.push({ line: row.line, email: valid.email, outcome: 'refused', detail })
    }
  }
  return report
}

async function importRow(
  tx: SqlRunner,
  row: ValidRow,
  at: {
    now: Date
    ttlSeconds: number
    baseUrl: string
    dialect: Sql['dialect']
    tenantId: string | null
    sameTenant: (rowTenant: string | null) => boolean
  },
): Promise<{ outcome: Exclude<ImportOutcome, 'refused'>; detail: string | null; invitation?: { url: string; expiresAt: Date } }> {
  const existing = await findOwnerByEmail(tx, row.email)
  // Emails are unique across the server: one of another tenant's owners is not this file's to change.
  if (existing && !at.sameTenant((await findOwnerById(tx, existing.id))?.tenantId ?? null)) {
    throw new Refused('the email belongs to an owner of another tenant')
  }
  const current = existing ? await findOwnerWithWalletAddresses(tx, existing.id) : null
  const have = new Set((current?.walletAddresses ?? []).map((u) => canonicalWalletAddress(u) ?? u))
  const added = row.walletAddresses.filter((u) => !have.has(u))
  // The console's rule (docs/protocol.md §2.13): no address that is, or is above or below, another owner's.
  await assertWalletAddressesFree(tx, at.dialect, added, current?.id ?? null)
  if (!current) {
    const id = newId()
    const { tenantId } = at
    await insertOwner(tx, { id, email: row.email, name: row.name, passwordHash: null, walletAddresses: row.walletAddresses, now: at.now, tenantId })
    await insertAuditEntry(tx, { actor: IMPORT_ACTOR, action: 'owner.import', target: `owner:${id}`, detail: 'created', now: at.now, tenantId })
    const invitation = await issueOwnerLink(tx, { ownerId: id, kind: 'invitation', now: at.now, ttlSeconds: at.ttlSeconds, baseUrl: at.baseUrl })
    return { outcome: 'created', detail: null, invitation }
  }
  const changes: string[] = []
  if (current.name !== row.name) {
    await updateOwnerName(tx, current.id, row.name, at.now)
    changes.push('name')
  }
  for (const url of added) await insertOwnerWalletAddress(tx, current.id, url)
  if (added.length > 0) changes.push(`added ${added.join(' ')}`)
  if (changes.length === 0) return { outcome: 'unchanged', detail: null }
  const detail = changes.join('; ')
  await insertAuditEntry(tx, {
    actor: IMPORT_ACTOR,
    action: 'owner.import',
    target: `owner:${current.id}`,
    detail: `updated: ${detail}`,
    now: at.now,
    tenantId: at.tenantId,
  })
  return { outcome: 'updated', detail }
}
