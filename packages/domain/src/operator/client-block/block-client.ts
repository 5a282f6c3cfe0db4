import { z } from 'zod'
import type { Deps } from '../../protocol/deps'
import { insertAuditEntry } from '../audit/audit.repo'
import { ConsoleError } from '../admin/console-error'
import { refuseTenantBound } from '../admin/tenant-scope'
import type { ConsoleActor } from '../admin/roles'
import { revokeGrantsOfClientInTransaction } from '../../protocol/grant/revoke-grant'
import { recordEvent } from '../../protocol/events/outbox.repo'
import { clientBlockedEvent, clientUnblockedEvent } from '../../protocol/events/grant-events'
import { consoleEventActor } from '../../protocol/events/webhook-events'
import { WalletAddressSchema } from '../owner/manage-owners'
import { JWK_THUMBPRINT_URI_PREFIX } from '../../protocol/client/client-instance'
import { deleteClientBlock, insertClientBlock, lockGrantWrites } from '../../protocol/client/client-block.repo'
import { BlockReasonSchema } from './block-client-input'

// An operator blocks and unblocks a client instance in the console (docs/protocol.md §2.16); the refusals are in
// client-block.ts.

/**
 * A client instance as a block names it: its wallet address, or for a directed identity the thumbprint URI of its key
 * (RFC 9278; docs/protocol.md §4.5), as its grants store it.
 */
const BlockedClientSchema = z.union([
  z.string().regex(new RegExp(`^${JWK_THUMBPRINT_URI_PREFIX.replace(/[.]/g, '\\.')}[A-Za-z0-9_-]{43}$`)),
  WalletAddressSchema,
])

export const BlockClientInputSchema = z.strictObject({
  /** The wallet address, or a directed identity's thumbprint URI (the member keeps its name for the API's callers). */
  walletAddress: BlockedClientSchema,
  reason: BlockReasonSchema,
})

export const UnblockClientInputSchema = z.strictObject({ walletAddress: BlockedClientSchema })

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/**
 * Blocks a client and revokes every grant it holds, with their live tokens, in one transaction with the block row, its
 * audit entry and its events (client.blocked, and grant.revoked for each grant): once it commits, every instance
 * refuses the client and introspects its tokens inactive (both read the database). The audit entry and the block
 * name the actor by its label.
 * The input is BlockClientInputSchema's output: the router's `.input()` has parsed it (a malformed wallet address or
 * an empty reason never gets here).
 * @throws ConsoleError conflict when already blocked, forbidden for a key bound to a tenant
 */
export async function blockClient(
  deps: Deps,
  input: z.output<typeof BlockClientInputSchema> & { actor: ConsoleActor },
): Promise<{ walletAddress: string; revokedGrants: number; revokedTokens: number }> {
  // A block refuses the client at every tenant: not for a key bound to one (tenant-scope.ts).
  refuseTenantBound(input.actor, 'block a client')
  const { walletAddress, reason } = input
  const now = deps.clock()
  const revoked = await deps.sql.transaction(async (tx) => {
    // First: a grant request under way commits before this transaction reads the grants, or sees the block.
    await lockGrantWrites(tx, deps.sql.dialect)
    if (!(await insertClientBlock(tx, { client: walletAddress, reason, blockedBy: input.actor.label, createdAt: now }))) {
      throw new ConsoleError('conflict', 'this client is already blocked')
    }
    const actor = consoleEventActor(input.actor)
    const r = await revokeGrantsOfClientInTransaction(tx, walletAddress, now, actor, deps.config)
    await recordEvent(tx, clientBlockedEvent(walletAddress, r.grants, actor), now)
    await insertAuditEntry(tx, {
      actor: input.actor.label,
      action: 'client.block',
      target: `client:${walletAddress}`,
      detail: `${reason} (${plural(r.grants, 'grant')} and ${plural(r.tokens, 'live token')} revoked)`,
      now,
    })
    return r
  })
  deps.log.info(
    { client: walletAddress, grants: revoked.grants, tokens: revoked.tokens, by: input.actor.kind, subjectId: input.actor.id },
    'client blocked',
  )
  deps.metrics.grant('revoked', revoked.grants)
  deps.metrics.tokensRevoked(revoked.tokens)
  return { walletAddress, revokedGrants: revoked.grants, revokedTokens: revoked.tokens }
}

/**
 * Unblocks a client: it may request grants again. The grants revoked when it was blocked stay revoked. The audit
 * entry and the client.unblocked event are written in the same transaction.
 * The input is UnblockClientInputSchema's output, parsed by the router's `.input()`.
 * @throws ConsoleError conflict when it is not blocked, forbidden for a key bound to a tenant
 */
export async function unblockClient(
  deps: Deps,
  input: z.output<typeof UnblockClientInputSchema> & { actor: ConsoleActor },
): Promise<{ walletAddress: string }> {
  refuseTenantBound(input.actor, 'unblock a client')
  const { walletAddress } = input
  const now = deps.clock()
  await deps.sql.transaction(async (tx) => {
    if (!(await deleteClientBlock(tx, walletAddress))) throw new ConsoleError('conflict', 'this client is not blocked')
    await insertAuditEntry(tx, { actor: input.actor.label, action: 'client.unblock', target: `client:${walletAddress}`, detail: null, now })
    await recordEvent(tx, clientUnblockedEvent(walletAddress, consoleEventActor(input.actor)), now)
  })
  deps.log.info({ client: walletAddress, by: input.actor.kind, subjectId: input.actor.id }, 'client unblocked')
  return { walletAddress }
}
