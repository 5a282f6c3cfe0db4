import type { Deps } from '../../protocol/deps'
import type { GrantStatusName } from '../../protocol/grant/grant-state'
import { GRANT_STATUS_NAMES } from '../../protocol/grant/grant-state'
import type { AccessItem } from '../../protocol/access/access.wire'
import { listGrants, ListGrantsInputSchema, type ListGrantsInput } from '../admin/list-grants'
import { getGrantDetail, type GrantDetail } from '../admin/get-grant-detail'
import { adminRevokeGrant } from '../admin/admin-revoke-grant'
import type { GrantRow } from '../admin/admin-views'
import { ConsoleError } from '../admin/console-error'
import { encodeCursor } from '../admin/page-cursor'
import type { ConsoleActor } from '../admin/roles'
import type { AdminApiCaller } from './admin-api-signature'

// The Admin API's grant operations (docs/admin-api.md) in Rafiki's terms, over the console's own use cases: listGrants,
// getGrantDetail and adminRevokeGrant, called with the signing tenant as the actor. The tenant boundary is theirs
// (docs/protocol.md §2.21): the operator tenant's actor is bound to no tenant, any other tenant's to itself, so another
// tenant's grant is unknown here as it is in the console. Nothing here reads the database by itself.

/** Rafiki's grant states and finalization reasons, as the Admin API names them. */
export type ApiGrantState = 'PROCESSING' | 'PENDING' | 'APPROVED' | 'FINALIZED'
export type ApiGrantFinalization = 'ISSUED' | 'REVOKED' | 'REJECTED'

/** The filter and paging arguments of `grants`, as the schema types them. */
export interface GrantsArgs {
  after?: string | null
  before?: string | null
  first?: number | null
  last?: number | null
  filter?: {
    identifier?: { in?: readonly string[] | null } | null
    state?: { in?: readonly ApiGrantState[] | null; notIn?: readonly ApiGrantState[] | null } | null
    finalizationReason?: { in?: readonly ApiGrantFinalization[] | null; notIn?: readonly ApiGrantFinalization[] | null } | null
  } | null
  sortOrder?: 'ASC' | 'DESC' | null
  tenantId?: string | null
}

export interface ApiAccess {
  id: string
  identifier: string | null
  type: string
  actions: string[]
  limits: Extract<AccessItem, { type: 'outgoing-payment' }>['limits'] | null
  createdAt: string
}

export interface ApiGrant {
  id: string
  client: string | null
  state: ApiGrantState
  finalizationReason: ApiGrantFinalization | null
  createdAt: string
  tenantId: string
  /** Read only when the query asks for `access` or `subject`: the console's detail of the grant, memoised per request. */
  detail: () => Promise<GrantDetail>
}

export interface ApiGrantsPage {
  edges: { cursor: string; node: ApiGrant }[]
  pageInfo: { startCursor: string | null; endCursor: string | null; hasNextPage: boolean; hasPreviousPage: boolean }
}

/** A refusal the GraphQL layer answers as an error with this `extensions.code` (Rafiki's codes). */
export class AdminApiError extends Error {
  constructor(
    readonly code: 'BAD_USER_INPUT' | 'NOT_FOUND',
    message: string,
  ) {
    super(message)
  }
}

/** Rafiki's page size without `first` or `last`, and its largest. */
const DEFAULT_PAGE = 20
const MAX_PAGE = 100

/** The signing tenant as the console's actor: named by its tenant in the audit log, never by its secret. */
export const adminApiActor = (caller: AdminApiCaller): ConsoleActor => ({
  kind: 'adminApi',
  id: caller.tenantId,
  label: `admin API (tenant ${caller.tenantId})`,
  role: 'operator',
  tenantId: caller.isOperator ? null : caller.tenantId,
})

/** Each of our states in Rafiki's: an interaction that ran out is a rejected request there (Rafiki has no `expired`). */
const API_STATUS: Record<GrantStatusName, { state: ApiGrantState; reason: ApiGrantFinalization | null }> = {
  pending: { state: 'PENDING', reason: null },
  approved: { state: 'APPROVED', reason: null },
  issued: { state: 'FINALIZED', reason: 'ISSUED' },
  revoked: { state: 'FINALIZED', reason: 'REVOKED' },
  rejected: { state: 'FINALIZED', reason: 'REJECTED' },
  expired: { state: 'FINALIZED', reason: 'REJECTED' },
}

/**
 * The states the state and reason filters keep, as Rafiki applies them (`in`: one of these; `notIn`: none of these,
 * and a grant without a reason passes any reason's `notIn`); undefined when they keep every state.
 */
export function statusesOfFilter(filter: GrantsArgs['filter']): GrantStatusName[] | undefined {
  const state = filter?.state
  const reason = filter?.finalizationReason
  const keep = GRANT_STATUS_NAMES.filter((name) => {
    const { state: s, reason: r } = API_STATUS[name]
    if (state?.in?.length && !state.in.includes(s)) return false
    if (state?.notIn?.length && state.notIn.includes(s)) return false
    if (reason?.in?.length && (r === null || !reason.in.includes(r))) return false
    if (reason?.notIn?.length && r !== null && reason.notIn.includes(r)) return false
    return true
  })
  return keep.length === GRANT_STATUS_NAMES.length ? undefined : keep
}

/** A grant's detail as `actor` may see it; null for an unknown grant (another tenant's included). */
async function visibleDetail(deps: Deps, id: string, actor: ConsoleActor): Promise<GrantDetail | null> {
  try {
    return await getGrantDetail(deps, id, actor)
  } catch (e) {
    if (e instanceof ConsoleError && e.code === 'not_found') return null
    throw e
  }
}

const apiState = (status: GrantStatusName) => API_STATUS[status]

function toApiGrant(deps: Deps, g: GrantRow | GrantDetail, detail: () => Promise<GrantDetail>): ApiGrant {
  const { state, reason } = apiState(g.status)
  return {
    id: g.id,
    // A directed identity (a bare key) has no wallet address: null, as Rafiki answers for a JWK client.
    client: g.client.thumbprint === null ? g.client.walletAddress : null,
    state,
    finalizationReason: reason,
    createdAt: g.createdAt.toISOString(),
    tenantId: g.tenantId ?? deps.config.operatorTenant?.id ?? '',
    detail,
  }
}

/** The access items of a grant's detail, in request order; their ids are the grant's id and the item's position. */
export function apiAccessOf(detail: GrantDetail): ApiAccess[] {
  return detail.accessItems.map(({ item }, i) => ({
    id: `${detail.id}:access:${i}`,
    identifier: 'identifier' in item ? (item.identifier ?? null) : null,
    type: item.type,
    actions: [...item.actions],
    limits: 'limits' in item ? (item.limits ?? null) : null,
    createdAt: detail.createdAt.toISOString(),
  }))
}

/** The subject identifiers of a grant's detail (wallet addresses, `uri` format). */
export function apiSubjectOf(detail: GrantDetail): { sub_ids: { id: string; subId: string; subIdFormat: string; createdAt: string }[] } {
  return {
    sub_ids: detail.subjects.map((subId, i) => ({
      id: `${detail.id}:subject:${i}`,
      subId,
      subIdFormat: 'uri',
      createdAt: detail.createdAt.toISOString(),
    })),
  }
}

/** `grant(id)`: the grant, or NOT_FOUND for an unknown one (another tenant's included). */
export async function apiGrant(deps: Deps, caller: AdminApiCaller, id: string): Promise<ApiGrant> {
  const actor = adminApiActor(caller)
  const detail = await visibleDetail(deps, id, actor)
  if (!detail) throw new AdminApiError('NOT_FOUND', 'No grant')
  return toApiGrant(deps, detail, () => Promise.resolve(detail))
}

/**
 * `revokeGrant(input: { grantId })`: revoked through the console's use case (audited, its event sent, the actor the
 * signing tenant). A grant revoked already answers as revoked again, as in Rafiki; an unknown one (another tenant's
 * included) NOT_FOUND; one whose request was rejected or ran out has nothing to revoke (BAD_USER_INPUT).
 */
export async function apiRevokeGrant(deps: Deps, caller: AdminApiCaller, grantId: string): Promise<{ id: string }> {
  if (grantId === '') throw new AdminApiError('BAD_USER_INPUT', 'Grant id is not provided')
  const actor = adminApiActor(caller)
  try {
    await adminRevokeGrant(deps, { grantId, actor })
  } catch (e) {
    if (!(e instanceof ConsoleError)) throw e
    if (e.code === 'not_found') throw new AdminApiError('NOT_FOUND', 'Revoke grant was not successful')
    if (e.code !== 'conflict') throw e
    if ((await visibleDetail(deps, grantId, actor))?.status !== 'revoked') throw new AdminApiError('BAD_USER_INPUT', e.message)
  }
  return { id: grantId }
}

/** Paging arguments checked as Rafiki checks them: at most 100 a page, and `last` only with `before`. */
function pageSize(args: GrantsArgs): { backward: boolean; size: number; from: string | null } {
  const first = args.first ?? 0
  const last = args.last ?? 0
  if (first < 0 || first > MAX_PAGE || last < 0 || last > MAX_PAGE) throw new AdminApiError('BAD_USER_INPUT', 'Pagination index error')
  if (typeof args.after === 'string') return { backward: false, size: first || DEFAULT_PAGE, from: args.after }
  if (typeof args.before === 'string') return { backward: true, size: last || DEFAULT_PAGE, from: args.before }
  if (args.last != null) throw new AdminApiError('BAD_USER_INPUT', "Can't paginate backwards from the start.")
  return { backward: false, size: first || DEFAULT_PAGE, from: null }
}

/**
 * `grants(...)`: a page of grants in creation order (newest first unless `sortOrder: ASC`), filtered, with Rafiki's
 * cursors (a grant id) and page info. The operator tenant may narrow to one tenant with `tenantId`; another tenant's
 * `tenantId` is ignored, as in Rafiki: it sees its own grants only. A cursor naming a grant the caller cannot see
 * gives an empty page, as an unknown one does.
 */
export async function apiGrants(deps: Deps, caller: AdminApiCaller, args: GrantsArgs): Promise<ApiGrantsPage> {
  const actor = adminApiActor(caller)
  const { backward, size, from } = pageSize(args)
  const direction = args.sortOrder === 'ASC' ? 'asc' : 'desc'
  const reverse = direction === 'asc' ? 'desc' : 'asc'
  const statuses = statusesOfFilter(args.filter)
  const identifiers = args.filter?.identifier?.in
  const empty: ApiGrantsPage = { edges: [], pageInfo: { startCursor: null, endCursor: null, hasNextPage: false, hasPreviousPage: false } }
  if (statuses?.length === 0) return empty
  if (identifiers && identifiers.length > MAX_PAGE) throw new AdminApiError('BAD_USER_INPUT', `at most ${MAX_PAGE} identifiers`)
  const filters: NonNullable<ListGrantsInput['filters']> = {
    ...(identifiers?.length ? { walletAddresses: [...identifiers] } : {}),
    ...(statuses ? { statuses } : {}),
    // The tenant filter of listGrants (docs/protocol.md §2.21): the operator tenant's alone.
    ...(caller.isOperator && args.tenantId ? { tenantId: args.tenantId.toLowerCase() } : {}),
  }

  /** Up to `take` rows after `position` in `dir`, and whether more follow. */
  const page = async (dir: 'asc' | 'desc', position: { value: Date; id: string } | null, take: number) => {
    const cursor = position ? encodeCursor(`createdAt:${dir}`, position) : null
    const input = ListGrantsInputSchema.parse({ cursor, limit: take, sort: { field: 'createdAt', direction: dir }, filters })
    return listGrants(deps, { ...input, actor })
  }

  let rows: GrantRow[]
  let more: boolean
  if (from === null) {
    const result = await page(direction, null, size)
    rows = result.items
    more = result.nextCursor !== null
  } else {
    const start = await visibleDetail(deps, from, actor)
    if (!start) return empty
    const result = await page(backward ? reverse : direction, { value: start.createdAt, id: start.id }, size)
    rows = backward ? [...result.items].reverse() : result.items
    more = result.nextCursor !== null
  }
  const first = rows[0]
  const last = rows[rows.length - 1]
  if (!first || !last) return empty
  // Whether a row lies beyond each end: one side is known from the page itself, the other takes one more row.
  const beyond = async (dir: 'asc' | 'desc', row: GrantRow) => (await page(dir, { value: row.createdAt, id: row.id }, 1)).items.length === 1
  const hasNextPage = backward ? await beyond(direction, last) : more
  const hasPreviousPage = backward ? more : await beyond(reverse, first)

  const details = new Map<string, Promise<GrantDetail>>()
  const detail = (id: string) => () => {
    let d = details.get(id)
    if (!d) details.set(id, (d = getGrantDetail(deps, id, actor)))
    return d
  }
  return {
    edges: rows.map((row) => ({ cursor: row.id, node: toApiGrant(deps, row, detail(row.id)) })),
    pageInfo: { startCursor: first.id, endCursor: last.id, hasNextPage, hasPreviousPage },
  }
}
