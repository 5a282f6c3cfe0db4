import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { GRANT_PAGE_MAX, type ListGrantsInput } from '@gnap/domain/operator'
import { TEST_OWNER, grantRequest, incomingAccess, issueNonInteractiveGrant, requestPendingGrant, type TestDeps } from '@gnap/domain/testing'
import { adminCaller, apiTestDeps, expectTrpcError } from './support'
import { CLIENT_A, CLIENT_AB, CLIENT_U, CLIENT_UPPER, ordered, readTruth, seedVariety, type TruthRow } from './fixtures'

let t: TestDeps
let caller: Awaited<ReturnType<typeof adminCaller>>['caller']
beforeEach(async () => {
  t = await apiTestDeps()
  caller = (await adminCaller(t)).caller
})
afterEach(async () => {
  await t.cleanup()
})

type Filters = NonNullable<ListGrantsInput['filters']>

/** What the filters should keep: every given filter holds (AND). */
function matches(row: TruthRow, f: Filters): boolean {
  if (f.state !== undefined && row.state !== f.state) return false
  if (f.finalizedReason !== undefined && row.finalizedReason !== f.finalizedReason) return false
  if (f.client !== undefined) {
    const ok = f.client.match === 'prefix' ? row.client.startsWith(f.client.value) : row.client === f.client.value
    if (!ok) return false
  }
  if (f.accessType !== undefined && !row.types.includes(f.accessType)) return false
  if (f.createdFrom !== undefined && row.createdAt < f.createdFrom) return false
  if (f.createdTo !== undefined && row.createdAt >= f.createdTo) return false
  return true
}

async function listAll(input: ListGrantsInput): Promise<string[]> {
  const ids: string[] = []
  let cursor: string | null = input.cursor ?? null
  do {
    const page = await caller.grants.list({ ...input, cursor })
    ids.push(...page.items.map((g) => g.id))
    cursor = page.nextCursor
  } while (cursor)
  return ids
}

describe('grants.list filters (docs/protocol.md §8.13: combined with AND)', () => {
  it('keeps exactly the rows every filter allows, for every combination of state, reason, client, access type and date', async () => {
    const { truth } = await seedVariety(t)
    const byCreated = ordered(truth, 'createdAt', 'desc')
    const middle = byCreated[Math.floor(byCreated.length / 2)]!.createdAt
    const states = [undefined, 'pending', 'approved', 'finalized'] as const
    const reasons = [undefined, 'issued', 'revoked', 'rejected'] as const
    const clients = [
      undefined,
      { value: CLIENT_A, match: 'exact' as const },
      { value: CLIENT_A, match: 'prefix' as const },
      { value: 'https://wallet.example/app_', match: 'prefix' as const },
    ]
    const types = [undefined, 'incoming-payment', 'outgoing-payment', 'quote'] as const
    const dates = [{}, { createdFrom: middle }, { createdTo: middle }]
    let combinations = 0
    let nonEmpty = 0
    for (const state of states)
      for (const finalizedReason of reasons)
        for (const client of clients)
          for (const accessType of types)
            for (const date of dates) {
              const filters: Filters = { state, finalizedReason, client, accessType, ...date }
              const expected = byCreated.filter((r) => matches(r, filters)).map((r) => r.id)
              const page = await caller.grants.list({ limit: 100, filters })
              expect(
                page.items.map((g) => g.id),
                JSON.stringify(filters),
              ).toEqual(expected)
              expect(page.nextCursor).toBeNull()
              combinations++
              if (expected.length > 0) nonEmpty++
            }
    expect(combinations).toBe(4 * 4 * 4 * 4 * 3)
    // The data makes the combinations meaningful: many of them keep some rows, and none keeps all.
    expect(nonEmpty).toBeGreaterThan(100)
  })

  it('matches a client prefix character for character: no LIKE wildcards, case-sensitive', async () => {
    await seedVariety(t)
    const clientsOf = async (value: string) =>
      new Set((await caller.grants.list({ limit: 100, filters: { client: { value, match: 'prefix' } } })).items.map((g) => g.client.walletAddress))
    expect(await clientsOf('https://wallet.example/app-a')).toEqual(new Set([CLIENT_A, CLIENT_AB]))
    expect(await clientsOf('https://wallet.example/app_')).toEqual(new Set([CLIENT_U]))
    expect(await clientsOf('https://wallet.example/app%')).toEqual(new Set())
    expect(await clientsOf('https://wallet.example/APP')).toEqual(new Set([CLIENT_UPPER]))
    const exact = await caller.grants.list({ limit: 100, filters: { client: { value: 'https://wallet.example/app-a' } } })
    expect(new Set(exact.items.map((g) => g.client.walletAddress))).toEqual(new Set([CLIENT_A]))
  })

  it('describes each row: status, client, access types in request order, timestamps', async () => {
    const { truth, interactive } = await seedVariety(t)
    const page = await caller.grants.list({ filters: { search: interactive.continueId } })
    const row = truth.find((r) => r.continueId === interactive.continueId)!
    expect(page.items).toEqual([
      {
        id: row.id,
        continueId: interactive.continueId,
        status: 'issued',
        state: 'finalized',
        finalizedReason: 'issued',
        client: { walletAddress: CLIENT_A, name: 'Test App', thumbprint: null },
        tenantId: null,
        accessTypes: ['outgoing-payment', 'quote'],
        createdAt: row.createdAt,
        updatedAt: row.updatedAt,
        finalizedAt: row.updatedAt,
      },
    ])
  })
})

describe('grants.list walletAddress (grants whose access names it; docs/protocol.md §2.18)', () => {
  it('keeps exactly the grants with an access item on that wallet address, with the other filters (AND)', async () => {
    const alice = 'https://wallet.example/alice'
    const on = (identifier?: string) =>
      issueNonInteractiveGrant(t, grantRequest({ access: [incomingAccess(identifier ? { identifier } : {})], interact: null }))
    const a1 = await on(alice)
    await on('https://wallet.example/alice2')
    await on()
    const a2 = await on(alice)
    const idOf = async (continueId: string) => (await t.db.grant.findUniqueOrThrow({ where: { continueId } })).id
    const found = await caller.grants.list({ filters: { walletAddress: alice } })
    expect(new Set(found.items.map((g) => g.id))).toEqual(new Set([await idOf(a1.continueId), await idOf(a2.continueId)]))
    expect((await caller.grants.list({ filters: { walletAddress: alice, state: 'pending' } })).items).toEqual([])
    expect((await caller.grants.list({ filters: { walletAddress: 'https://wallet.example/alic' } })).items).toEqual([])
  })
})

describe('grants.list search (grant id, continuation id, token management id; exact)', () => {
  it('finds a grant by each of its ids, also rotated-away management ids and upper-case input', async () => {
    const { truth, made } = await seedVariety(t)
    const issued = made.find((m) => m.managementId)!
    const grant = truth.find((r) => r.continueId === issued.continueId)!
    for (const search of [grant.id, grant.continueId, issued.managementId!, grant.id.toUpperCase(), `  ${grant.continueId}  `]) {
      expect(
        (await caller.grants.list({ filters: { search } })).items.map((g) => g.id),
        search,
      ).toEqual([grant.id])
    }
  })

  it('finds nothing for an unknown id, a partial id or free text, and applies the other filters too (AND)', async () => {
    const { truth } = await seedVariety(t)
    const pending = truth.find((r) => r.state === 'pending')!
    for (const search of [crypto.randomUUID(), pending.id.slice(0, 8), 'app-a', "' OR 1=1 --"]) {
      expect((await caller.grants.list({ filters: { search } })).items, search).toEqual([])
    }
    expect((await caller.grants.list({ filters: { search: pending.id, state: 'finalized' } })).items).toEqual([])
    expect((await caller.grants.list({ filters: { search: pending.id, state: 'pending' } })).items).toHaveLength(1)
  })

  it('treats a blank search as no search', async () => {
    const { truth } = await seedVariety(t)
    expect((await caller.grants.list({ limit: 100, filters: { search: '   ' } })).items).toHaveLength(truth.length)
  })
})

describe('grants.list pagination (keyset on the sort field, then id)', () => {
  /** 13 grants: 6 of them at one instant, then 4 at another, then 3 a minute apart each. */
  async function seedTies(): Promise<TruthRow[]> {
    for (let i = 0; i < 6; i++) await issueNonInteractiveGrant(t)
    t.clock.advance(60)
    for (let i = 0; i < 4; i++) await issueNonInteractiveGrant(t)
    for (let i = 0; i < 3; i++) {
      t.clock.advance(60)
      await issueNonInteractiveGrant(t)
    }
    return readTruth(t)
  }

  it.each([
    ['createdAt', 'desc'],
    ['createdAt', 'asc'],
    ['updatedAt', 'desc'],
    ['updatedAt', 'asc'],
  ] as const)('walks every row once in %s %s order for every page size, equal timestamps included', async (field, direction) => {
    const truth = await seedTies()
    const expected = ordered(truth, field, direction).map((r) => r.id)
    for (let limit = 1; limit <= expected.length + 1; limit++) {
      const pages: string[][] = []
      let cursor: string | null = null
      do {
        const page = await caller.grants.list({ limit, cursor, sort: { field, direction } })
        pages.push(page.items.map((g) => g.id))
        cursor = page.nextCursor
      } while (cursor)
      expect(pages.flat(), `limit ${limit}`).toEqual(expected)
      // Full pages until the last, which is never empty: no extra round trip for nothing.
      expect(pages.length, `limit ${limit}`).toBe(Math.ceil(expected.length / limit))
      expect(pages.slice(0, -1).every((p) => p.length === limit)).toBe(true)
    }
  })

  it('has no next page when the rows fill the last page exactly', async () => {
    const truth = await seedTies()
    const first = await caller.grants.list({ limit: truth.length })
    expect(first.items).toHaveLength(truth.length)
    expect(first.nextCursor).toBeNull()
    const twoPages = await caller.grants.list({ limit: truth.length - 1 })
    const last = await caller.grants.list({ limit: truth.length - 1, cursor: twoPages.nextCursor })
    expect(last.items).toHaveLength(1)
    expect(last.nextCursor).toBeNull()
  })

  it('answers an empty page without a cursor on an empty database', async () => {
    expect(await caller.grants.list({})).toEqual({ items: [], nextCursor: null })
  })

  it('continues after a cursor whose row was deleted meanwhile', async () => {
    const truth = await seedTies()
    const expected = ordered(truth, 'createdAt', 'desc').map((r) => r.id)
    const first = await caller.grants.list({ limit: 4 })
    // The last row of the page (one of four with equal timestamps) disappears.
    await t.db.grant.delete({ where: { id: first.items[3]!.id } })
    const rest = await listAll({ limit: 4, cursor: first.nextCursor })
    expect([...first.items.map((g) => g.id), ...rest]).toEqual(expected)
  })

  it('keeps later pages stable when rows are added before the cursor', async () => {
    const truth = await seedTies()
    const expected = ordered(truth, 'createdAt', 'desc').map((r) => r.id)
    const first = await caller.grants.list({ limit: 5 })
    t.clock.advance(3600)
    await issueNonInteractiveGrant(t)
    const rest = await listAll({ limit: 5, cursor: first.nextCursor })
    expect([...first.items.map((g) => g.id), ...rest]).toEqual(expected)
  })

  it('refuses limits outside 1..100 and accepts both ends', async () => {
    await seedTies()
    await expectTrpcError(caller.grants.list({ limit: 0 }), 'BAD_REQUEST')
    await expectTrpcError(caller.grants.list({ limit: GRANT_PAGE_MAX + 1 }), 'BAD_REQUEST')
    await expectTrpcError(caller.grants.list({ limit: 2.5 }), 'BAD_REQUEST')
    expect((await caller.grants.list({ limit: 1 })).items).toHaveLength(1)
    expect((await caller.grants.list({ limit: GRANT_PAGE_MAX })).items).toHaveLength(13)
  })

  it('refuses a malformed cursor, and a cursor made for another sort order, with BAD_REQUEST', async () => {
    await seedTies()
    const page = await caller.grants.list({ limit: 2 })
    for (const cursor of ['nonsense', Buffer.from('{"o":"createdAt:desc"}').toString('base64url'), 'x'.repeat(600)]) {
      await expectTrpcError(caller.grants.list({ limit: 2, cursor }), 'BAD_REQUEST')
    }
    const foreign = await expectTrpcError(caller.grants.list({ limit: 2, cursor: page.nextCursor, sort: { field: 'updatedAt' } }), 'BAD_REQUEST')
    expect(foreign.message).toMatch(/another sort order/)
  })

  it('refuses unknown filters and values', async () => {
    // @ts-expect-error: not a state
    await expectTrpcError(caller.grants.list({ filters: { state: 'processing' } }), 'BAD_REQUEST')
    // @ts-expect-error: not a filter
    await expectTrpcError(caller.grants.list({ filters: { or: [{ state: 'pending' }] } }), 'BAD_REQUEST')
    // @ts-expect-error: not a sort field
    await expectTrpcError(caller.grants.list({ sort: { field: 'client' } }), 'BAD_REQUEST')
  })
})

describe('clients.list', () => {
  it('lists client wallet addresses by grant count with their latest name, and filters by prefix', async () => {
    await seedVariety(t)
    const { items } = await caller.clients.list({})
    expect(items.map((c) => [c.walletAddress, c.grants])).toEqual([
      [CLIENT_A, 4],
      // Ties by wallet address, byte order: upper case first, then "-" before "_".
      [CLIENT_UPPER, 2],
      [CLIENT_AB, 2],
      [CLIENT_U, 2],
    ])
    expect(items[0]).toMatchObject({ name: 'Test App', lastGrantAt: expect.any(Date) })
    expect((await caller.clients.list({ search: 'https://wallet.example/app-' })).items.map((c) => c.walletAddress)).toEqual([CLIENT_A, CLIENT_AB])
  })
})

describe('grants.byId with a subject request (docs/protocol.md §2.1)', () => {
  it('lists the wallet address the owner was asked to confirm, and no access', async () => {
    const pending = await requestPendingGrant(t, { ...grantRequest({ access: [] }), subject: [TEST_OWNER] })
    const [grant] = await t.db.grant.findMany({ where: { continueId: pending.continueId } })
    expect(await caller.grants.byId({ id: grant!.id })).toMatchObject({ subjects: [TEST_OWNER], accessItems: [] })
  })

  it('lists no subject for a grant without one', async () => {
    const issued = await issueNonInteractiveGrant(t)
    const [grant] = await t.db.grant.findMany({ where: { continueId: issued.continueId } })
    expect(await caller.grants.byId({ id: grant!.id })).toMatchObject({ subjects: [] })
  })
})
