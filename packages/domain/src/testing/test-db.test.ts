import { describe, expect, it } from 'vitest'
import { createTestDb } from './test-db'

// The PostgreSQL test databases are reused within a file (test-db.ts): a reused one must look fresh to the next test,
// and one whose schema a test changed must not be reused at all.
describe.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL test databases', () => {
  const rateLimitRows = async (db: Awaited<ReturnType<typeof createTestDb>>) =>
    (await db.store.sql.all<{ n: number }>('SELECT count(*)::int AS n FROM "RateLimit"'))[0]?.n

  it('gives the next test the same database, emptied', async () => {
    const first = await createTestDb()
    await first.store.sql.run(`INSERT INTO "RateLimit" ("key", "windowStart", "count") VALUES ('k', now(), 1)`)
    expect(await rateLimitRows(first)).toBe(1)
    await first.cleanup()

    const second = await createTestDb()
    try {
      expect(second.url).toBe(first.url)
      expect(await rateLimitRows(second)).toBe(0)
    } finally {
      await second.cleanup()
    }
  })

  it('does not reuse a database whose schema a test changed', async () => {
    const first = await createTestDb()
    await first.store.sql.run(`CREATE INDEX "left_behind" ON "RateLimit" ("count")`)
    await first.cleanup()

    const second = await createTestDb()
    try {
      expect(second.url).not.toBe(first.url)
      const [index] = await second.store.sql.all<{ n: number }>(`SELECT count(*)::int AS n FROM pg_indexes WHERE indexname = 'left_behind'`)
      expect(index?.n).toBe(0)
    } finally {
      await second.cleanup()
    }
  })
})
