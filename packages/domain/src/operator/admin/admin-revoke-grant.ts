import type { Deps } from '../../protocol/deps'
import type { SqlRunner } from '../../kernel/db/sql'
import { revokeGrantInTransaction, type GrantRevocation } from '../../protocol/grant/revoke-grant'
import { ownerActor } from '../../protocol/events/grant-events'
import type { EventTenancy } from '../../protocol/events/outbox.repo'
import { consoleEventActor, type EventActor } from '../../protocol/events/webhook-events'
import { insertAuditEntry } from '../audit/audit.repo'
import { ConsoleError } from './console-error'
import type { ConsoleActor } from './roles'
import { grantVisibleTo } from './tenant-scope'
import { findGrantById } from '../../protocol/grant/grant.repo'
import { tenantOfGrant } from '../../protocol/tenant/tenants'

/** Who revokes a grant by hand: an administrator in the console, or the owner on their own account page. */
export type GrantRevoker = { kind: 'console'; actor: ConsoleActor } | { kind: 'owner'; id: string; email: string }

/** How the audit log names a revoker: an administrator by email, an API key by name, an owner as `owner:<email>`. */
export const auditActor = (who: GrantRevoker): string => (who.kind === 'console' ? who.actor.label : `owner:${who.email}`)

/** How a grant.revoked event names a revoker: an administrator or an API key by id, an owner by id. */
export const revokerEventActor = (who: GrantRevoker): EventActor => (who.kind === 'console' ? consoleEventActor(who.actor) : ownerActor(who.id))

/**
 * A person's revocation of one grant inside the caller's transaction: exactly what DELETE /continue/{id} does
 * (pending or approved → finalized/revoked, finalized/issued → finalized/revoked, every live token revoked; the
 * client's next continue, rotation or introspection fails), with the audit row and the grant.revoked event naming
 * `who`. Callers check first that `who` may revoke this grant (an administrator any; an owner only a grant on their
 * own wallet addresses), and call recordRevocations after the commit.
 */
export async function revokeAuditedInTransaction(
  tx: SqlRunner,
  grantId: string,
  who: GrantRevoker,
  now: Date,
  tenancy?: EventTenancy,
): Promise<GrantRevocation> {
  const revocation = await revokeGrantInTransaction(tx, grantId, now, revokerEventActor(who), tenancy)
  if (revocation.outcome === 'revoked') {
    await insertAuditEntry(tx, {
      actor: auditActor(who),
      action: 'grant.revoke',
      target: `grant:${grantId}`,
      detail: `${revocation.revokedTokens} live token${revocation.revokedTokens === 1 ? '' : 's'} revoked`,
      now,
      tenantId: await auditedTenantOfGrant(tx, grantId, tenancy),
    })
  }
  return revocation
}

/**
 * The tenant an audit entry about a grant names (docs/protocol.md §2.21): tenantOfGrant's, with the operator tenant
 * when the settings are given; null for the implicit tenant.
 */
export async function auditedTenantOfGrant(tx: SqlRunner, grantId: string, tenancy?: EventTenancy): Promise<string | null> {
  const grant = await findGrantById(tx, grantId)
  return grant ? tenantOfGrant({ config: { operatorTenant: tenancy?.operatorTenant ?? null } }, grant) : null
}

/** After the commit of revocations by `who`: the metrics and one log line. */
export function recordRevocations(deps: Deps, who: GrantRevoker, revoked: { grantId: string; revokedTokens: number }[]): void {
  if (revoked.length === 0) return
  deps.metrics.grant('revoked', revoked.length)
  deps.metrics.tokensRevoked(revoked.reduce((sum, r) => sum + r.revokedTokens, 0))
  deps.log.info(
    {
      ...(revoked.length === 1 ? { grantId: revoked[0]?.grantId } : { grants: revoked.length }),
      by: who.kind === 'console' ? who.actor.kind : 'owner',
      subjectId: who.kind === 'console' ? who.actor.id : who.id,
    },
    `grant${revoked.length === 1 ? '' : 's'} revoked by ${who.kind === 'console' ? 'an operator' : 'its owner'}`,
  )
}

/**
 * A person revokes a grant in one transaction (revokeAuditedInTransaction).
 * @throws ConsoleError not_found for an unknown grant, conflict for a grant already revoked or rejected
 */
export async function revokeGrantAs(deps: Deps, input: { grantId: string; who: GrantRevoker }): Promise<{ grantId: string; revokedTokens: number }> {
  const result = await deps.sql.transaction((tx) => revokeAuditedInTransaction(tx, input.grantId, input.who, deps.clock(), deps.config))
  switch (result.outcome) {
    case 'unknown':
      throw new ConsoleError('not_found', 'unknown grant')
    case 'already-revoked':
      throw new ConsoleError('conflict', 'the grant was already revoked')
    case 'unchanged':
      throw new ConsoleError('conflict', 'the grant was denied or its request expired: there is nothing to revoke')
    case 'revoked': {
      const revoked = { grantId: input.grantId, revokedTokens: result.revokedTokens }
      recordRevocations(deps, input.who, [revoked])
      return revoked
    }
  }
}

/**
 * An administrator revokes a grant (revokeGrantAs).
 * @throws ConsoleError not_found for an unknown grant (and another tenant's, for a key bound to a tenant), conflict for a grant already revoked or rejected
 */
export async function adminRevokeGrant(
  deps: Deps,
  input: { grantId: string; actor: ConsoleActor },
): Promise<{ grantId: string; revokedTokens: number }> {
  // A grant's tenant never changes, so this check before the transaction cannot race (tenant-scope.ts).
  if (!(await grantVisibleTo(deps, input.actor, input.grantId))) throw new ConsoleError('not_found', 'unknown grant')
  return revokeGrantAs(deps, { grantId: input.grantId, who: { kind: 'console', actor: input.actor } })
}
