import type { AccessType } from '../../protocol/access/access.wire'
import {
  grantStatusName,
  type FinalizedReason,
  type GrantState,
  type GrantStatus,
  type GrantStatusName,
  type InteractionState,
} from '../../protocol/grant/grant-state'
import { isTokenExpired } from '../../protocol/access-token/access-token.repo'
import { thumbprintOfClient } from '../../protocol/client/client-instance'

// What the admin console is shown, built from rows the repository selected field by field: no token value, no
// hash, no continuation token, interact_ref, nonce or session ever gets here. Pure functions, no I/O.

/**
 * A grant's client as the console shows it: its wallet address and the name it gave, if any; for a directed identity
 * (docs/protocol.md §4.5) `walletAddress` is its key's thumbprint URI and `thumbprint` the RFC 7638 thumbprint.
 */
export interface ClientView {
  walletAddress: string
  name: string | null
  /** The key's RFC 7638 thumbprint for a directed identity; null for a wallet address client. */
  thumbprint: string | null
}

/** The console's view of a stored `client` and the name it gave. */
export const toClientView = (client: string, name: string | null): ClientView => ({
  walletAddress: client,
  name,
  thumbprint: thumbprintOfClient(client),
})

export interface GrantRow {
  id: string
  continueId: string
  status: GrantStatusName
  state: GrantState
  finalizedReason: FinalizedReason | null
  client: ClientView
  /**
   * The tenant it belongs to (docs/protocol.md §2.21): the one its endpoint named, else the operator tenant; null
   * without OPERATOR_TENANT_ID for a grant of `POST /` (the implicit tenant, as before tenants).
   */
  tenantId: string | null
  /** The access types of the grant's items, in request order, without repeats. */
  accessTypes: AccessType[]
  createdAt: Date
  updatedAt: Date
  finalizedAt: Date | null
}

interface GrantRowSource {
  id: string
  continueId: string
  state: string
  finalizedReason: string | null
  client: string
  clientName: string | null
  createdAt: Date
  updatedAt: Date
  finalizedAt: Date | null
  accessItems: { type: string }[]
}

/** A grant row as the console lists it; `tenantId` is its effective tenant (tenantOfGrant). */
export function toGrantRow(g: GrantRowSource, tenantId: string | null): GrantRow {
  return {
    tenantId,
    id: g.id,
    continueId: g.continueId,
    status: grantStatusName(g as GrantStatus),
    state: g.state as GrantState,
    finalizedReason: g.finalizedReason as FinalizedReason | null,
    client: toClientView(g.client, g.clientName),
    accessTypes: [...new Set(g.accessItems.map((i) => i.type as AccessType))],
    createdAt: g.createdAt,
    updatedAt: g.updatedAt,
    finalizedAt: g.finalizedAt,
  }
}

/** A token's life as the console tells it: expiry is by time, rotated and revoked are final. */
export const TOKEN_STATUSES = ['active', 'expired', 'rotated', 'revoked'] as const
export type TokenStatus = (typeof TOKEN_STATUSES)[number]

export interface TokenView {
  managementId: string
  status: TokenStatus
  issuedAt: Date
  expiresAt: Date
  expiresInSeconds: number
  /** Whether its expiry has passed (also for a token rotated or revoked later). */
  isExpired: boolean
  rotatedAt: Date | null
  revokedAt: Date | null
  /** The token this one replaced (null for the first one, or when retention deleted its predecessor). */
  replacesManagementId: string | null
  /** The token the rotation request issued in its place. */
  replacedByManagementId: string | null
}

/** Token columns the console may see; the repository selects exactly these. */
export interface TokenSource {
  id: string
  managementId: string
  state: string
  expiresIn: number
  expiresAt: Date
  createdAt: Date
  rotatedAt: Date | null
  revokedAt: Date | null
  previousId: string | null
}

export function tokenStatus(t: { state: string; expiresAt: Date }, now: Date): TokenStatus {
  if (t.state === 'rotated' || t.state === 'revoked') return t.state
  return isTokenExpired(t, now) ? 'expired' : 'active'
}

export function toTokenView(t: TokenSource, links: { replaces: string | null; replacedBy: string | null }, now: Date): TokenView {
  return {
    managementId: t.managementId,
    status: tokenStatus(t, now),
    issuedAt: t.createdAt,
    expiresAt: t.expiresAt,
    expiresInSeconds: t.expiresIn,
    isExpired: isTokenExpired(t, now),
    rotatedAt: t.rotatedAt,
    revokedAt: t.revokedAt,
    replacesManagementId: links.replaces,
    replacedByManagementId: links.replacedBy,
  }
}

/**
 * The tokens of one grant in rotation order: each chain from its first token (no predecessor among them) to its
 * last, following `previousId`; several chains (not made by this server, but possible after retention) one after
 * the other, oldest first.
 */
export function orderChain<T extends { id: string; previousId: string | null; createdAt: Date }>(tokens: T[]): T[] {
  const byId = new Map(tokens.map((t) => [t.id, t]))
  const successor = new Map<string, T>()
  for (const t of tokens) if (t.previousId !== null && byId.has(t.previousId)) successor.set(t.previousId, t)
  const roots = tokens
    .filter((t) => t.previousId === null || !byId.has(t.previousId))
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
  const ordered: T[] = []
  const seen = new Set<string>()
  for (const root of roots) {
    for (let t: T | undefined = root; t && !seen.has(t.id); t = successor.get(t.id)) {
      seen.add(t.id)
      ordered.push(t)
    }
  }
  // A cycle cannot be written (a successor is created after its predecessor), but never drop a row silently.
  for (const t of tokens) if (!seen.has(t.id)) ordered.push(t)
  return ordered
}

/** Token views in chain order, each linked to its neighbours by management id. */
export function toTokenChain(tokens: TokenSource[], now: Date): TokenView[] {
  const ordered = orderChain(tokens)
  const managementIdOf = new Map(tokens.map((t) => [t.id, t.managementId]))
  const nextOf = new Map<string, string>()
  for (const t of tokens) if (t.previousId !== null) nextOf.set(t.previousId, t.managementId)
  return ordered.map((t) =>
    toTokenView(
      t,
      { replaces: t.previousId === null ? null : (managementIdOf.get(t.previousId) ?? null), replacedBy: nextOf.get(t.id) ?? null },
      now,
    ),
  )
}

export interface InteractionView {
  state: InteractionState
  /** In words: what came of the owner's consent. */
  outcome: 'awaiting decision' | 'approved' | 'denied' | 'expired without a decision'
  startModes: string[]
  finishMethod: string | null
  finishUri: string | null
  createdAt: Date
  expiresAt: Date
  decidedAt: Date | null
  /** The owner who decided on the built-in consent screen; null when the identity provider decided. */
  decidedBy: { name: string; email: string } | null
  finishedAt: Date | null
  /** When the client continued with the interact_ref and received its token. */
  refUsedAt: Date | null
}

type HistoryEventKind =
  | 'grant-requested'
  | 'owner-approved'
  | 'owner-denied'
  | 'interaction-finished'
  | 'grant-issued'
  | 'grant-rejected'
  | 'grant-expired'
  | 'grant-revoked'
  | 'token-issued'
  | 'token-rotated'
  | 'token-expired'
  | 'token-revoked'

export interface HistoryEvent {
  at: Date
  kind: HistoryEventKind
  description: string
  /** The token the event is about, for token events. */
  managementId: string | null
}

// Events at the same instant in the order they happen: a token expires, is rotated, and its successor is issued
// in that order (rotation at the moment of expiry is the usual case).
const EVENT_ORDER: Record<HistoryEventKind, number> = {
  'grant-requested': 0,
  'owner-approved': 1,
  'owner-denied': 1,
  'interaction-finished': 2,
  'grant-rejected': 3,
  'grant-expired': 3,
  'grant-issued': 3,
  'token-expired': 4,
  'token-rotated': 5,
  'token-issued': 6,
  'grant-revoked': 7,
  'token-revoked': 8,
}

/** The grant's life in time order (events at the same instant in the order they happen in the code). */
export function buildHistory(input: {
  grant: { createdAt: Date; state: string; finalizedReason: string | null; finalizedAt: Date | null }
  interaction: { state: string; decidedAt: Date | null; finishedAt: Date | null } | null
  tokens: TokenSource[]
  now: Date
}): HistoryEvent[] {
  const { grant, interaction, tokens, now } = input
  const events: HistoryEvent[] = [{ at: grant.createdAt, kind: 'grant-requested', description: 'The client requested the grant', managementId: null }]
  if (interaction?.decidedAt) {
    const approved = interaction.state === 'approved'
    events.push({
      at: interaction.decidedAt,
      kind: approved ? 'owner-approved' : 'owner-denied',
      description: approved ? 'The owner approved the access' : 'The owner denied the access',
      managementId: null,
    })
  }
  if (interaction?.finishedAt) {
    events.push({
      at: interaction.finishedAt,
      kind: 'interaction-finished',
      description: "The owner's browser returned to the client",
      managementId: null,
    })
  }
  if (grant.state === 'finalized' && grant.finalizedAt) {
    const reason = grant.finalizedReason
    const kind =
      reason === 'revoked' ? 'grant-revoked' : reason === 'rejected' ? 'grant-rejected' : reason === 'expired' ? 'grant-expired' : 'grant-issued'
    const description =
      kind === 'grant-revoked'
        ? 'The grant was revoked'
        : kind === 'grant-rejected'
          ? 'The grant was finalized as rejected'
          : kind === 'grant-expired'
            ? 'The grant was finalized as expired: the owner did not answer in time'
            : 'The grant was finalized: its token was issued'
    events.push({ at: grant.finalizedAt, kind, description, managementId: null })
  }
  for (const t of tokens) {
    const m = t.managementId
    events.push({
      at: t.createdAt,
      kind: 'token-issued',
      description: t.previousId === null ? 'An access token was issued' : 'An access token was issued by rotation',
      managementId: m,
    })
    const endedAt = t.rotatedAt ?? t.revokedAt
    if (t.expiresAt.getTime() <= now.getTime() && (endedAt === null || t.expiresAt.getTime() <= endedAt.getTime())) {
      events.push({ at: t.expiresAt, kind: 'token-expired', description: 'The access token expired', managementId: m })
    }
    if (t.rotatedAt) events.push({ at: t.rotatedAt, kind: 'token-rotated', description: 'The access token was rotated', managementId: m })
    if (t.revokedAt) events.push({ at: t.revokedAt, kind: 'token-revoked', description: 'The access token was revoked', managementId: m })
  }
  return events
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.at.getTime() - b.e.at.getTime() || EVENT_ORDER[a.e.kind] - EVENT_ORDER[b.e.kind] || a.i - b.i)
    .map(({ e }) => e)
}

export interface AuditEntry {
  id: string
  actor: string
  action: string
  target: string
  detail: string | null
  /** The tenant the entry is about (docs/protocol.md §2.21); null: no one tenant's, or the operator tenant's. */
  tenantId: string | null
  at: Date
}
