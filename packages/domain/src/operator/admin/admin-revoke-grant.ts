import type { Deps } from '../../protocol/deps'
import { revokeGrantInTransaction } from '../../protocol/grant/revoke-grant'
import { ownerActor } from '../../protocol/events/grant-events'
import { consoleEventActor, type EventActor } from '../../protocol/events/webhook-events'
import { insertAuditEntry } from '../audit/audit.repo'
import { ConsoleError } from './console-error'
import type { ConsoleActor } from './roles'

/** Who revokes a grant by hand: an administrator in the console, or the owner on their own account page. */
export type GrantRevoker = { kind: 'console'; actor: ConsoleActor } | { kind: 'owner'; id: string; email: string }

/** How the audit log names a revoker: an administrator by email, an API key by name, an owner as `owner:<email>`. */
export const auditActor = (who: GrantRevoker): string => (who.kind === 'console' ? who.actor.label : `owner:${who.email}`)

/** How a grant.revoked event names a revoker: an administrator or an API key by id, an owner by id. */
export const revokerEventActor = (who: GrantRevoker): EventActor => (who.kind === 'console' ? consoleEventActor(who.actor) : ownerActor(who.id))

/**
 * A person revokes a grant: exactly what DELETE /continue/{id} does (pending or approved → finalized/revoked,
 * finalized/issued → finalized/revoked, every live token revoked; the client's next continue, rotation or
 * introspection fails), with the audit row and the grant.revoked event naming them written in the same transaction. Callers check first that
 * `who` may revoke this grant (an administrator any; an owner only a grant on their own wallet addresses).
 * @throws ConsoleError not_found for an unknown grant, conflict for a grant already revoked or rejected
 */
export async function revokeGrantAs(deps: Deps, input: { grantId: string; who: GrantRevoker }): Promise<{ grantId: string; revokedTokens: number }> {
  const now = deps.clock()
  const result = await deps.sql.transaction(async (tx) => {
    const revocation = await revokeGrantInTransaction(tx, input.grantId, now, revokerEventActor(input.who))
    if (revocation.outcome === 'revoked') {
      await insertAuditEntry(tx, {
        actor: auditActor(input.who),
        action: 'grant.revoke',
        target: `grant:${input.grantId}`,
        detail: `${revocation.revokedTokens} live token${revocation.revokedTokens === 1 ? '' : 's'} revoked`,
        now,
      })
    }
    return revocation
  })
  switch (result.outcome) {
    case 'unknown':
      throw new ConsoleError('not_found', 'unknown grant')
    case 'already-revoked':
      throw new ConsoleError('conflict', 'the grant was already revoked')
    case 'unchanged':
      throw new ConsoleError('conflict', 'the grant was denied or its request expired: there is nothing to revoke')
    case 'revoked':
      deps.metrics.grant('revoked')
      deps.metrics.tokensRevoked(result.revokedTokens)
      deps.log.info(
        {
          grantId: input.grantId,
          by: input.who.kind === 'console' ? input.who.actor.kind : 'owner',
          subjectId: input.who.kind === 'console' ? input.who.actor.id : input.who.id,
        },
        `grant revoked by ${input.who.kind === 'console' ? 'an operator' : 'its owner'}`,
      )
      return { grantId: input.grantId, revokedTokens: result.revokedTokens }
  }
}

/**
 * An administrator revokes a grant (revokeGrantAs).
 * @throws ConsoleError not_found for an unknown grant, conflict for a grant already revoked or rejected
 */
export function adminRevokeGrant(deps: Deps, input: { grantId: string; actor: ConsoleActor }): Promise<{ grantId: string; revokedTokens: number }> {
  return revokeGrantAs(deps, { grantId: input.grantId, who: { kind: 'console', actor: input.actor } })
}
