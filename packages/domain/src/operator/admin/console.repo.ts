import type { Prisma } from '../../kernel/db/generated/client'
import type { ReadModels } from '../../kernel/db/read-models'
import type { AccessType } from '../../protocol/access/access.wire'
import type { FinalizedReason, GrantState } from '../../protocol/grant/grant-state'
import { isId } from '../../kernel/secrets'
import type { CursorPosition } from './page-cursor'

// The console's read models, through the read-only Prisma models (`Deps.reads`). Selections list their columns one by one, so no token value
// hash, continuation-token hash, interact_ref, nonce or session hash is ever read for the console.

type GrantSortField = 'createdAt' | 'updatedAt'
type SortDirection = 'asc' | 'desc'

export interface GrantListFilters {
  state?: GrantState | undefined
  finalizedReason?: FinalizedReason | undefined
  client?: { value: string; match: 'exact' | 'prefix' } | undefined
  accessType?: AccessType | undefined
  /** Grants whose access names this wallet address (an access item's identifier), exactly. */
  walletAddress?: string | undefined
  createdFrom?: Date | undefined
  createdTo?: Date | undefined
  /** Only these grants (the result of a search). */
  ids?: string[] | undefined
  /** Only these tenants' grants (tenant-scope.ts: the caller's bound tenant, the tenant filter). */
  scopes?: Prisma.GrantWhereInput[] | undefined
}

// The highest code point: every string that starts with a prefix sorts below prefix + this (binary collation).
const AFTER_ALL = '\u{10FFFF}'

/**
 * Every filter is one conjunct of a single AND, so no filter can widen another (docs/protocol.md §8.13). The client
 * prefix is a range, not LIKE: Prisma's startsWith neither escapes `%`/`_` nor stays case-sensitive on SQLite, and
 * a range on the indexed column is exact under SQLite's binary collation (PostgreSQL: give the column COLLATE "C").
 */
function grantFilterConjuncts(f: GrantListFilters): Prisma.GrantWhereInput[] {
  const and: Prisma.GrantWhereInput[] = []
  if (f.state !== undefined) and.push({ state: f.state })
  if (f.finalizedReason !== undefined) and.push({ finalizedReason: f.finalizedReason })
  if (f.client !== undefined) {
    and.push(f.client.match === 'exact' ? { client: f.client.value } : { client: { gte: f.client.value, lt: f.client.value + AFTER_ALL } })
  }
  if (f.accessType !== undefined) and.push({ accessItems: { some: { type: f.accessType } } })
  if (f.walletAddress !== undefined) and.push({ accessItems: { some: { identifier: f.walletAddress } } })
  if (f.createdFrom !== undefined) and.push({ createdAt: { gte: f.createdFrom } })
  if (f.createdTo !== undefined) and.push({ createdAt: { lt: f.createdTo } })
  if (f.ids !== undefined) and.push({ id: { in: f.ids } })
  for (const scope of f.scopes ?? []) and.push(scope)
  return and
}

/** The grant columns every console view of a grant shows. */
const GRANT_COLUMNS = {
  id: true,
  continueId: true,
  state: true,
  finalizedReason: true,
  client: true,
  clientName: true,
  createdAt: true,
  updatedAt: true,
  finalizedAt: true,
  tenantId: true,
} as const

/**
 * Rows strictly after `after` in the ordering (field, id). Written as `field <= v AND (field < v OR id < i)` (for
 * descending) rather than a bare OR, so the index on (field, id) bounds the scan instead of filtering from the top.
 */
function keysetConjuncts(field: GrantSortField, direction: SortDirection, after: CursorPosition): Prisma.GrantWhereInput[] {
  if (direction === 'desc') {
    return [{ [field]: { lte: after.value } }, { OR: [{ [field]: { lt: after.value } }, { id: { lt: after.id } }] }]
  }
  return [{ [field]: { gte: after.value } }, { OR: [{ [field]: { gt: after.value } }, { id: { gt: after.id } }] }]
}

/** Which of these clients have a grant in `scope`. */
export async function clientsWithGrantsIn(reads: ReadModels, clients: string[], scope: Prisma.GrantWhereInput): Promise<Set<string>> {
  if (clients.length === 0) return new Set()
  const rows = await reads.grant.groupBy({ by: ['client'], where: { client: { in: clients }, ...scoped(scope) } })
  return new Set(rows.map((r) => r.client))
}

export function findGrantPage(
  reads: ReadModels,
  input: { filters: GrantListFilters; field: GrantSortField; direction: SortDirection; after: CursorPosition | null; take: number },
) {
  const and = grantFilterConjuncts(input.filters)
  if (input.after) and.push(...keysetConjuncts(input.field, input.direction, input.after))
  return reads.grant.findMany({
    where: { AND: and },
    orderBy: [{ [input.field]: input.direction }, { id: input.direction }],
    take: input.take,
    select: { ...GRANT_COLUMNS, accessItems: { select: { type: true }, orderBy: { position: 'asc' } } },
  })
}

/** Ids of the grants a search names: by grant id, continuation id, or the management id of one of its tokens. */
export async function findGrantIdsBySearch(reads: ReadModels, search: string): Promise<string[]> {
  if (!isId(search)) return []
  const [byId, byContinueId, byToken] = await Promise.all([
    reads.grant.findUnique({ where: { id: search }, select: { id: true } }),
    reads.grant.findUnique({ where: { continueId: search }, select: { id: true } }),
    reads.accessToken.findUnique({ where: { managementId: search }, select: { grantId: true } }),
  ])
  return [...new Set([byId?.id, byContinueId?.id, byToken?.grantId].filter((id): id is string => id !== undefined))]
}

/** The token columns the console may see. */
const TOKEN_COLUMNS = {
  id: true,
  managementId: true,
  state: true,
  expiresIn: true,
  expiresAt: true,
  createdAt: true,
  rotatedAt: true,
  revokedAt: true,
  previousId: true,
} as const satisfies Prisma.AccessTokenSelect

/** `id` among the grants `scope` keeps (tenant-scope.ts): the same where for every lookup of one grant. */
const oneGrant = (id: string, scope: Prisma.GrantWhereInput): Prisma.GrantWhereInput => ({ AND: [{ id }, scope] })

export function findGrantForConsole(reads: ReadModels, id: string, scope: Prisma.GrantWhereInput) {
  return reads.grant.findFirst({
    where: oneGrant(id, scope),
    select: {
      ...GRANT_COLUMNS,
      interactStart: true,
      finishMethod: true,
      finishUri: true,
      accessItems: { select: { position: true, type: true, actions: true, identifier: true, limits: true }, orderBy: { position: 'asc' } },
      subjects: { select: { subId: true }, orderBy: { position: 'asc' } },
      interaction: {
        select: { state: true, createdAt: true, expiresAt: true, decidedAt: true, finishedAt: true, refUsedAt: true, ownerId: true },
      },
      accessTokens: { select: TOKEN_COLUMNS, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
    },
  })
}

export function findOwnerSummary(reads: ReadModels, ownerId: string) {
  return reads.owner.findUnique({ where: { id: ownerId }, select: { name: true, email: true } })
}

export function findGrantSummary(reads: ReadModels, id: string, scope: Prisma.GrantWhereInput) {
  return reads.grant.findFirst({
    where: oneGrant(id, scope),
    select: { id: true, state: true, finalizedReason: true, client: true, clientName: true },
  })
}

export function findTokensOfGrant(reads: ReadModels, grantId: string) {
  return reads.accessToken.findMany({ where: { grantId }, select: TOKEN_COLUMNS, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })
}

export function findTokenForConsole(reads: ReadModels, managementId: string) {
  if (!isId(managementId)) return Promise.resolve(null)
  return reads.accessToken.findUnique({
    where: { managementId },
    select: {
      ...TOKEN_COLUMNS,
      grantId: true,
      previous: { select: { managementId: true } },
      next: { select: { managementId: true } },
    },
  })
}

// ---- statistics -------------------------------------------------------------------------------------------

export interface TimeRange {
  from: Date
  to: Date
}

/** Grants created in the range, by state and reason. */
export function countGrantsByState(reads: ReadModels, range: TimeRange, scope: Prisma.GrantWhereInput) {
  return reads.grant.groupBy({
    by: ['state', 'finalizedReason'],
    where: { createdAt: { gte: range.from, lt: range.to }, ...scoped(scope) },
    _count: { _all: true },
  })
}

/** A scope as one more conjunct of a where (nothing for every tenant's, so those counts stay index-only). */
const scoped = (scope: Prisma.GrantWhereInput): Prisma.GrantWhereInput => (Object.keys(scope).length === 0 ? {} : { AND: [scope] })
/** The same for tokens: their grant's scope. */
const tokensScoped = (scope: Prisma.GrantWhereInput): Prisma.AccessTokenWhereInput => (Object.keys(scope).length === 0 ? {} : { grant: scope })

// Counts select the indexed column (COUNT(column) of a non-null column in range): Prisma's plain count selects the
// id, which is not in the index and costs one table lookup per row; this reads the index alone.

export async function countGrantsCreated(reads: ReadModels, range: TimeRange, scope: Prisma.GrantWhereInput): Promise<number> {
  const { createdAt } = await reads.grant.count({
    where: { createdAt: { gte: range.from, lt: range.to }, ...scoped(scope) },
    select: { createdAt: true },
  })
  return createdAt
}

/** Tokens whose `createdAt` (issued), `rotatedAt` or `revokedAt` falls in the range. */
export async function countTokensAt(
  reads: ReadModels,
  field: 'createdAt' | 'rotatedAt' | 'revokedAt',
  range: TimeRange,
  scope: Prisma.GrantWhereInput,
): Promise<number> {
  const where = { [field]: { gte: range.from, lt: range.to }, ...tokensScoped(scope) }
  switch (field) {
    case 'createdAt':
      return (await reads.accessToken.count({ where, select: { createdAt: true } })).createdAt
    case 'rotatedAt':
      return (await reads.accessToken.count({ where, select: { rotatedAt: true } })).rotatedAt
    case 'revokedAt':
      return (await reads.accessToken.count({ where, select: { revokedAt: true } })).revokedAt
  }
}

/** Tokens left to expire: still in state active, expiry in the range. */
export async function countTokensLeftToExpire(reads: ReadModels, range: TimeRange, scope: Prisma.GrantWhereInput): Promise<number> {
  const { expiresAt } = await reads.accessToken.count({
    where: { state: 'active', expiresAt: { gte: range.from, lt: range.to }, ...tokensScoped(scope) },
    select: { expiresAt: true },
  })
  return expiresAt
}

// ---- clients ----------------------------------------------------------------------------------------------

/** Client wallet addresses with their grant count and latest grant, most grants first. */
export function groupClients(reads: ReadModels, input: { prefix: string | null; take: number; scope: Prisma.GrantWhereInput }) {
  return reads.grant.groupBy({
    by: ['client'],
    where: { ...(input.prefix ? { client: { gte: input.prefix, lt: input.prefix + AFTER_ALL } } : {}), ...scoped(input.scope) },
    _count: { _all: true },
    _max: { createdAt: true },
    orderBy: [{ _count: { client: 'desc' } }, { client: 'asc' }],
    take: input.take,
  })
}

/** The name each client gave in its latest grant. */
export async function findLatestClientNames(
  reads: ReadModels,
  clients: string[],
  scope: Prisma.GrantWhereInput,
): Promise<Map<string, string | null>> {
  const names = new Map<string, string | null>()
  await Promise.all(
    clients.map(async (client) => {
      const latest = await reads.grant.findFirst({
        where: { client, ...scoped(scope) },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        select: { clientName: true },
      })
      names.set(client, latest?.clientName ?? null)
    }),
  )
  return names
}

/** Rows shown on one client's page: its newest grants, and its newest tokens. */
export const CLIENT_ROWS_SHOWN = 50

/** One client's newest grants, with their access types. */
export function findGrantsOfClient(reads: ReadModels, client: string, take: number, scope: Prisma.GrantWhereInput) {
  return reads.grant.findMany({
    where: { client, ...scoped(scope) },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take,
    select: { ...GRANT_COLUMNS, accessItems: { select: { type: true }, orderBy: { position: 'asc' } } },
  })
}

/** One client's grants counted by state and reason. */
export function countGrantsOfClient(reads: ReadModels, client: string, scope: Prisma.GrantWhereInput) {
  return reads.grant.groupBy({ by: ['state', 'finalizedReason'], where: { client, ...scoped(scope) }, _count: { _all: true } })
}

/** The newest tokens of one client's grants. */
export function findTokensOfClient(reads: ReadModels, client: string, take: number, scope: Prisma.GrantWhereInput) {
  return reads.accessToken.findMany({
    where: { grant: { client, ...scoped(scope) } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take,
    select: { ...TOKEN_COLUMNS, grantId: true },
  })
}

/** When the client last did something the store records: its latest grant change, and its latest token issued or rotated. */
export async function findLastActivityOfClient(reads: ReadModels, client: string, scope: Prisma.GrantWhereInput): Promise<Date | null> {
  const [grants, tokens] = await Promise.all([
    reads.grant.aggregate({ where: { client, ...scoped(scope) }, _max: { updatedAt: true } }),
    reads.accessToken.aggregate({ where: { grant: { client, ...scoped(scope) } }, _max: { createdAt: true } }),
  ])
  const times = [grants._max.updatedAt, tokens._max.createdAt].filter((d): d is Date => d !== null)
  return times.length ? new Date(Math.max(...times.map((d) => d.getTime()))) : null
}
