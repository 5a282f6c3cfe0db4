import type { Sql, SqlRunner, SqlValue } from '../../kernel/db/sql'

// Every SQL statement about webhook endpoints and their subscriptions (docs/webhooks.md), and the console's reads of
// the delivery log. The events and the deliveries themselves are written by the outbox (outbox.repo.ts). The signing
// secrets are read here only to be replaced: no read for the console selects them.

export type DeliveryState = 'pending' | 'delivered' | 'failed'

export interface WebhookEndpointRow {
  id: string
  url: string
  description: string
  disabledAt: Date | null
  previousSecretUntil: Date | null
  /** The one tenant whose events it receives; null: every tenant's. */
  tenantId: string | null
  createdBy: string
  createdAt: Date
  updatedAt: Date
}

/** Every column but the two secrets. */
const COLUMNS = `"id", "url", "description", "disabledAt", "previousSecretUntil", "tenantId", "createdBy", "createdAt", "updatedAt"`

export async function insertWebhookEndpoint(
  db: SqlRunner,
  row: { id: string; url: string; description: string; secret: string; createdBy: string; now: Date; tenantId: string | null },
): Promise<void> {
  await db.run(
    `INSERT INTO "WebhookEndpoint" ("id", "url", "description", "secret", "createdBy", "createdAt", "updatedAt", "tenantId") VALUES ($1, $2, $3, $4, $5, $6, $6, $7)`,
    [row.id, row.url, row.description, row.secret, row.createdBy, row.now, row.tenantId],
  )
}

export async function findWebhookEndpoint(db: SqlRunner, id: string): Promise<WebhookEndpointRow | null> {
  const [row] = await db.all<WebhookEndpointRow>(`SELECT ${COLUMNS} FROM "WebhookEndpoint" WHERE "id" = $1`, [id])
  return row ?? null
}

/** Every endpoint, oldest first (at most a few dozen); only those bound to `tenantId` when given. */
export function listWebhookEndpointRows(db: SqlRunner, tenantId: string | null = null): Promise<WebhookEndpointRow[]> {
  return tenantId === null
    ? db.all<WebhookEndpointRow>(`SELECT ${COLUMNS} FROM "WebhookEndpoint" ORDER BY "createdAt" ASC, "id" ASC`)
    : db.all<WebhookEndpointRow>(`SELECT ${COLUMNS} FROM "WebhookEndpoint" WHERE "tenantId" = $1 ORDER BY "createdAt" ASC, "id" ASC`, [tenantId])
}

/**
 * Makes the transaction `tx` the only one adding endpoints until it ends, so its count stays true until it commits
 * (MAX_WEBHOOK_ENDPOINTS). PostgreSQL: a transaction-scoped advisory lock (under READ COMMITTED two transactions would
 * each count 49 and each add one). SQLite runs one write transaction at a time already.
 */
export async function holdEndpointCreation(tx: SqlRunner, dialect: Sql['dialect']): Promise<void> {
  if (dialect === 'postgresql') await tx.all(`SELECT pg_advisory_xact_lock(hashtext('WebhookEndpoint.create'))`)
}

export async function countWebhookEndpoints(db: SqlRunner): Promise<number> {
  const [row] = await db.all<{ n: number | string }>(`SELECT COUNT(*) AS "n" FROM "WebhookEndpoint"`)
  return Number(row?.n ?? 0)
}

/** Changes the URL and the description; false for an unknown endpoint. */
export async function updateWebhookEndpointRow(db: SqlRunner, id: string, change: { url: string; description: string; now: Date }): Promise<boolean> {
  return (
    (await db.run(`UPDATE "WebhookEndpoint" SET "url" = $2, "description" = $3, "updatedAt" = $4 WHERE "id" = $1`, [
      id,
      change.url,
      change.description,
      change.now,
    ])) === 1
  )
}

/**
 * Enables (`disabledAt` null) or disables an endpoint; false when it is unknown or already so. A disabled endpoint
 * gets no new deliveries and its pending ones wait (outbox.repo.ts).
 */
export async function setWebhookEndpointDisabledAt(db: SqlRunner, id: string, disabledAt: Date | null, now: Date): Promise<boolean> {
  const sql =
    disabledAt === null
      ? `UPDATE "WebhookEndpoint" SET "disabledAt" = NULL, "updatedAt" = $2 WHERE "id" = $1 AND "disabledAt" IS NOT NULL`
      : `UPDATE "WebhookEndpoint" SET "disabledAt" = $3, "updatedAt" = $2 WHERE "id" = $1 AND "disabledAt" IS NULL`
  const params: SqlValue[] = disabledAt === null ? [id, now] : [id, now, disabledAt]
  return (await db.run(sql, params)) === 1
}

/**
 * Puts a new secret in place. The one it replaces becomes the previous secret until `previousUntil` (deliveries carry
 * both signatures meanwhile), or is dropped at once when `previousUntil` is null; a previous secret from an earlier
 * rotation is dropped either way. False for an unknown endpoint.
 */
export async function rotateWebhookEndpointSecret(
  db: SqlRunner,
  id: string,
  input: { secret: string; previousUntil: Date | null; now: Date },
): Promise<boolean> {
  const changed =
    input.previousUntil === null
      ? await db.run(
          `UPDATE "WebhookEndpoint" SET "secret" = $2, "previousSecret" = NULL, "previousSecretUntil" = NULL, "updatedAt" = $3 WHERE "id" = $1`,
          [id, input.secret, input.now],
        )
      : await db.run(
          `UPDATE "WebhookEndpoint" SET "previousSecret" = "secret", "secret" = $2, "previousSecretUntil" = $3, "updatedAt" = $4 WHERE "id" = $1`,
          [id, input.secret, input.previousUntil, input.now],
        )
  return changed === 1
}

/**
 * Deletes an endpoint with its subscriptions and deliveries (explicitly, not through the foreign keys' cascade, so
 * it does not depend on SQLite's foreign_keys setting). Events left without deliveries go with retention. False for
 * an unknown endpoint.
 */
export async function deleteWebhookEndpointRow(db: SqlRunner, id: string): Promise<boolean> {
  await db.run(`DELETE FROM "WebhookDelivery" WHERE "endpointId" = $1`, [id])
  await db.run(`DELETE FROM "WebhookSubscription" WHERE "endpointId" = $1`, [id])
  return (await db.run(`DELETE FROM "WebhookEndpoint" WHERE "id" = $1`, [id])) === 1
}

/** Replaces the event types an endpoint receives. */
export async function replaceSubscriptions(db: SqlRunner, endpointId: string, eventTypes: readonly string[]): Promise<void> {
  await db.run(`DELETE FROM "WebhookSubscription" WHERE "endpointId" = $1`, [endpointId])
  for (const eventType of eventTypes) {
    await db.run(`INSERT INTO "WebhookSubscription" ("endpointId", "eventType") VALUES ($1, $2)`, [endpointId, eventType])
  }
}

/** The event types of the given endpoints (all of them when `endpointId` is omitted), by endpoint. */
export async function subscriptionsByEndpoint(db: SqlRunner, endpointId?: string): Promise<Map<string, string[]>> {
  const rows =
    endpointId === undefined
      ? await db.all<{ endpointId: string; eventType: string }>(`SELECT "endpointId", "eventType" FROM "WebhookSubscription"`)
      : await db.all<{ endpointId: string; eventType: string }>(
          `SELECT "endpointId", "eventType" FROM "WebhookSubscription" WHERE "endpointId" = $1`,
          [endpointId],
        )
  const byEndpoint = new Map<string, string[]>()
  for (const r of rows) byEndpoint.set(r.endpointId, [...(byEndpoint.get(r.endpointId) ?? []), r.eventType])
  return byEndpoint
}

export type DeliveryCounts = Record<DeliveryState, number>

/** How many deliveries of each state an endpoint has (of every endpoint when `endpointId` is omitted). */
export async function deliveryCountsByEndpoint(db: SqlRunner, endpointId?: string): Promise<Map<string, DeliveryCounts>> {
  const rows =
    endpointId === undefined
      ? await db.all<{ endpointId: string; state: string; n: number | string }>(
          `SELECT "endpointId", "state", COUNT(*) AS "n" FROM "WebhookDelivery" GROUP BY "endpointId", "state"`,
        )
      : await db.all<{ endpointId: string; state: string; n: number | string }>(
          `SELECT "endpointId", "state", COUNT(*) AS "n" FROM "WebhookDelivery" WHERE "endpointId" = $1 GROUP BY "endpointId", "state"`,
          [endpointId],
        )
  const byEndpoint = new Map<string, DeliveryCounts>()
  for (const r of rows) {
    const counts = byEndpoint.get(r.endpointId) ?? { pending: 0, delivered: 0, failed: 0 }
    if (r.state === 'pending' || r.state === 'delivered' || r.state === 'failed') counts[r.state] = Number(r.n)
    byEndpoint.set(r.endpointId, counts)
  }
  return byEndpoint
}

/** One delivery as the log shows it, with its event's type and grant. */
export interface DeliveryLogRow {
  id: string
  eventId: string
  endpointId: string
  eventType: string
  grantId: string | null
  state: string
  attempts: number
  lastStatus: number | null
  lastError: string | null
  lastAttemptAt: Date | null
  nextAttemptAt: Date
  deliveredAt: Date | null
  createdAt: Date
}

const LOG_COLUMNS = `d."id", d."eventId", d."endpointId", ev."type" AS "eventType", ev."grantId", d."state", d."attempts", d."lastStatus",
  d."lastError", d."lastAttemptAt", d."nextAttemptAt", d."deliveredAt", d."createdAt"`

export async function findDeliveryLogRow(db: SqlRunner, id: string): Promise<DeliveryLogRow | null> {
  const [row] = await db.all<DeliveryLogRow>(
    `SELECT ${LOG_COLUMNS} FROM "WebhookDelivery" d JOIN "WebhookEvent" ev ON ev."id" = d."eventId" WHERE d."id" = $1`,
    [id],
  )
  return row ?? null
}

/**
 * One endpoint's deliveries, newest event first, optionally of one state. Keyset pages: `after` is the last row of
 * the previous page (its event's time and id; one endpoint has one delivery per event), written as
 * `createdAt <= v AND (createdAt < v OR eventId < i)` so the (endpointId, createdAt) index bounds the scan.
 */
export function listDeliveryLogRows(
  db: SqlRunner,
  input: { endpointId: string; state: DeliveryState | null; after: { createdAt: Date; eventId: string } | null; take: number },
): Promise<DeliveryLogRow[]> {
  const params: SqlValue[] = [input.endpointId]
  let where = `d."endpointId" = $1`
  if (input.state !== null) where += ` AND d."state" = $${params.push(input.state)}`
  if (input.after !== null) {
    const v = params.push(input.after.createdAt)
    const i = params.push(input.after.eventId)
    where += ` AND d."createdAt" <= $${v} AND (d."createdAt" < $${v} OR d."eventId" < $${i})`
  }
  return db.all<DeliveryLogRow>(
    `SELECT ${LOG_COLUMNS} FROM "WebhookDelivery" d JOIN "WebhookEvent" ev ON ev."id" = d."eventId"
     WHERE ${where} ORDER BY d."createdAt" DESC, d."eventId" DESC LIMIT $${params.push(input.take)}`,
    params,
  )
}
