import type { Deps } from '../deps'
import { expireOverdueGrant, findOverdueGrantIds } from './grant.repo'

// Grants whose interaction expired before they were approved (docs/protocol.md §3): finalized as expired by the first
// request that touches one (continue, poll, cancel, the interaction pages, the identity-provider API, a console read)
// or by the retention job, whichever comes first. Every move is expireOverdueGrant's conditional update, one grant at
// a time, so it never decides a race other than "pending or not" and never holds more than one row's lock.

/** Grants finalized per batch of the sweep. */
const SWEEP_BATCH = 200

/**
 * Finalizes every grant still pending whose interaction expired before now; the number finalized. Each grant is its
 * own statement (no transaction spans two grants), so a sweep cannot deadlock with a request or another sweep that
 * locks several grants.
 */
export async function expireOverdueGrants(
  deps: Pick<Deps, 'sql' | 'clock' | 'log'> & Partial<Pick<Deps, 'metrics'>>,
  opts: { batchSize?: number } = {},
): Promise<number> {
  const batchSize = opts.batchSize ?? SWEEP_BATCH
  const now = deps.clock()
  let total = 0
  for (;;) {
    const ids = await findOverdueGrantIds(deps.sql, now, batchSize)
    let moved = 0
    for (const id of ids) if (await expireOverdueGrant(deps.sql, id, now)) moved += 1
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
