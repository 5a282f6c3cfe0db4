import { describe, expect, it } from 'vitest'
import { TEST_CLIENT, authAs, gnapError, grantRequest, incomingAccess, rowCounts } from '../../testing/deps'
import { GnapError } from '../../kernel/errors'
import { requestGrant } from '../grant/request-grant'
import { admitGrantRequestFromIp } from './grant-rate-limit'
import { generateClientKey } from '../../testing/client-keys'
import { hitRateLimit } from '../../kernel/rate-limit/rate-limit'
import { useTestDeps } from '../../testing/use-test-deps'

const t = useTestDeps()

describe('hitRateLimit (fixed window, decided by the database)', () => {
  it('allows exactly `limit` hits per window and says how long until the window ends', async () => {
    const now = new Date('2025-01-15T12:00:45.000Z')
    const hits = []
    for (let i = 0; i < 5; i++) hits.push(await hitRateLimit(t.sql, 'k', 3, 60, now))
    expect(hits.map((h) => h.allowed)).toEqual([true, true, true, false, false])
    expect(hits.every((h) => h.retryAfterSeconds === 15)).toBe(true)
    // A refused hit is not counted.
    expect(await t.db.rateLimit.findMany()).toEqual([{ key: 'k', windowStart: new Date('2025-01-15T12:00:00.000Z'), count: 3 }])
  })

  it('starts a new count in the next window and keeps keys apart', async () => {
    const now = new Date('2025-01-15T12:00:59.500Z')
    expect((await hitRateLimit(t.sql, 'a', 1, 60, now)).allowed).toBe(true)
    expect((await hitRateLimit(t.sql, 'a', 1, 60, now)).allowed).toBe(false)
    expect((await hitRateLimit(t.sql, 'b', 1, 60, now)).allowed).toBe(true)
    expect(await hitRateLimit(t.sql, 'a', 1, 60, new Date('2025-01-15T12:01:00.000Z'))).toEqual({ allowed: true, retryAfterSeconds: 60 })
  })

  it('lets exactly `limit` of many concurrent first hits through', async () => {
    const now = new Date('2025-01-15T12:00:00.000Z')
    const hits = await Promise.all(Array.from({ length: 40 }, () => hitRateLimit(t.sql, 'race', 25, 60, now)))
    expect(hits.filter((h) => h.allowed)).toHaveLength(25)
    expect((await t.db.rateLimit.findFirstOrThrow({ where: { key: 'race' } })).count).toBe(25)
  })

  it('has no limit at 0 and refuses windows it cannot keep', async () => {
    const now = new Date('2025-01-15T12:00:00.000Z')
    expect((await hitRateLimit(t.sql, 'off', 0, 60, now)).allowed).toBe(true)
    expect(await t.db.rateLimit.count()).toBe(0)
    await expect(hitRateLimit(t.sql, 'k', 1, 0, now)).rejects.toThrow(RangeError)
    await expect(hitRateLimit(t.sql, 'k', 1, 86_401, now)).rejects.toThrow(RangeError)
  })
})

describe('grant request rate limits (RATE_LIMIT_GRANTS_PER_MINUTE)', () => {
  const nonInteractive = () => grantRequest({ access: [incomingAccess()], interact: null })

  it('refuses the request after the limit from one client with 429 request_denied and Retry-After, writing nothing', async () => {
    await t.reset({ config: { grantRequestsPerMinutePerClient: 3 } })
    t.clock.advance(20)
    for (let i = 0; i < 3; i++) await requestGrant(t.deps, nonInteractive(), authAs(null), null)
    const before = await rowCounts(t.db)
    const refused = await requestGrant(t.deps, nonInteractive(), authAs(null), null).catch((e: unknown) => e)
    expect(refused).toMatchObject({ ...gnapError('request_denied', 429), retryAfterSeconds: 40 })
    expect(await rowCounts(t.db)).toEqual(before)
    // Another client has its own allowance; the next minute starts afresh.
    await expect(
      requestGrant(t.deps, grantRequest({ access: [incomingAccess()], interact: null, client: 'https://wallet.example/other' }), authAs(null), null),
    ).resolves.toBeDefined()
    t.clock.advance(40)
    await expect(requestGrant(t.deps, nonInteractive(), authAs(null), null)).resolves.toBeDefined()
  })

  it('counts a client only once its signature verified: forged requests cannot spend its allowance', async () => {
    await t.reset({ config: { grantRequestsPerMinutePerClient: 1 } })
    const forged = authAs(null, { failSignature: new GnapError('invalid_client', 'bad signature') })
    for (let i = 0; i < 3; i++)
      await expect(requestGrant(t.deps, nonInteractive(), forged, null)).rejects.toMatchObject(gnapError('invalid_client', 401))
    await expect(requestGrant(t.deps, nonInteractive(), authAs(null), null)).resolves.toBeDefined()
    await expect(requestGrant(t.deps, nonInteractive(), authAs(null), null)).rejects.toMatchObject(gnapError('request_denied', 429))
    expect(await t.db.rateLimit.findMany({ select: { key: true, count: true } })).toEqual([{ key: `grant:client:${TEST_CLIENT}`, count: 1 }])
  })

  it('counts every attempt per IP, and does not limit callers whose address is unknown', async () => {
    await t.reset({ config: { grantRequestsPerMinutePerIp: 2 } })
    await admitGrantRequestFromIp(t.deps, '192.0.2.1')
    await admitGrantRequestFromIp(t.deps, '192.0.2.1')
    await expect(admitGrantRequestFromIp(t.deps, '192.0.2.1')).rejects.toMatchObject(gnapError('request_denied', 429))
    await admitGrantRequestFromIp(t.deps, '192.0.2.2')
    for (let i = 0; i < 5; i++) await admitGrantRequestFromIp(t.deps, null)
    expect(await t.db.rateLimit.count({ where: { key: { startsWith: 'grant:ip:unknown' } } })).toBe(0)
  })

  it('gives each address a quarter of the allowance directed identities share: one address cannot exhaust it for the others', async () => {
    await t.reset({ config: { grantRequestsPerMinutePerIp: 8 } })
    t.clock.advance(20)
    // A new key each time: a new directed identity is no new allowance.
    const directed = (n: number) => grantRequest({ access: [incomingAccess()], interact: null, client: { jwk: generateClientKey(`di-${n}`).jwk } })
    let n = 0
    for (let i = 0; i < 2; i++) await requestGrant(t.deps, directed(n++), authAs(null), '192.0.2.1')
    const before = await rowCounts(t.db)
    const refused = await requestGrant(t.deps, directed(n++), authAs(null), '192.0.2.1').catch((e: unknown) => e)
    expect(refused).toMatchObject({ ...gnapError('request_denied', 429), retryAfterSeconds: 40 })
    expect(await rowCounts(t.db)).toEqual(before)
    // Another address still gets its grant, out of the shared allowance the first one left.
    await expect(requestGrant(t.deps, directed(n++), authAs(null), '192.0.2.2')).resolves.toHaveProperty('access_token')
    // With no address known, only the shared allowance counts: 3 of 8 are spent, so 5 more, then refused.
    for (let i = 0; i < 5; i++) await requestGrant(t.deps, directed(n++), authAs(null), null)
    await expect(requestGrant(t.deps, directed(n++), authAs(null), null)).rejects.toMatchObject(gnapError('request_denied', 429))
  })
})
