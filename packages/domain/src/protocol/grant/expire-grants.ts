import type { Deps } from '../deps'
import type { SqlRunner } from '../../kernel/db/sql'
import { findAccessItems } from '../access/access.repo'
import { recordEvent, type EventTenancy } from '../events/outbox.repo'
import { grantExpiredEvent } from '../events/grant-events'
import { expireOverdueGrant, findOverdueGrantIds } from './grant.repo'

// Grants whose interaction expired before they were approved (docs/protocol.md §3): finalized as expired by the first
// request that touches one (continue, poll, cancel, the interaction pages, the identity-provider API, a console read)
// or by the retention job, whichever comes first. Every move is expireOverdueGrant's conditional update, one grant at
// a time, so it never decides a race other than "pending or not" and never holds more than one row's lock.

/** Grants finalized per batch of the sweep. */
const SWEEP_BATCH = 200

/**
 * Finalizes one grant as expired if it is still pending and its interaction ran out (expireOverdueGrant), and
 * records its grant.expired event, inside the caller's transaction: the move and its event commit together. False
 * when the grant is not, or no longer, such a grant (a concurrent finish or touch moved it first): nothing written.
 */
export async function expireGrantInTransaction(tx: SqlRunner, grantId: string, now: Date, tenancy?: EventTenancy): Promise<boolean> {
  const grant = await expireOverdueGrant(tx, grantId, now)
  if (!grant) return false
  await recordEvent(tx, grantExpiredEvent(grant, await findAccessItems(tx, grantId)), now, tenancy)
  return true
}

/** expireGrantInTransaction in a transaction of its own: for a touch that is not otherwise in one. */
export function expireOverdueGrantNow(deps: Pick<Deps, 'sql'> & Partial<Pick<Deps, 'config'>>, grantId: string, now: Date): Promise<boolean> {
  return deps.sql.transaction((tx) => expireGrantInTransaction(tx, grantId, now, deps.config))
}

/**
 * Finalizes every grant still pending whose interaction expired before now; the number finalized. Each grant is its
 * own transaction (the move and its event; none spans two grants), so a sweep cannot deadlock with a request or
 * another sweep that locks several grants.
 */
export async function expireOverdueGrants(
  deps: Pick<Deps, 'sql' | 'clock' | 'log'> & Partial<Pick<Deps, 'metrics' | 'config'>>,
  opts: { batchSize?: number } = {},
): Promise<number> {
  const batchSize = opts.batchSize ?? SWEEP_BATCH
  const now = deps.clock()
  let total = 0
  for (;;) {
    const ids = await findOverdueGrantIds(deps.sql, now, batchSize)
    let moved = 0
    for (const id of ids) if (await expireOverdueGrantNow(deps, id, now)) moved += 1
    total += moved
    // A batch that moved nothing would be read again as it is: stop, and leave the rest to the next touch or run.
    if (ids.length < batchSize || moved === 0) break
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
  if (total > 0) {
    deps.log.info({ grants: total }, 'grants finalized: interaction expired')
    deps.metrics?.grant('expired', total)
  }
  return total
}
