import { z } from 'zod'
import type { Deps } from '../../protocol/deps'
import type { Sql, SqlRunner } from '../../kernel/db/sql'
import { newId } from '../../kernel/secrets'
import { insertAuditEntry, type AuditAction } from '../audit/audit.repo'
import { ConsoleError } from '../admin/console-error'
import type { ConsoleActor } from '../admin/roles'
import { revokeGrantInTransaction } from '../../protocol/grant/revoke-grant'
import type { EventTenancy } from '../../protocol/events/outbox.repo'
import { consoleEventActor } from '../../protocol/events/webhook-events'
import { deleteSessionsOf } from '../../kernel/session/session.repo'
import { canonicalWalletAddress } from '../../protocol/owner/canonical-wallet-address'
import { issueOwnerLink } from '../password-link/password-link'
import { deletePasswordLinksOf, deleteUnusedPasswordLinks } from '../password-link/password-link.repo'
import {
  deleteOwner as deleteOwnerRow,
  deleteOwnerWalletAddress,
  emailTaken,
  findLiveGrantsNamingWalletAddress,
  findOverlappingWalletAddresses,
  lockWalletAddressWrites,
  findOwnerById,
  findWalletAddressesOf,
  insertOwner,
  insertOwnerWalletAddress,
  updateOwnerProfile,
  touchOwner,
  updateOwnerStatus,
  type OwnerRow,
  type TenantScope,
} from './owner.repo'
import { OwnerEmailSchema, OwnerNameSchema } from './owner-input'
import { isRowOfTenant, sqlRowsOfTenant } from '../../protocol/tenant/tenants'
import { tenantForNewRow, TenantIdInputSchema } from '../tenant-choice'

// Owners in the admin console (docs/protocol.md §2.13): every change is one transaction with the audit entry that
// names the administrator, so nothing is half-written and nothing goes unrecorded.

export { OwnerEmailSchema, OwnerNameSchema }

/**
 * A wallet address as it is stored and compared: its canonical form (docs/protocol.md §6,
 * protocol/owner/canonical-wallet-address.ts), the form grants' identifiers are stored in.
 */
export const WalletAddressSchema = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .refine((u) => canonicalWalletAddress(u) !== null, {
    error: 'a wallet address is an http(s) URL without credentials, query or fragment',
    abort: true,
  })
  .overwrite((u) => canonicalWalletAddress(u) ?? u)

export const OwnerIdSchema = z.string().min(1).max(64)

export const CreateOwnerInputSchema = z.strictObject({
  email: OwnerEmailSchema,
  name: OwnerNameSchema,
  walletAddresses: z.array(WalletAddressSchema).min(1).max(20),
  /**
   * The tenant the owner belongs to (docs/protocol.md §2.21): a live tenant's id; none or null: the operator tenant
   * (or the implicit one). A key bound to a tenant creates in its own tenant only.
   */
  tenantId: TenantIdInputSchema.nullish(),
})

export const EditOwnerInputSchema = z.strictObject({ ownerId: OwnerIdSchema, email: OwnerEmailSchema, name: OwnerNameSchema })
export const WalletAddressInputSchema = z.strictObject({ ownerId: OwnerIdSchema, walletAddress: WalletAddressSchema })
export const RemoveWalletAddressInputSchema = WalletAddressInputSchema.extend({ revokeGrants: z.boolean() })
export const SetOwnerStatusInputSchema = z.strictObject({ ownerId: OwnerIdSchema, revokeGrants: z.boolean().default(false) })
export const OwnerIdInputSchema = z.strictObject({ ownerId: OwnerIdSchema })

/**
 * Refuses a wallet address that is, or is above or below, one already owned (docs/protocol.md §2.13): a resource
 * may belong to one owner only, since consent lets any owner whose address is "at or above" it decide. No unique key
 * can say "above or below", so the check holds the table's writers off until the transaction ends: two owners given
 * nested addresses at the same moment on PostgreSQL cannot both pass (on SQLite one writer runs at a time anyway).
 */
export async function assertWalletAddressesFree(tx: SqlRunner, dialect: Sql['dialect'], urls: string[], ownerId: string | null): Promise<void> {
  await lockWalletAddressWrites(tx, dialect)
  const seen = new Set<string>()
  for (const url of urls) {
    for (const other of seen) {
      if (other === url || url.startsWith(`${other}/`) || other.startsWith(`${url}/`)) {
        throw new ConsoleError('conflict', `the wallet address ${url} is listed twice, or inside another listed one`)
      }
    }
    seen.add(url)
    const overlaps = await findOverlappingWalletAddresses(tx, url)
    const clash = overlaps.find((o) => o.ownerId !== ownerId || o.url === url)
    if (clash) {
      throw new ConsoleError(
        'conflict',
        clash.url === url
          ? `the wallet address ${url} already belongs to ${clash.ownerId === ownerId ? 'this owner' : 'another owner'}`
          : `the wallet address ${url} overlaps ${clash.url}, which belongs to ${clash.ownerId === ownerId ? 'this owner' : 'another owner'}`,
      )
    }
  }
}

async function assertEmailFree(tx: SqlRunner, email: string, ownerId: string | null): Promise<void> {
  if (await emailTaken(tx, email, ownerId)) throw new ConsoleError('conflict', `another owner has the email ${email}`)
}

/**
 * An owner the caller may see: a key bound to a tenant sees that tenant's owners only (docs/protocol.md §2.21), and
 * another tenant's owner is as unknown as an id that names none.
 * @throws ConsoleError not_found
 */
export async function requireOwner(deps: Pick<Deps, 'config'>, db: SqlRunner, actor: ConsoleActor, ownerId: string): Promise<OwnerRow> {
  const owner = await findOwnerById(db, ownerId)
  if (!owner || !isRowOfTenant(deps, actor.tenantId, owner.tenantId)) throw new ConsoleError('not_found', 'unknown owner')
  return owner
}

/** The caller's tenant as a SQL scope (owner.repo.ts): null for a caller bound to none. */
export const scopeOfActor = (deps: Pick<Deps, 'config'>, actor: ConsoleActor): TenantScope | null => scopeOfTenant(deps, actor.tenantId)

/** One tenant's rows as a SQL scope (rowsOfTenant's rule); null for none. */
export const scopeOfTenant = (deps: Pick<Deps, 'config'>, tenantId: string | null): TenantScope | null =>
  tenantId === null ? null : { where: (column, params) => sqlRowsOfTenant(deps, tenantId, column, params) }

/** An owner change's audit entry: it names the owner's tenant (docs/protocol.md §2.15). */
const audit = (tx: SqlRunner, actor: ConsoleActor, action: AuditAction, owner: { id: string; tenantId: string | null }, detail: string, now: Date) =>
  insertAuditEntry(tx, { actor: actor.label, action, target: `owner:${owner.id}`, detail, now, tenantId: owner.tenantId })

/**
 * Revokes every live grant naming one of `urls` (or a resource below it), each with its own audit entry; for a key
 * bound to a tenant, that tenant's grants only.
 */
async function revokeGrantsNaming(
  tx: SqlRunner,
  urls: string[],
  revoking: { actor: ConsoleActor; scope: TenantScope | null; tenancy: EventTenancy; why: string; now: Date },
): Promise<number> {
  const { actor, why, now } = revoking
  let revoked = 0
  for (const url of urls) {
    for (const { id: grantId, tenantId } of await findLiveGrantsNamingWalletAddress(tx, url, revoking.scope)) {
      const r = await revokeGrantInTransaction(tx, grantId, now, consoleEventActor(actor), revoking.tenancy)
      if (r.outcome !== 'revoked') continue
      revoked++
      await insertAuditEntry(tx, {
        actor: actor.label,
        action: 'grant.revoke',
        target: `grant:${grantId}`,
        detail: `${why}; ${r.revokedTokens} live token${r.revokedTokens === 1 ? '' : 's'} revoked`,
        now,
        tenantId,
      })
    }
  }
  return revoked
}

const grantsWord = (n: number) => `${n} grant${n === 1 ? '' : 's'} revoked`

/** Revokes the grants naming the addresses `urls` gives when the administrator asked: how many, and the audit's words. */
async function revokeIfAsked(
  tx: SqlRunner,
  asked: boolean,
  urls: () => Promise<string[]>,
  revoking: { actor: ConsoleActor; scope: TenantScope | null; tenancy: EventTenancy; why: string; now: Date },
): Promise<{ revoked: number; words: string }> {
  if (!asked) return { revoked: 0, words: 'grants kept' }
  const revoked = await revokeGrantsNaming(tx, await urls(), revoking)
  return { revoked, words: grantsWord(revoked) }
}

/**
 * A use case's input: its schema's output (the router's `.input()` has parsed it, so it is never parsed again here)
 * with the administrator or API key that asks.
 */
type OwnerChange<Schema extends z.ZodType> = z.output<Schema> & { actor: ConsoleActor }

/**
 * Runs a change of one owner in one transaction, where the change writes its audit entry. The owner must be one the
 * caller may see (requireOwner).
 * @throws ConsoleError not_found for an unknown owner, or another tenant's
 */
function changeOwner<T>(
  deps: Deps,
  actor: ConsoleActor,
  ownerId: string,
  change: (tx: SqlRunner, owner: OwnerRow, now: Date) => Promise<T>,
): Promise<T> {
  const now = deps.clock()
  return deps.sql.transaction(async (tx) => change(tx, await requireOwner(deps, tx, actor, ownerId), now))
}

/** changeOwner for a change that may revoke grants: it answers the owner's id and how many grants it revoked. */
async function changeOwnerRevoking(
  deps: Deps,
  actor: ConsoleActor,
  ownerId: string,
  change: (tx: SqlRunner, owner: OwnerRow, now: Date) => Promise<number>,
): Promise<{ id: string; revokedGrants: number }> {
  return { id: ownerId, revokedGrants: await changeOwner(deps, actor, ownerId, change) }
}

/**
 * An administrator creates an owner without a password: they set one through an invitation link, and until then
 * cannot sign in. The owner belongs to the tenant named (tenant-choice.ts): a key bound to a tenant creates in it only.
 * @throws ConsoleError conflict for a taken email or wallet address; bad_request for an unknown or deleted tenant
 */
export async function adminCreateOwner(deps: Deps, { actor, ...data }: OwnerChange<typeof CreateOwnerInputSchema>): Promise<{ id: string }> {
  const id = newId()
  const now = deps.clock()
  await deps.sql.transaction(async (tx) => {
    const tenantId = await tenantForNewRow(tx, actor, data.tenantId)
    await assertEmailFree(tx, data.email, null)
    await assertWalletAddressesFree(tx, deps.sql.dialect, data.walletAddresses, null)
    await insertOwner(tx, { id, email: data.email, name: data.name, passwordHash: null, walletAddresses: data.walletAddresses, now, tenantId })
    const where = tenantId === null ? '' : ` (tenant ${tenantId})`
    await audit(tx, actor, 'owner.create', { id, tenantId }, `${data.email}, ${data.walletAddresses.join(', ')}${where}`, now)
  })
  return { id }
}

/**
 * Changes an owner's name and email.
 * @throws ConsoleError not_found, conflict for an email of another owner
 */
export async function editOwner(deps: Deps, { actor, ...data }: OwnerChange<typeof EditOwnerInputSchema>): Promise<{ id: string }> {
  await changeOwner(deps, actor, data.ownerId, async (tx, owner, now) => {
    await assertEmailFree(tx, data.email, owner.id)
    await updateOwnerProfile(tx, owner.id, { email: data.email, name: data.name, now })
    const changes = [
      owner.email !== data.email ? `email ${owner.email} → ${data.email}` : null,
      owner.name !== data.name ? `name ${owner.name} → ${data.name}` : null,
    ].filter(Boolean)
    await audit(tx, actor, 'owner.edit', owner, changes.join('; ') || 'no change', now)
  })
  return { id: data.ownerId }
}

/** @throws ConsoleError not_found, conflict for an address (or one above or below it) that is already owned */
export async function addWalletAddress(deps: Deps, { actor, ...data }: OwnerChange<typeof WalletAddressInputSchema>): Promise<{ id: string }> {
  await changeOwner(deps, actor, data.ownerId, async (tx, owner, now) => {
    await assertWalletAddressesFree(tx, deps.sql.dialect, [data.walletAddress], owner.id)
    await insertOwnerWalletAddress(tx, owner.id, data.walletAddress)
    await touchOwner(tx, owner.id, now)
    await audit(tx, actor, 'owner.wallet-address.add', owner, data.walletAddress, now)
  })
  return { id: data.ownerId }
}

/**
 * Removes one wallet address of an owner (not their last: an owner without one could decide nothing), and
 * revokes the grants naming it when asked.
 * @throws ConsoleError not_found for an unknown owner or an address they do not own; conflict for the last one
 */
export async function removeWalletAddress(
  deps: Deps,
  { actor, ...data }: OwnerChange<typeof RemoveWalletAddressInputSchema>,
): Promise<{ id: string; revokedGrants: number }> {
  return changeOwnerRevoking(deps, actor, data.ownerId, async (tx, owner, now) => {
    const addresses = await findWalletAddressesOf(tx, owner.id)
    if (!addresses.includes(data.walletAddress)) throw new ConsoleError('not_found', 'this owner has no such wallet address')
    if (addresses.length === 1) throw new ConsoleError('conflict', 'an owner keeps at least one wallet address: add another first')
    const why = `wallet address ${data.walletAddress} removed`
    const { revoked, words } = await revokeIfAsked(tx, data.revokeGrants, async () => [data.walletAddress], {
      actor,
      scope: scopeOfActor(deps, actor),
      tenancy: deps.config,
      why,
      now,
    })
    await deleteOwnerWalletAddress(tx, data.walletAddress)
    await touchOwner(tx, owner.id, now)
    await audit(tx, actor, 'owner.wallet-address.remove', owner, `${data.walletAddress}; ${words}`, now)
    return revoked
  })
}

/**
 * Disables an owner: their sessions end, their unused password links are deleted (docs/security.md), they cannot
 * sign in, their open consent requests say the account is disabled; their grants are revoked when asked.
 * @throws ConsoleError not_found; conflict when already disabled
 */
export async function disableOwner(
  deps: Deps,
  { actor, ...data }: OwnerChange<typeof SetOwnerStatusInputSchema>,
): Promise<{ id: string; revokedGrants: number }> {
  return changeOwnerRevoking(deps, actor, data.ownerId, async (tx, owner, now) => {
    if (owner.status === 'disabled') throw new ConsoleError('conflict', 'the owner is already disabled')
    await updateOwnerStatus(tx, owner.id, 'disabled', now)
    await deleteSessionsOf(tx, 'owner', owner.id)
    await deleteUnusedPasswordLinks(tx, 'owner', owner.id)
    const why = `owner ${owner.email} disabled`
    const { revoked, words } = await revokeIfAsked(tx, data.revokeGrants, () => findWalletAddressesOf(tx, owner.id), {
      actor,
      scope: scopeOfActor(deps, actor),
      tenancy: deps.config,
      why,
      now,
    })
    await audit(tx, actor, 'owner.disable', owner, words, now)
    return revoked
  })
}

/** @throws ConsoleError not_found; conflict when not disabled */
export async function enableOwner(deps: Deps, { actor, ...data }: OwnerChange<typeof OwnerIdInputSchema>): Promise<{ id: string }> {
  await changeOwner(deps, actor, data.ownerId, async (tx, owner, now) => {
    if (owner.status !== 'disabled') throw new ConsoleError('conflict', 'the owner is not disabled')
    await updateOwnerStatus(tx, owner.id, 'active', now)
    // A link from before the disable must not come back to life with the account (docs/security.md, "Password links").
    await deleteUnusedPasswordLinks(tx, 'owner', owner.id)
    await audit(tx, actor, 'owner.enable', owner, owner.email, now)
  })
  return { id: data.ownerId }
}

/**
 * Deletes an owner: every live grant on their wallet addresses is revoked, their sessions and links end, the owner and
 * their addresses go; the audit entries about them stay (they name the owner by id and email).
 * @throws ConsoleError not_found
 */
export async function adminDeleteOwner(
  deps: Deps,
  { actor, ...data }: OwnerChange<typeof OwnerIdInputSchema>,
): Promise<{ id: string; revokedGrants: number }> {
  return changeOwnerRevoking(deps, actor, data.ownerId, async (tx, owner, now) => {
    const addresses = await findWalletAddressesOf(tx, owner.id)
    const revoked = await revokeGrantsNaming(tx, addresses, {
      actor,
      scope: scopeOfActor(deps, actor),
      tenancy: deps.config,
      why: `owner ${owner.email} deleted`,
      now,
    })
    await deleteSessionsOf(tx, 'owner', owner.id)
    await deletePasswordLinksOf(tx, 'owner', owner.id)
    await deleteOwnerRow(tx, owner.id)
    await audit(tx, actor, 'owner.delete', owner, `${owner.email} (${addresses.join(', ')}); ${grantsWord(revoked)}`, now)
    return revoked
  })
}

/** How long an invitation or password-reset link stays usable (docs/protocol.md §2.13). */
export const OWNER_LINK_TTL_SECONDS = 7 * 24 * 60 * 60

export const IssueOwnerLinkInputSchema = z.strictObject({ ownerId: OwnerIdSchema, kind: z.enum(['invitation', 'reset']) })

/**
 * An administrator creates a one-time invitation or password-reset link for an owner, shown once to pass on; the
 * audit entry names the kind and expiry, never the link.
 * @throws ConsoleError not_found; conflict for a disabled owner
 */
export async function adminIssueOwnerLink(
  deps: Deps,
  { actor, ...data }: OwnerChange<typeof IssueOwnerLinkInputSchema>,
): Promise<{ url: string; expiresAt: Date }> {
  return changeOwner(deps, actor, data.ownerId, async (tx, owner, now) => {
    if (owner.status === 'disabled') throw new ConsoleError('conflict', 'the owner is disabled: enable them first')
    const link = await issueOwnerLink(tx, {
      ownerId: owner.id,
      kind: data.kind,
      now,
      ttlSeconds: OWNER_LINK_TTL_SECONDS,
      baseUrl: deps.config.authServerUrl,
    })
    await audit(tx, actor, 'owner.link', owner, `${data.kind} link, valid until ${link.expiresAt.toISOString()}`, now)
    return link
  })
}
