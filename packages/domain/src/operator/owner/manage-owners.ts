import { z } from 'zod'
import type { Deps } from '../../protocol/deps'
import type { Sql, SqlRunner } from '../../kernel/db/sql'
import { newId } from '../../kernel/secrets'
import { insertAuditEntry, type AuditAction } from '../audit/audit.repo'
import { ConsoleError } from '../admin/console-error'
import type { ConsoleActor } from '../admin/roles'
import { revokeGrantInTransaction } from '../../protocol/grant/revoke-grant'
import { consoleEventActor } from '../../protocol/events/webhook-events'
import { deleteSessionsOf } from '../../kernel/session/session.repo'
import { normalUrl } from '../../protocol/owner/owns-access'
import { issueOwnerLink } from '../password-link/password-link'
import { deletePasswordLinksOf, deleteUnusedPasswordLinks } from '../password-link/password-link.repo'
import {
  deleteOwner as deleteOwnerRow,
  deleteOwnerWalletAddress,
  emailTaken,
  findLiveGrantIdsNamingWalletAddress,
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
} from './owner.repo'
import { OwnerEmailSchema, OwnerNameSchema } from './owner-input'

// Owners in the admin console (docs/protocol.md §2.13): every change is one transaction with the audit entry that
// names the administrator, so nothing is half-written and nothing goes unrecorded.

export { OwnerEmailSchema, OwnerNameSchema }

/** A wallet address as it is stored and compared: its WHATWG URL form without a trailing slash (as consent compares). */
export const WalletAddressSchema = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .transform((u, ctx) => {
    const n = normalUrl(u)
    if (n === null || new URL(n).search || new URL(n).hash) {
      ctx.addIssue({ code: 'custom', message: 'a wallet address is an https URL without query or fragment' })
      return z.NEVER
    }
    return n
  })

export const OwnerIdSchema = z.string().min(1).max(64)

export const CreateOwnerInputSchema = z.strictObject({
  email: OwnerEmailSchema,
  name: OwnerNameSchema,
  walletAddresses: z.array(WalletAddressSchema).min(1).max(20),
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

async function requireOwner(tx: SqlRunner, ownerId: string): Promise<OwnerRow> {
  const owner = await findOwnerById(tx, ownerId)
  if (!owner) throw new ConsoleError('not_found', 'unknown owner')
  return owner
}

const audit = (tx: SqlRunner, actor: ConsoleActor, action: AuditAction, ownerId: string, detail: string, now: Date) =>
  insertAuditEntry(tx, { actor: actor.label, action, target: `owner:${ownerId}`, detail, now })

/** Revokes every live grant naming one of `urls` (or a resource below it), each with its own audit entry. */
async function revokeGrantsNaming(tx: SqlRunner, urls: string[], actor: ConsoleActor, why: string, now: Date): Promise<number> {
  let revoked = 0
  for (const url of urls) {
    for (const grantId of await findLiveGrantIdsNamingWalletAddress(tx, url)) {
      const r = await revokeGrantInTransaction(tx, grantId, now, consoleEventActor(actor))
      if (r.outcome !== 'revoked') continue
      revoked++
      await insertAuditEntry(tx, {
        actor: actor.label,
        action: 'grant.revoke',
        target: `grant:${grantId}`,
        detail: `${why}; ${r.revokedTokens} live token${r.revokedTokens === 1 ? '' : 's'} revoked`,
        now,
      })
    }
  }
  return revoked
}

const grantsWord = (n: number) => `${n} grant${n === 1 ? '' : 's'} revoked`

/**
 * An administrator creates an owner without a password: they set one through an invitation link, and until then
 * cannot sign in.
 * @throws ZodError for malformed input; ConsoleError conflict for a taken email or wallet address
 */
export async function adminCreateOwner(
  deps: Deps,
  input: { owner: z.input<typeof CreateOwnerInputSchema>; actor: ConsoleActor },
): Promise<{ id: string }> {
  const data = CreateOwnerInputSchema.parse(input.owner)
  const id = newId()
  const now = deps.clock()
  await deps.sql.transaction(async (tx) => {
    await assertEmailFree(tx, data.email, null)
    await assertWalletAddressesFree(tx, deps.sql.dialect, data.walletAddresses, null)
    await insertOwner(tx, { id, email: data.email, name: data.name, passwordHash: null, walletAddresses: data.walletAddresses, now })
    await audit(tx, input.actor, 'owner.create', id, `${data.email}, ${data.walletAddresses.join(', ')}`, now)
  })
  return { id }
}

/**
 * Changes an owner's name and email.
 * @throws ConsoleError not_found, conflict for an email of another owner
 */
export async function editOwner(deps: Deps, input: { change: z.input<typeof EditOwnerInputSchema>; actor: ConsoleActor }): Promise<{ id: string }> {
  const data = EditOwnerInputSchema.parse(input.change)
  const now = deps.clock()
  await deps.sql.transaction(async (tx) => {
    const owner = await requireOwner(tx, data.ownerId)
    await assertEmailFree(tx, data.email, owner.id)
    await updateOwnerProfile(tx, owner.id, { email: data.email, name: data.name, now })
    const changes = [
      owner.email !== data.email ? `email ${owner.email} → ${data.email}` : null,
      owner.name !== data.name ? `name ${owner.name} → ${data.name}` : null,
    ].filter(Boolean)
    await audit(tx, input.actor, 'owner.edit', owner.id, changes.join('; ') || 'no change', now)
  })
  return { id: data.ownerId }
}

/** @throws ConsoleError not_found, conflict for an address (or one above or below it) that is already owned */
export async function addWalletAddress(
  deps: Deps,
  input: { change: z.input<typeof WalletAddressInputSchema>; actor: ConsoleActor },
): Promise<{ id: string }> {
  const data = WalletAddressInputSchema.parse(input.change)
  const now = deps.clock()
  await deps.sql.transaction(async (tx) => {
    const owner = await requireOwner(tx, data.ownerId)
    await assertWalletAddressesFree(tx, deps.sql.dialect, [data.walletAddress], owner.id)
    await insertOwnerWalletAddress(tx, owner.id, data.walletAddress)
    await touchOwner(tx, owner.id, now)
    await audit(tx, input.actor, 'owner.wallet-address.add', owner.id, data.walletAddress, now)
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
  input: { change: z.input<typeof RemoveWalletAddressInputSchema>; actor: ConsoleActor },
): Promise<{ id: string; revokedGrants: number }> {
  const data = RemoveWalletAddressInputSchema.parse(input.change)
  const now = deps.clock()
  const revokedGrants = await deps.sql.transaction(async (tx) => {
    const owner = await requireOwner(tx, data.ownerId)
    const addresses = await findWalletAddressesOf(tx, owner.id)
    if (!addresses.includes(data.walletAddress)) throw new ConsoleError('not_found', 'this owner has no such wallet address')
    if (addresses.length === 1) throw new ConsoleError('conflict', 'an owner keeps at least one wallet address: add another first')
    const revoked = data.revokeGrants
      ? await revokeGrantsNaming(tx, [data.walletAddress], input.actor, `wallet address ${data.walletAddress} removed`, now)
      : 0
    await deleteOwnerWalletAddress(tx, data.walletAddress)
    await touchOwner(tx, owner.id, now)
    await audit(
      tx,
      input.actor,
      'owner.wallet-address.remove',
      owner.id,
      `${data.walletAddress}; ${data.revokeGrants ? grantsWord(revoked) : 'grants kept'}`,
      now,
    )
    return revoked
  })
  return { id: data.ownerId, revokedGrants }
}

/**
 * Disables an owner: their sessions end, their unused password links are deleted (docs/security.md), they cannot
 * sign in, their open consent requests say the account is disabled; their grants are revoked when asked.
 * @throws ConsoleError not_found; conflict when already disabled
 */
export async function disableOwner(
  deps: Deps,
  input: { change: z.input<typeof SetOwnerStatusInputSchema>; actor: ConsoleActor },
): Promise<{ id: string; revokedGrants: number }> {
  const data = SetOwnerStatusInputSchema.parse(input.change)
  const now = deps.clock()
  const revokedGrants = await deps.sql.transaction(async (tx) => {
    const owner = await requireOwner(tx, data.ownerId)
    if (owner.status === 'disabled') throw new ConsoleError('conflict', 'the owner is already disabled')
    await updateOwnerStatus(tx, owner.id, 'disabled', now)
    await deleteSessionsOf(tx, 'owner', owner.id)
    await deleteUnusedPasswordLinks(tx, 'owner', owner.id)
    const revoked = data.revokeGrants
      ? await revokeGrantsNaming(tx, await findWalletAddressesOf(tx, owner.id), input.actor, `owner ${owner.email} disabled`, now)
      : 0
    await audit(tx, input.actor, 'owner.disable', owner.id, data.revokeGrants ? grantsWord(revoked) : 'grants kept', now)
    return revoked
  })
  return { id: data.ownerId, revokedGrants }
}

/** @throws ConsoleError not_found; conflict when not disabled */
export async function enableOwner(deps: Deps, input: { change: z.input<typeof OwnerIdInputSchema>; actor: ConsoleActor }): Promise<{ id: string }> {
  const data = OwnerIdInputSchema.parse(input.change)
  const now = deps.clock()
  await deps.sql.transaction(async (tx) => {
    const owner = await requireOwner(tx, data.ownerId)
    if (owner.status !== 'disabled') throw new ConsoleError('conflict', 'the owner is not disabled')
    await updateOwnerStatus(tx, owner.id, 'active', now)
    // A link from before the disable must not come back to life with the account (docs/security.md, "Password links").
    await deleteUnusedPasswordLinks(tx, 'owner', owner.id)
    await audit(tx, input.actor, 'owner.enable', owner.id, owner.email, now)
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
  input: { change: z.input<typeof OwnerIdInputSchema>; actor: ConsoleActor },
): Promise<{ id: string; revokedGrants: number }> {
  const data = OwnerIdInputSchema.parse(input.change)
  const now = deps.clock()
  const revokedGrants = await deps.sql.transaction(async (tx) => {
    const owner = await requireOwner(tx, data.ownerId)
    const addresses = await findWalletAddressesOf(tx, owner.id)
    const revoked = await revokeGrantsNaming(tx, addresses, input.actor, `owner ${owner.email} deleted`, now)
    await deleteSessionsOf(tx, 'owner', owner.id)
    await deletePasswordLinksOf(tx, 'owner', owner.id)
    await deleteOwnerRow(tx, owner.id)
    await audit(tx, input.actor, 'owner.delete', owner.id, `${owner.email} (${addresses.join(', ')}); ${grantsWord(revoked)}`, now)
    return revoked
  })
  return { id: data.ownerId, revokedGrants }
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
  input: { change: z.input<typeof IssueOwnerLinkInputSchema>; actor: ConsoleActor },
): Promise<{ url: string; expiresAt: Date }> {
  const data = IssueOwnerLinkInputSchema.parse(input.change)
  const now = deps.clock()
  return deps.sql.transaction(async (tx) => {
    const owner = await requireOwner(tx, data.ownerId)
    if (owner.status === 'disabled') throw new ConsoleError('conflict', 'the owner is disabled: enable them first')
    const link = await issueOwnerLink(tx, {
      ownerId: owner.id,
      kind: data.kind,
      now,
      ttlSeconds: OWNER_LINK_TTL_SECONDS,
      baseUrl: deps.config.authServerUrl,
    })
    await audit(tx, input.actor, 'owner.link', owner.id, `${data.kind} link, valid until ${link.expiresAt.toISOString()}`, now)
    return link
  })
}
