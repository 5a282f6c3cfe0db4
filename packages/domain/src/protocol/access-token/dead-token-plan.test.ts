import { describe, expect, it } from 'vitest'
import { useTestDeps } from '../../testing/use-test-deps'
import { issueNonInteractiveGrant } from '../../testing/grant-flows'
import { DEAD_TOKENS_SQL, findDeadTokenIds } from './access-token.repo'

// The retention scan (findDeadTokenIds) reads the dead tokens through the indexes of the columns they died by, and
// never walks the table: at a million live tokens a retention run costs what the dead ones cost (#32).

const t = useTestDeps()

const LIVE = 20_000

/** LIVE live tokens of one grant, expiring one a second from an hour on, then the planner's statistics. */
async function seedLiveTokens(): Promise<void> {
  const g = await issueNonInteractiveGrant(t)
  const [token] = await t.sql.all<{ grantId: string }>(`SELECT "grantId" FROM "AccessToken" WHERE "managementId" = $1`, [g.managementId])
  const from = new Date(t.clock.now.getTime() + 3_600_000)
  if (t.sql.dialect === 'postgresql') {
    await t.sql.run(
      `INSERT INTO "AccessToken" ("id", "grantId", "managementId", "valueHash", "state", "expiresIn", "expiresAt", "createdAt")
       SELECT 'live-' || n, $1, 'm-' || n, 'h-' || n, 'active', 600, $2::timestamp + n * interval '1 second', $3 FROM generate_series(1, ${LIVE}) AS n`,
      [token!.grantId, from, t.clock.now],
    )
    await t.sql.run(`ANALYZE "AccessToken"`)
  } else {
    await t.sql.run(
      `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${LIVE})
       INSERT INTO "AccessToken" ("id", "grantId", "managementId", "valueHash", "state", "expiresIn", "expiresAt", "createdAt")
       SELECT 'live-' || n, $1, 'm-' || n, 'h-' || n, 'active', 600, $2, $3 FROM s`,
      [token!.grantId, from, t.clock.now],
    )
    await t.sql.run(`ANALYZE`)
  }
}

describe('findDeadTokenIds', () => {
  it('reads the dead tokens through indexes, never scanning the AccessToken table', async () => {
    await seedLiveTokens()
    const params = [t.clock.now, 500]
    if (t.sql.dialect === 'sqlite') {
      const plan = (await t.sql.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${DEAD_TOKENS_SQL}`, params)).map((r) => r.detail)
      const reads = plan.filter((d) => /\bAccessToken\b/.test(d))
      expect(reads).toEqual([
        'SEARCH AccessToken USING INDEX AccessToken_expiresAt_state_idx (expiresAt<?)',
        'SEARCH AccessToken USING INDEX AccessToken_rotatedAt_idx (rotatedAt<?)',
        'SEARCH AccessToken USING INDEX AccessToken_revokedAt_idx (revokedAt<?)',
      ])
    } else {
      const plan = (await t.sql.all<{ 'QUERY PLAN': string }>(`EXPLAIN ${DEAD_TOKENS_SQL}`, params)).map((r) => r['QUERY PLAN']).join('\n')
      expect(plan).not.toMatch(/Seq Scan/)
      for (const index of ['AccessToken_expiresAt_state_idx', 'AccessToken_rotatedAt_idx', 'AccessToken_revokedAt_idx']) expect(plan).toContain(index)
    }
  })
})

describe('findDeadTokenIds: which tokens are dead', () => {
  it('finds exactly the tokens expired, rotated or revoked before the cutoff, `take` at a time while there are more', async () => {
    const g = await issueNonInteractiveGrant(t)
    const [token] = await t.sql.all<{ grantId: string }>(`SELECT "grantId" FROM "AccessToken" WHERE "managementId" = $1`, [g.managementId])
    const at = (minutes: number) => new Date(t.clock.now.getTime() + minutes * 60_000)
    // [id, expiresAt, rotatedAt, revokedAt]: the cutoff is at minute 0.
    const tokens: [string, Date, Date | null, Date | null][] = [
      ['expired', at(-5), null, null],
      ['rotated', at(5), at(-3), null],
      ['revoked', at(5), null, at(-1)],
      ['all-three', at(-9), at(-8), at(-7)],
      ['rotated-late', at(5), at(1), null],
      ['revoked-late', at(5), null, at(2)],
      ['live', at(5), null, null],
    ]
    for (const [i, [id, expiresAt, rotatedAt, revokedAt]] of tokens.entries()) {
      await t.sql.run(
        `INSERT INTO "AccessToken" ("id", "grantId", "managementId", "valueHash", "state", "expiresIn", "expiresAt", "createdAt", "rotatedAt", "revokedAt")
         VALUES ($1, $2, $3, $4, 'active', 600, $5, $6, $7, $8)`,
        [id, token!.grantId, `m-${id}`, `h-${id}`, expiresAt, at(-20 + i), rotatedAt, revokedAt],
      )
    }
    const dead = ['expired', 'rotated', 'revoked', 'all-three']
    expect((await findDeadTokenIds(t.sql, t.clock.now, 100)).sort()).toEqual(dead.sort())
    for (const take of [1, 2, 3]) {
      const some = await findDeadTokenIds(t.sql, t.clock.now, take)
      expect(some).toHaveLength(take)
      expect(dead).toEqual(expect.arrayContaining(some))
    }
  })
})
