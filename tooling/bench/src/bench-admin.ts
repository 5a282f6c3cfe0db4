// Measures the admin console's grants list (the `listGrants` use case the tRPC procedure calls, on a real
// database) at the size `seed-large.ts` (beside this file) wrote: first page, filtered pages, a deep cursor page, searches,
// and the overview figures. Prints the median (and min / p90) of --runs runs after two warm-up runs.
//
//   DATABASE_URL=file:$PWD/data/bench.db pnpm --filter @gnap/bench bench-admin [--runs 15]
import path from 'node:path'
import { openStore } from '@gnap/domain/kernel'
import {
  getGrantDetail,
  getStats,
  GetStatsInputSchema,
  getTokenChain,
  listGrants,
  type ListGrantsInput,
  ListGrantsInputSchema,
} from '@gnap/domain/operator'
import { encodeCursor } from '@gnap/domain/testing'
import { benchDeps } from './lib/bench-deps'
import { timeCases, type TimedCase } from './lib/time-cases'

/** The repository. */
const root = path.resolve(import.meta.dirname, '..', '..', '..')
const DAY = 86_400_000

async function main() {
  const runsArg = process.argv.indexOf('--runs')
  const runs = runsArg > 0 ? Math.max(1, Number(process.argv[runsArg + 1]) || 15) : 15
  const url = process.env.DATABASE_URL ?? `file:${path.join(root, 'data', 'bench.db')}`
  const store = await openStore(url)
  const db = store.prisma
  const deps = benchDeps(store)
  try {
    const grants = await db.grant.count()
    const tokens = await db.accessToken.count()
    if (grants === 0) throw new Error(`no grants in ${url}: run pnpm --filter @gnap/bench seed-large first`)
    console.log(`[bench-admin] ${url}: ${grants.toLocaleString('en')} grants, ${tokens.toLocaleString('en')} tokens; median of ${runs} runs`)

    // Fixtures picked from the data: a row ~90% down the default order, a busy client, a token, a grant.
    const deep = await db.grant.findFirstOrThrow({
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: Math.floor(grants * 0.9),
      select: { createdAt: true, id: true },
    })
    const deepCursor = encodeCursor('createdAt:desc', { value: deep.createdAt, id: deep.id })
    const someToken = await db.accessToken.findFirstOrThrow({ where: { previousId: { not: null } }, select: { managementId: true, grantId: true } })
    const someGrant = await db.grant.findFirstOrThrow({ where: { id: someToken.grantId }, select: { id: true, continueId: true } })
    const busiest = await db.grant.groupBy({ by: ['client'], _count: { _all: true }, orderBy: { _count: { client: 'desc' } }, take: 1 })
    const client = busiest[0]?.client ?? 'https://wallet.example/client-0'
    const now = Date.now()

    const list = (input: ListGrantsInput) => async () => (await listGrants(deps, ListGrantsInputSchema.parse(input))).items.length
    const stats = (days: number) => async () =>
      (await getStats(deps, GetStatsInputSchema.parse({ from: new Date(now - days * DAY), to: new Date(now) }))).series.length
    const cases: TimedCase[] = [
      ['grants.list first page (50, newest first)', list({ limit: 50 })],
      ['grants.list first page (100, oldest updated first)', list({ limit: 100, sort: { field: 'updatedAt', direction: 'asc' } })],
      ['grants.list filter state=finalized reason=issued', list({ limit: 50, filters: { state: 'finalized', finalizedReason: 'issued' } })],
      ['grants.list filter state=pending', list({ limit: 50, filters: { state: 'pending' } })],
      ['grants.list filter accessType=outgoing-payment', list({ limit: 50, filters: { accessType: 'outgoing-payment' } })],
      ['grants.list filter client (exact, busiest)', list({ limit: 50, filters: { client: { value: client, match: 'exact' } } })],
      [
        'grants.list filter client prefix …/client-1',
        list({ limit: 50, filters: { client: { value: 'https://wallet.example/client-1', match: 'prefix' } } }),
      ],
      [
        'grants.list 5 filters combined (state, reason, type, client prefix, last 30 days)',
        list({
          limit: 50,
          filters: {
            state: 'finalized',
            finalizedReason: 'revoked',
            accessType: 'quote',
            client: { value: 'https://wallet.example/client-1', match: 'prefix' },
            createdFrom: new Date(now - 30 * DAY),
          },
        }),
      ],
      [
        'grants.list date range (one day, 45 days ago)',
        list({ limit: 50, filters: { createdFrom: new Date(now - 45 * DAY), createdTo: new Date(now - 44 * DAY) } }),
      ],
      [
        'grants.list date range (one day), sorted by last change',
        list({
          limit: 50,
          sort: { field: 'updatedAt', direction: 'desc' },
          filters: { createdFrom: new Date(now - 45 * DAY), createdTo: new Date(now - 44 * DAY) },
        }),
      ],
      [
        'grants.list state=pending + type=quote, sorted by last change',
        list({ limit: 50, sort: { field: 'updatedAt', direction: 'desc' }, filters: { state: 'pending', accessType: 'quote' } }),
      ],
      ['grants.list deep cursor page (row 90% down)', list({ limit: 50, cursor: deepCursor })],
      ['grants.list search by grant id', list({ limit: 50, filters: { search: someGrant.id } })],
      ['grants.list search by continue id', list({ limit: 50, filters: { search: someGrant.continueId } })],
      ['grants.list search by token management id', list({ limit: 50, filters: { search: someToken.managementId } })],
      ['grants.list search, no match', list({ limit: 50, filters: { search: crypto.randomUUID() } })],
      ['grants.byId (detail)', async () => (await getGrantDetail(deps, someGrant.id)).tokens.length],
      ['tokens.chain', async () => (await getTokenChain(deps, someGrant.id)).tokens.length],
      ['stats.overview last 30 days', stats(30)],
      ['stats.overview last 90 days', stats(90)],
    ]

    await timeCases(cases, runs)
  } finally {
    await store.close()
  }
}

main().catch((e: unknown) => {
  console.error('[bench-admin] failed:', e instanceof Error ? e.message : e)
  process.exit(1)
})
