import { describe, expect, it } from 'vitest'
import { authAs, TEST_CLIENT } from '../../testing/deps'
import { issueNonInteractiveGrant, lastSegment } from '../../testing/grant-flows'
import { useTestDeps } from '../../testing/use-test-deps'
import { addWebhookEndpoint, fakeReceiver, recordGrantRevoked } from '../../testing/webhook-delivery'
import { rotateAccessToken } from '../../protocol/access-token/rotate-access-token'
import type { SqlRunner, SqlValue } from '../../kernel/db/sql'
import { runDeliveryPass, LEASE_MS } from './deliver-webhooks'
import { tokenRotatedEvent } from '../../protocol/events/grant-events'
import { claimDueDeliveries, recordEvent } from '../../protocol/events/outbox.repo'

// The outbox's backlog is bounded (docs/webhooks.md, "Coalescing"; docs/security.md): a client rotating in a loop
// against a receiver that fails keeps a few deliveries pending, not one per rotation, and the claim reads the head of
// each queue only, never the deliveries held behind it.
const t = useTestDeps()

const failing = () => new Response('down', { status: 503 })
const pass = (fetch: typeof globalThis.fetch) => runDeliveryPass(t.deps, { fetch, random: () => 0 })
const pending = () => t.db.webhookDelivery.count({ where: { state: 'pending' } })
const bodyOf = (body: string) => JSON.parse(body) as { type: string; data: { access_token?: { manage_id: string } } }

describe('access_token.rotated against a failing receiver', () => {
  it('keeps at most 100 deliveries pending after 1,000 rotations, and sends the latest rotation once the receiver answers', async () => {
    await addWebhookEndpoint(t, { eventTypes: ['access_token.rotated'] })
    let token = await issueNonInteractiveGrant(t)
    let answer: () => Response = failing
    const receiver = fakeReceiver(() => answer())
    for (let i = 1; i <= 1_000; i++) {
      const { access_token } = await rotateAccessToken(t.deps, { managementId: token.managementId, auth: authAs(token.tokenValue) })
      token = { ...token, managementId: lastSegment(access_token.manage), tokenValue: access_token.value }
      if (i % 100 === 0) {
        t.clock.advance(120)
        await pass(receiver.fetch)
      }
    }
    expect(await pending()).toBeLessThanOrEqual(100)
    expect(await pending()).toBe(2)

    answer = () => new Response('ok')
    t.clock.advance(6 * 3600)
    while ((await pass(receiver.fetch)).claimed > 0);
    expect(await pending()).toBe(0)
    const last = bodyOf(receiver.received.at(-1)!.body)
    expect(last).toMatchObject({ type: 'access_token.rotated', data: { access_token: { manage_id: token.managementId } } })
  })

  it('coalesces only consecutive rotations: an event of another type between them is kept, in order', async () => {
    await addWebhookEndpoint(t, { eventTypes: ['access_token.rotated', 'grant.revoked'] })
    const grant = { id: 'grant-1', client: TEST_CLIENT }
    const rotation = (n: number) =>
      t.sql.transaction((tx) =>
        recordEvent(tx, tokenRotatedEvent(grant, [], { managementId: `token-${n}`, previousManagementId: `token-${n - 1}` }), t.clock.now),
      )
    const receiver = fakeReceiver(failing)
    const first = await rotation(1)
    await pass(receiver.fetch)
    await rotation(2)
    const third = await rotation(3)
    const revoked = await recordGrantRevoked(t, 'grant-1')
    await rotation(4)
    const fifth = await rotation(5)

    const queued = await t.db.webhookDelivery.findMany({ where: { state: 'pending' }, orderBy: [{ createdAt: 'asc' }, { eventId: 'asc' }] })
    expect(queued.map((d) => d.eventId)).toEqual([first, third, revoked, fifth])

    const up = fakeReceiver()
    t.clock.advance(60)
    while ((await pass(up.fetch)).claimed > 0);
    expect(up.received.map((r) => r.eventId)).toEqual([first, third, revoked, fifth])
  })
})

/** The statements a claim runs, in the order it runs them. */
function recording(): { runner: SqlRunner & { dialect: 'sqlite' | 'postgresql' }; statements: { sql: string; params: readonly SqlValue[] }[] } {
  const statements: { sql: string; params: readonly SqlValue[] }[] = []
  const runner = {
    dialect: t.sql.dialect,
    all: <T>(sql: string, params: readonly SqlValue[] = []) => {
      statements.push({ sql, params })
      return t.sql.all<T>(sql, params)
    },
    run: (sql: string, params: readonly SqlValue[] = []) => {
      statements.push({ sql, params })
      return t.sql.run(sql, params)
    },
  }
  return { runner, statements }
}

/** Rows of "WebhookDelivery" a PostgreSQL plan read (kept or filtered out), from EXPLAIN ANALYZE's JSON. */
function rowsRead(node: Record<string, unknown>): number {
  const own =
    node['Relation Name'] === 'WebhookDelivery'
      ? ((node['Actual Rows'] as number) + ((node['Rows Removed by Filter'] as number | undefined) ?? 0)) * (node['Actual Loops'] as number)
      : 0
  const children = (node['Plans'] as Record<string, unknown>[] | undefined) ?? []
  return own + children.reduce((sum, child) => sum + rowsRead(child), 0)
}

describe('the claim', () => {
  it('reads the head of each queue only, never the 20,000 deliveries held behind them', async () => {
    const endpoint = await addWebhookEndpoint(t)
    // 200 grants whose first event is waiting for a retry an hour from now, with 100 events held behind each.
    for (let g = 0; g < 200; g++) {
      await recordGrantRevoked(t, `grant-${g}`)
    }
    await t.sql.run(`UPDATE "WebhookDelivery" SET "attempts" = 1, "nextAttemptAt" = $1`, [new Date(t.clock.now.getTime() + 3_600_000)])
    t.clock.advance(1)
    await t.sql.run(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19999)
       INSERT INTO "WebhookEvent" ("id", "type", "grantId", "payload", "createdAt")
       SELECT 'evt_held_' || CAST(i AS TEXT), 'grant.revoked', 'grant-' || CAST(i % 200 AS TEXT), '{}', $1 FROM n`,
      [t.clock.now],
    )
    await t.sql.run(
      `INSERT INTO "WebhookDelivery" ("id", "eventId", "endpointId", "orderKey", "state", "attempts", "nextAttemptAt", "giveUpAt", "createdAt", "held")
       SELECT 'held-' || e."id", e."id", $1, 'grant:' || e."grantId", 'pending', 0, $2, $3, $2, 1 FROM "WebhookEvent" e WHERE e."id" LIKE 'evt_held_%'`,
      [endpoint.id, t.clock.now, new Date(t.clock.now.getTime() + 86_400_000)],
    )
    expect(await pending()).toBe(20_200)

    const { runner, statements } = recording()
    const now = t.clock.now
    expect(await claimDueDeliveries(runner, { owner: 'w', now, leaseUntil: new Date(now.getTime() + LEASE_MS), take: 16 })).toEqual([])
    expect(statements.length).toBeGreaterThan(0)
    if (t.sql.dialect === 'sqlite') {
      for (const s of statements) {
        const plan = (await t.sql.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${s.sql}`, s.params)).map((r) => r.detail)
        // Every read of the deliveries is an index search that starts at the heads (held = 0), never a scan.
        expect(plan.filter((d) => /WebhookDelivery|\bd\b/.test(d) && /^SCAN/.test(d))).toEqual([])
        expect(plan.some((d) => /^SEARCH .*USING (COVERING )?INDEX WebhookDelivery_state_held_nextAttemptAt.*held=\?/.test(d))).toBe(true)
      }
    } else {
      await t.sql.run(`ANALYZE "WebhookDelivery"`)
      for (const s of statements) {
        const [row] = await t.sql.all<{ 'QUERY PLAN': [{ Plan: Record<string, unknown> }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${s.sql}`, s.params)
        expect(rowsRead(row!['QUERY PLAN'][0].Plan)).toBeLessThan(50)
      }
    }
  })
})
