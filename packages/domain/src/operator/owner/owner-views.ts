import { z } from 'zod'
import type { Deps } from '../../protocol/deps'
import { findAuditEntriesAbout } from '../audit/audit.repo'
import { ConsoleError } from '../admin/console-error'
import { expireOverdueGrants } from '../../protocol/grant/expire-grants'
import { grantStatusName, type GrantStatus, type GrantStatusName } from '../../protocol/grant/grant-state'
import { fixedWindow } from '../../kernel/rate-limit/rate-limit'
import { findRateLimitCount } from '../../kernel/rate-limit/rate-limit.repo'
import { SIGN_IN_LIMITS } from '../sign-in/sign-in-limit'
import { OwnerIdSchema, requireOwner, scopeOfActor, scopeOfTenant } from './manage-owners'
import type { ConsoleActor } from '../admin/roles'
import { shownTenant, TenantIdInputSchema } from '../tenant-choice'
import { findGrantsNamingWalletAddress, findOwnerPage, findWalletAddressesOf, type TenantScope } from './owner.repo'

export const OWNER_PAGE_MAX = 100

export const ListOwnersInputSchema = z.strictObject({
  /** An email, name or wallet address prefix; blank lists every owner, newest first. */
  search: z.string().trim().max(200).optional(),
  cursor: z.string().min(1).max(1024).nullish(),
  limit: z.number().int().min(1).max(OWNER_PAGE_MAX).default(50),
  /** Only this tenant's owners (docs/protocol.md §2.21): the operator tenant's include those created before tenants. */
  tenantId: TenantIdInputSchema.optional(),
})

/** What a caller sends to list owners: the schema's input (the router's `.input()` parses it). */
export type ListOwnersInput = z.input<typeof ListOwnersInputSchema>

export interface OwnerListItem {
  id: string
  email: string
  name: string
  status: 'active' | 'disabled'
  /** The owner's tenant: the operator tenant's id for an owner of no tenant of its own; null for the implicit tenant. */
  tenantId: string | null
  createdAt: Date
  /** The wallet address the search matched, when it searched wallet addresses. */
  matchedWalletAddress: string | null
}

const CursorSchema = z.strictObject({
  b: z.enum(['all', 'email', 'name', 'walletAddress']),
  p: z.string().max(200),
  k: z.string().max(2048),
  i: z.string().max(64),
})

const encode = (c: z.infer<typeof CursorSchema>) => Buffer.from(JSON.stringify(c), 'utf8').toString('base64url')

/** The cursor of the page after the row with this key (createdAt ISO for the unsearched list) and id (benchmarks). */
export const ownerCursor = (search: string, key: string, id: string): string => {
  const { by, prefix } = searchKind(search)
  return encode({ b: by, p: prefix, k: key, i: id })
}

function decode(cursor: string, by: string, prefix: string): { by: z.infer<typeof CursorSchema>['b']; key: string; id: string } {
  let c: z.infer<typeof CursorSchema>
  try {
    c = CursorSchema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')))
  } catch {
    throw new ConsoleError('bad_request', 'invalid cursor: start again from the first page')
  }
  // A name search that found no name went on in emails: its cursors say so.
  if ((c.b !== by && !(by === 'name' && c.b === 'email')) || c.p !== prefix)
    throw new ConsoleError('bad_request', 'the cursor belongs to another search: start again from the first page')
  if (by === 'all' && !z.iso.datetime().safeParse(c.k).success)
    throw new ConsoleError('bad_request', 'invalid cursor: start again from the first page')
  return { by: c.b, key: c.k, id: c.i }
}

/** What a search looks for: a URL searches wallet addresses, an `@` emails, anything else names. */
function searchKind(search: string): { by: 'all' | 'email' | 'name' | 'walletAddress'; prefix: string } {
  if (!search) return { by: 'all', prefix: '' }
  if (/^https?:\/\//i.test(search)) {
    // The scheme and host lower-cased as stored; the path as typed.
    const m = /^(https?:\/\/[^/]*)(.*)$/i.exec(search)
    return { by: 'walletAddress', prefix: m ? `${m[1]!.toLowerCase()}${m[2]}` : search }
  }
  if (search.includes('@')) return { by: 'email', prefix: search.toLowerCase() }
  return { by: 'name', prefix: search.toLowerCase() }
}

/**
 * The console's owners list: newest first, or the owners whose email (a search with `@`), name (any other text,
 * any case; when no name starts with it, emails) or wallet address (a search starting with http:// or https://) starts with the search, in key order.
 * Keyset pages of at most 100 (docs/protocol.md §2.13).
 * The input is ListOwnersInputSchema's output: the router's `.input()` has parsed it.
 * @throws ConsoleError bad_request for a malformed cursor or one of another search
 */
export async function listOwners(
  deps: Deps,
  { search, cursor, limit, tenantId, actor }: z.output<typeof ListOwnersInputSchema> & { actor?: ConsoleActor },
): Promise<{ items: OwnerListItem[]; nextCursor: string | null }> {
  const kind = searchKind(search ?? '')
  const { prefix } = kind
  const decoded = cursor ? decode(cursor, kind.by, prefix) : null
  let by = decoded?.by ?? kind.by
  const after = decoded ? { key: decoded.key, id: decoded.id } : null
  // A key bound to a tenant lists that tenant's owners only; the filter narrows further (docs/protocol.md §2.21).
  const scopes = [actor ? scopeOfActor(deps, actor) : null, scopeOfTenant(deps, tenantId ?? null)].filter((sc): sc is TenantScope => sc !== null)
  let rows = await findOwnerPage(deps.sql, { by, prefix, after, take: limit + 1, scopes })
  // Text without @ that starts no name may start an email (`maria.` of maria.garcia@…).
  if (rows.length === 0 && by === 'name' && !after) {
    by = 'email'
    rows = await findOwnerPage(deps.sql, { by, prefix, after, take: limit + 1, scopes })
  }
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  return {
    items: page.map((r) => ({
      id: r.id,
      email: r.email,
      name: r.name,
      status: r.status === 'disabled' ? 'disabled' : 'active',
      tenantId: shownTenant(deps, r.tenantId),
      createdAt: r.createdAt,
      matchedWalletAddress: by === 'walletAddress' ? r.key : null,
    })),
    nextCursor: rows.length > limit && last ? encode({ b: by, p: prefix, k: last.key, i: last.id }) : null,
  }
}

/** Grants shown per wallet address on an owner's page. */
export const OWNER_GRANTS_SHOWN = 100

export interface OwnerDetail {
  id: string
  email: string
  name: string
  status: 'active' | 'disabled'
  /** As in the list: the operator tenant's id for an owner of no tenant of its own; null for the implicit tenant. */
  tenantId: string | null
  hasPassword: boolean
  createdAt: Date
  updatedAt: Date
  walletAddresses: string[]
  grants: {
    id: string
    status: GrantStatusName
    client: string
    clientName: string | null
    createdAt: Date
    walletAddress: string
    identifier: string
  }[]
  signIn: { lastSignInAt: Date | null; failuresThisWindow: number; windowStart: Date; windowSeconds: number }
  audit: { id: string; actor: string; action: string; detail: string | null; createdAt: Date }[]
}

/**
 * One owner for the console: status, wallet addresses, the grants naming them (at or below, as consent decides),
 * last sign-in and the failed sign-ins counted in the current limit window, and the audit entries about them. A key
 * bound to a tenant reads its tenant's owners only, and of their grants its tenant's only.
 * @throws ConsoleError not_found, for an unknown owner or another tenant's
 */
export async function getOwnerDetail(deps: Deps, id: string, actor: ConsoleActor): Promise<OwnerDetail> {
  // A console read finalizes overdue grants first (docs/protocol.md §3).
  await expireOverdueGrants(deps)
  const owner = await requireOwner(deps, deps.sql, actor, id)
  const walletAddresses = await findWalletAddressesOf(deps.sql, id)
  const grants: OwnerDetail['grants'] = []
  const seen = new Set<string>()
  const scope = scopeOfActor(deps, actor)
  for (const url of walletAddresses) {
    for (const g of await findGrantsNamingWalletAddress(deps.sql, url, OWNER_GRANTS_SHOWN, scope)) {
      if (seen.has(g.id)) continue
      seen.add(g.id)
      grants.push({
        id: g.id,
        status: grantStatusName(g as GrantStatus),
        client: g.client,
        clientName: g.clientName,
        createdAt: g.createdAt,
        walletAddress: url,
        identifier: g.identifier,
      })
    }
  }
  grants.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
  const { windowStart } = fixedWindow(deps.clock(), SIGN_IN_LIMITS.windowSeconds)
  const failuresThisWindow = await findRateLimitCount(deps.sql, `owner-sign-in:account:${owner.email}`, windowStart)
  return {
    id: owner.id,
    email: owner.email,
    name: owner.name,
    status: owner.status === 'disabled' ? 'disabled' : 'active',
    tenantId: shownTenant(deps, owner.tenantId),
    hasPassword: owner.hasPassword,
    createdAt: owner.createdAt,
    updatedAt: owner.updatedAt,
    walletAddresses,
    grants,
    signIn: { lastSignInAt: owner.lastSignInAt, failuresThisWindow, windowStart, windowSeconds: SIGN_IN_LIMITS.windowSeconds },
    audit: await findAuditEntriesAbout(deps.sql, `owner:${owner.id}`, 50),
  }
}
