import type { AccessItem } from '../access/access.wire'
import type { NewEvent } from './outbox.repo'
import { eventClient, grantPart, type EventActor } from './webhook-events'

// The events of the grant, token and client lifecycle (docs/webhooks.md), built from what a use case has at hand.
// Pure: each use case records them with recordEvent(s) in the transaction of its change, so the change and its
// event commit or roll back together. Only management ids, never a token value, a continuation token or an
// interact_ref: the strict schemas of webhook-events.ts refuse any other member.

/** A grant as its event names it: its id and its client as stored (a wallet address or a thumbprint URI). */
export interface EventGrant {
  id: string
  client: string
}

/** The client instance itself, by its own signed request. */
export const CLIENT_ACTOR: EventActor = { type: 'client' }

/** The server's own timekeeping: an interaction that ran out. */
export const RETENTION_ACTOR: EventActor = { type: 'retention' }

/** The resource owner; without an id when an external identity provider took the decision. */
export const ownerActor = (ownerId: string | null): EventActor => (ownerId ? { type: 'owner', id: ownerId } : { type: 'owner' })

/** grant.approved or grant.rejected: the finish moved the grant from pending (protocol/interaction/finish-interaction.ts). */
export function grantDecidedEvent(grant: EventGrant, access: readonly AccessItem[], approved: boolean, ownerId: string | null): NewEvent {
  return {
    type: approved ? 'grant.approved' : 'grant.rejected',
    grantId: grant.id,
    data: { grant: grantPart(grant, access), actor: ownerActor(ownerId) },
  }
}

/**
 * grant.issued (with the management id of the first token, when the grant has access), then subject.confirmed when
 * the owner confirmed subject identifiers: both written with the move to finalized/issued.
 */
export function grantIssuedEvents(
  grant: EventGrant,
  access: readonly AccessItem[],
  issued: { managementId: string | null; subIds?: readonly string[]; ownerId?: string | null },
): NewEvent[] {
  const part = grantPart(grant, access)
  const events: NewEvent[] = [
    {
      type: 'grant.issued',
      grantId: grant.id,
      data: { grant: part, ...(issued.managementId ? { access_token: { manage_id: issued.managementId } } : {}), actor: CLIENT_ACTOR },
    },
  ]
  const subIds = issued.subIds ?? []
  if (subIds.length > 0) {
    events.push({
      type: 'subject.confirmed',
      grantId: grant.id,
      // Subject identifiers are stored in format "uri" (grant-subject.repo.ts); the owner is who confirmed them.
      data: { grant: part, sub_ids: subIds.map((id) => ({ id, format: 'uri' })), actor: ownerActor(issued.ownerId ?? null) },
    })
  }
  return events
}

/** grant.revoked: any revocation, with the number of live tokens revoked with the grant. */
export function grantRevokedEvent(grant: EventGrant, access: readonly AccessItem[], revokedTokens: number, actor: EventActor): NewEvent {
  return { type: 'grant.revoked', grantId: grant.id, data: { grant: grantPart(grant, access), revoked_tokens: revokedTokens, actor } }
}

/** grant.expired: a pending grant whose interaction ran out, finalized by its first touch or the sweep. */
export function grantExpiredEvent(grant: EventGrant, access: readonly AccessItem[]): NewEvent {
  return { type: 'grant.expired', grantId: grant.id, data: { grant: grantPart(grant, access), actor: RETENTION_ACTOR } }
}

/** access_token.rotated: the client replaced `previousManagementId` by `managementId`. */
export function tokenRotatedEvent(
  grant: EventGrant,
  access: readonly AccessItem[],
  tokens: { managementId: string; previousManagementId: string },
): NewEvent {
  return {
    type: 'access_token.rotated',
    grantId: grant.id,
    data: {
      grant: grantPart(grant, access),
      access_token: { manage_id: tokens.managementId },
      previous_access_token: { manage_id: tokens.previousManagementId },
      actor: CLIENT_ACTOR,
    },
  }
}

/** access_token.revoked: one token revoked on its own (a token revoked with its grant is told by grant.revoked). */
export function tokenRevokedEvent(grant: EventGrant, access: readonly AccessItem[], managementId: string, actor: EventActor): NewEvent {
  return {
    type: 'access_token.revoked',
    grantId: grant.id,
    data: { grant: grantPart(grant, access), access_token: { manage_id: managementId }, actor },
  }
}

/** The order key of a client's own events: its blocks and unblocks go out in order. */
const clientOrderKey = (client: string) => `client:${client}`

/** client.blocked, with the number of grants the block revoked (each has its own grant.revoked). */
export function clientBlockedEvent(client: string, revokedGrants: number, actor: EventActor): NewEvent {
  return {
    type: 'client.blocked',
    orderKey: clientOrderKey(client),
    data: { client: eventClient(client), revoked_grants: revokedGrants, actor },
  }
}

export function clientUnblockedEvent(client: string, actor: EventActor): NewEvent {
  return { type: 'client.unblocked', orderKey: clientOrderKey(client), data: { client: eventClient(client), actor } }
}
