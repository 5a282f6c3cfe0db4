import net from 'node:net'
import { describe, expect, it } from 'vitest'
import { useTestDeps } from '../../testing/use-test-deps'
import { isDatabaseUnavailable, isUniqueViolation } from './errors'
import { openStore } from './store'

// docs/protocol.md §9: an unreachable database is told apart from a failing statement (503, not 500).
const t = useTestDeps()

/** A loopback port nobody listens on. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo
      s.close(() => resolve(port))
    })
  })

describe('isDatabaseUnavailable', () => {
  it('recognises a PostgreSQL server that refuses connections, through the SQL runner and through Prisma', async () => {
    const store = await openStore(`postgresql://gnap:gnap@127.0.0.1:${await closedPort()}/gnap`)
    try {
      const viaSql = await store.sql.all('SELECT 1').catch((e: unknown) => e)
      const viaPrisma = await store.reads.grant.count().catch((e: unknown) => e)
      expect(isDatabaseUnavailable(viaSql)).toBe(true)
      expect(isDatabaseUnavailable(viaPrisma)).toBe(true)
    } finally {
      await store.close()
    }
  })

  it('does not take a failing statement for an unreachable database', async () => {
    const syntax = await (async () => t.sql.all('SELECT FROM WHERE'))().catch((e: unknown) => e)
    await t.sql.run(`INSERT INTO "SignatureNonce" ("keyRef", "nonce", "expiresAt") VALUES ($1, $2, $3)`, ['k', 'n', new Date()])
    const duplicate = await t.sql
      .run(`INSERT INTO "SignatureNonce" ("keyRef", "nonce", "expiresAt") VALUES ($1, $2, $3)`, ['k', 'n', new Date()])
      .catch((e: unknown) => e)
    expect(isUniqueViolation(duplicate)).toBe(true)
    expect(isDatabaseUnavailable(syntax)).toBe(false)
    expect(isDatabaseUnavailable(duplicate)).toBe(false)
    expect(isDatabaseUnavailable(new Error('something else'))).toBe(false)
  })
})
