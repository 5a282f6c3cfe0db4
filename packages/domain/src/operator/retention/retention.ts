import type { Deps } from '../../protocol/deps'
import { MAX_RATE_LIMIT_WINDOW_SECONDS } from '../../kernel/rate-limit/rate-limit'
import { deleteTokens, findDeadTokenIds } from '../../protocol/access-token/access-token.repo'
import { deleteExpiredSignatureNonces } from '../../protocol/client/signature-nonce.repo'
import { deleteRateLimitsBefore } from '../../kernel/rate-limit/rate-limit.repo'
import { deleteExpiredSessions } from '../../kernel/session/session.repo'
import { expireOverdueGrants } from '../../protocol/grant/expire-grants'
import { deleteOldWebhookRows } from '../../protocol/events/outbox.repo'

/** Rows deleted per transaction: short write transactions, so requests never wait long for SQLite's one writer. */
const RETENTION_BATCH_SIZE = 500

interface RetentionResult {
  /** Pending grants finalized as expired (their interaction expired), not deleted. */
  expiredGrants: number
  accessTokens: number
  signatureNonces: number
  rateLimits: number
  sessions: number
  /** Webhook events whose deliveries all succeeded, older than WEBHOOK_RETENTION_DAYS, with their deliveries. */
  webhookEvents: number
  /** Failed webhook deliveries whose last attempt is older than WEBHOOK_FAILED_RETENTION_DAYS. */
  webhookFailedDeliveries: number
}

const DAY_MS = 86_400_000

/**
 * First finalizes, as expired, every grant still pending whose interaction expired (docs/protocol.md §3), unless a
 * request touched it first. Then deletes what no check needs any more (docs/protocol.md §7 token retention), in
 * batches of `batchSize` rows per transaction, yielding between batches:
 * - access tokens dead (expired, rotated or revoked) for longer than ACCESS_TOKEN_DELETION_DAYS;
 * - signature nonces past their expiry (the signature window has closed, a replay fails on `created`);
 * - rate-limit counters of windows that ended (older than the longest supported window);
 * - owners' and administrators' sessions past their expiry (a session is refused once expired; its row only lingered);
 * - webhook events older than WEBHOOK_RETENTION_DAYS whose deliveries all succeeded (or that had none), with their
 *   deliveries, and failed deliveries not replayed within WEBHOOK_FAILED_RETENTION_DAYS of their last attempt
 *   (docs/webhooks.md). A pending delivery and its event are never deleted.
 * Grants, their access items and interactions are never deleted.
 *
 * Rotation chains: a successor's `previousId` names the token it replaced. A dead predecessor is deleted anyway
 * and the successor's link is set to null in the same transaction. Keeping every predecessor of a live token
 * instead would keep whole chains forever: Open Payments clients rotate on every expiry, so a client that stays
 * active has an ever-growing chain that would never be collected. The link has no other reader: the race of two
 * rotations is decided by the conditional update and the unique `previousId` while both rows are fresh, and a
 * deleted old value is refused like a rotated one (rotate 404 invalid_rotation, introspection inactive; revoke
 * answers 401 instead of 204 for an id it no longer knows). A batch is found through the indexes of the columns
 * tokens die by (findDeadTokenIds), never by walking the table, so its cost follows the dead tokens however many are
 * live; a run keeps taking batches until one is short, so every token dead before the cutoff is deleted in the run,
 * and in which batch a predecessor goes beside its successor does not matter (nothing reads the link but the above).
 */
export async function deleteExpiredRecords(deps: Deps, opts: { batchSize?: number } = {}): Promise<RetentionResult> {
  const batchSize = opts.batchSize ?? RETENTION_BATCH_SIZE
  const now = deps.clock()
  const tokenCutoff = new Date(now.getTime() - deps.config.accessTokenDeletionDays * DAY_MS)
  const rateLimitCutoff = new Date(now.getTime() - MAX_RATE_LIMIT_WINDOW_SECONDS * 1000)
  const webhookCutoff = new Date(now.getTime() - deps.config.webhookRetentionDays * DAY_MS)
  const webhookFailedCutoff = new Date(now.getTime() - deps.config.webhookFailedRetentionDays * DAY_MS)
  const result: RetentionResult = {
    expiredGrants: 0,
    accessTokens: 0,
    signatureNonces: 0,
    rateLimits: 0,
    sessions: 0,
    webhookEvents: 0,
    webhookFailedDeliveries: 0,
  }
  result.expiredGrants = await expireOverdueGrants(deps, { batchSize })

  for (;;) {
    const deleted = await deps.sql.transaction(async (tx) => deleteTokens(tx, await findDeadTokenIds(tx, tokenCutoff, batchSize)))
    result.accessTokens += deleted
    if (deleted < batchSize) break
    await yieldToRequests()
  }

  result.signatureNonces = await deleteInBatches(batchSize, () => deleteExpiredSignatureNonces(deps.sql, now, batchSize))
  result.rateLimits = await deleteInBatches(batchSize, () => deleteRateLimitsBefore(deps.sql, rateLimitCutoff, batchSize))
  result.sessions = await deleteInBatches(batchSize, () => deleteExpiredSessions(deps.sql, now, batchSize))

  // An event and its deliveries go together, in one transaction per batch.
  for (;;) {
    const deleted = await deps.sql.transaction((tx) =>
      deleteOldWebhookRows(tx, { cutoff: webhookCutoff, failedCutoff: webhookFailedCutoff, take: batchSize }),
    )
    result.webhookEvents += deleted.events
    result.webhookFailedDeliveries += deleted.deliveries
    if (deleted.events < batchSize && deleted.deliveries < batchSize) break
    await yieldToRequests()
  }

  if (result.accessTokens + result.signatureNonces + result.rateLimits + result.sessions + result.webhookEvents + result.webhookFailedDeliveries > 0)
    deps.log.info({ ...result }, 'retention: deleted expired records')
  return result
}

async function deleteInBatches(batchSize: number, batch: () => Promise<number>): Promise<number> {
  let total = 0
  for (;;) {
    const n = await batch()
    total += n
    if (n < batchSize) return total
    await yieldToRequests()
  }
}

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve))

/** How often the server runs the retention job, and how long after start-up the first run waits. */
const RETENTION_INTERVAL_MS = 60 * 60 * 1000
const RETENTION_FIRST_RUN_MS = 60 * 1000

/**
 * Runs `deleteExpiredRecords` in the background of the server process: first shortly after start-up, then every
 * interval. Timers are unref'd (they never keep the process alive) and runs never overlap; a failed run is logged
 * and retried at the next interval. Returns a function that stops it.
 */
export function startRetentionJob(deps: Deps, opts: { intervalMs?: number; firstRunMs?: number } = {}): () => void {
  let running = false
  const run = () => {
    if (running) return
    running = true
    deleteExpiredRecords(deps)
      .catch((e: unknown) => deps.log.error({ err: e instanceof Error ? { name: e.name, message: e.message } : String(e) }, 'retention: run failed'))
      .finally(() => {
        running = false
      })
  }
  const first = setTimeout(run, opts.firstRunMs ?? RETENTION_FIRST_RUN_MS)
  first.unref()
  const every = setInterval(run, opts.intervalMs ?? RETENTION_INTERVAL_MS)
  every.unref()
  return () => {
    clearTimeout(first)
    clearInterval(every)
  }
}
