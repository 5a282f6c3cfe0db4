// Seeds N owners (default 100,000) with 3 wallet addresses each, then measures the admin console's owners list (the
// `listOwners` use case the tRPC procedure calls, on a real database): first page, a deep cursor page, searches by
// email prefix, name and wallet address, and one owner's page. Prints the median (and min / p90) of --runs runs
// after two warm-up runs. Seeding is skipped when the database already has owners (--reset starts again).
//
//   DATABASE_URL=file:$PWD/data/owners.db pnpm --filter @gnap/bench bench-owners [--owners 100000] [--runs 15] [--reset]
//   DATABASE_URL=postgresql://gnap:gnap@127.0.0.1:5432/gnap_owners_bench pnpm --filter @gnap/bench bench-owners --reset
//
// Rows are written directly in multi-row INSERTs (the shapes insertOwner writes, operator/owner/owner.repo.ts): creating
// 100,000 owners through the use case would spend its time on audit rows, not on what is measured here.
import fs from 'node:fs'
import path from 'node:path'
import { openStore } from '@gnap/domain/kernel'
import { type Deps } from '@gnap/domain/protocol'
import { getOwnerDetail, listOwners, type ListOwnersInput, ListOwnersInputSchema } from '@gnap/domain/operator'
import { adminQuery, databaseUrl, migrate, ownerCursor, type SqlRunner } from '@gnap/domain/testing'
import { benchDeps } from './lib/bench-deps'

/** The console's reader of the owner page: an administrator, who sees every tenant. */
const BENCH_ADMIN = { kind: 'admin' as const, id: 'bench', label: 'admin:bench@example.com', role: 'admin' as const, tenantId: null }
import { timeCases, type TimedCase } from './lib/time-cases'

const root = path.resolve(import.meta.dirname, '..', '..', '..')

const FIRST = ['maria', 'jose', 'wei', 'fatima', 'john', 'anna', 'ali', 'olga', 'pedro', 'yuki', 'amara', 'lucas', 'sofia', 'ivan', 'chen', 'noor']
const LAST = ['garcia', 'smith', 'wang', 'khan', 'silva', 'mueller', 'rossi', 'kim', 'nguyen', 'okafor', 'dubois', 'novak', 'haddad', 'sato']
const HOSTS = ['wallet.example', 'pay.example', 'ilp.bank.example', 'money.example', 'wallet.coop.example']

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name)
  return i > 0 ? Math.max(1, Number(process.argv[i + 1]) || fallback) : fallback
}

async function main() {
  const owners = arg('--owners', 100_000)
  const runs = arg('--runs', 15)
  const reset = process.argv.includes('--reset')
  const url = process.env.DATABASE_URL ?? `file:${path.join(root, 'data', 'owners.db')}`
  if (url.startsWith('file:')) {
    const file = url.slice('file:'.length)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    if (reset) for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true })
  } else if (reset) {
    const name = new URL(url).pathname.slice(1)
    const admin = databaseUrl(url, 'postgres')
    await adminQuery(admin, `DROP DATABASE IF EXISTS "${name}"`)
    await adminQuery(admin, `CREATE DATABASE "${name}"`)
  }
  migrate(url)
  const store = await openStore(url)
  const deps = benchDeps(store)
  try {
    const [{ n }] = (await store.sql.all<{ n: number | string }>(`SELECT COUNT(*) AS "n" FROM "Owner"`)) as [{ n: number | string }]
    if (Number(n) === 0) await seed(store.sql, owners)
    const total = Number((await store.sql.all<{ n: number | string }>(`SELECT COUNT(*) AS "n" FROM "Owner"`))[0]!.n)
    const addresses = Number((await store.sql.all<{ n: number | string }>(`SELECT COUNT(*) AS "n" FROM "OwnerWalletAddress"`))[0]!.n)
    console.log(
      `[bench-owners] ${store.provider}: ${total.toLocaleString('en')} owners, ${addresses.toLocaleString('en')} wallet addresses; median of ${runs} runs`,
    )

    const [deep] = await store.sql.all<{ id: string; createdAt: Date }>(
      `SELECT "id", "createdAt" FROM "Owner" ORDER BY "createdAt" DESC, "id" DESC LIMIT 1 OFFSET $1`,
      [Math.floor(total * 0.9)],
    )
    const [someone] = await store.sql.all<{ id: string; email: string; nameKey: string }>(
      `SELECT "id", "email", "nameKey" FROM "Owner" ORDER BY "id" LIMIT 1 OFFSET $1`,
      [Math.floor(total / 2)],
    )
    const [address] = await store.sql.all<{ url: string }>(`SELECT "url" FROM "OwnerWalletAddress" WHERE "ownerId" = $1 ORDER BY "url" LIMIT 1`, [
      someone!.id,
    ])
    const [deepName] = await store.sql.all<{ id: string; nameKey: string }>(
      `SELECT "id", "nameKey" FROM "Owner" WHERE "nameKey" >= 'maria' AND "nameKey" < 'maria\uffff' ORDER BY "nameKey", "id" LIMIT 1 OFFSET 3000`,
    )

    const list = (input: ListOwnersInput) => async () => (await listOwners(deps, ListOwnersInputSchema.parse(input))).items.length
    const cases: TimedCase[] = [
      ['owners.list first page (50, newest first)', list({ limit: 50 })],
      ['owners.list first page (100)', list({ limit: 100 })],
      ['owners.list deep cursor page (row 90% down)', list({ limit: 50, cursor: ownerCursor('', deep!.createdAt.toISOString(), deep!.id) })],
      ['owners.list search email prefix "maria."', list({ limit: 50, search: 'maria.' })],
      [`owners.list search exact email ${someone!.email}`, list({ limit: 50, search: someone!.email })],
      ['owners.list search email, no match', list({ limit: 50, search: 'nobody-at-all@' })],
      ['owners.list search name "maria" (any case)', list({ limit: 50, search: 'Maria' })],
      [`owners.list search name "${someone!.nameKey}"`, list({ limit: 50, search: someone!.nameKey })],
      [
        'owners.list search name, page 61 by cursor',
        list({ limit: 50, search: 'maria', cursor: ownerCursor('maria', deepName!.nameKey, deepName!.id) }),
      ],
      ['owners.list search wallet address host prefix', list({ limit: 50, search: 'https://pay.example/' })],
      [`owners.list search exact wallet address`, list({ limit: 50, search: address!.url })],
      ['owners.byId (owner page)', async () => (await getOwnerDetail(deps, someone!.id, BENCH_ADMIN)).walletAddresses.length],
    ]
    await timeCases(cases, runs)
  } finally {
    await store.close()
  }
}

/** Owners spread over the last 365 days, each with 3 wallet addresses on one host; a batch per transaction. */
async function seed(sql: Deps['sql'], owners: number): Promise<void> {
  const started = performance.now()
  const now = Date.now()
  const batch = 2_000
  for (let done = 0; done < owners; done += batch) {
    const ownerRows: unknown[][] = []
    const addressRows: unknown[][] = []
    for (let i = done; i < Math.min(owners, done + batch); i++) {
      const first = FIRST[i % FIRST.length]!
      const last = LAST[Math.floor(i / FIRST.length) % LAST.length]!
      const id = crypto.randomUUID()
      const name = `${first[0]!.toUpperCase()}${first.slice(1)} ${last[0]!.toUpperCase()}${last.slice(1)}`
      const created = new Date(now - Math.floor(((owners - i) / owners) * 365 * 86_400_000))
      ownerRows.push([
        id,
        `${first}.${last}.${i}@mail${i % 7}.example`,
        name,
        name.toLowerCase(),
        null,
        i % 50 === 0 ? 'disabled' : 'active',
        created,
        created,
      ])
      const handle = `${first}-${last}-${i}`
      const host = HOSTS[i % HOSTS.length]!
      for (const suffix of ['', '-savings', '-shared']) addressRows.push([`https://${host}/${handle}${suffix}`, id])
    }
    await sql.transaction(async (tx) => {
      await insertRows(tx, 'Owner', ['id', 'email', 'name', 'nameKey', 'passwordHash', 'status', 'createdAt', 'updatedAt'], ownerRows)
      await insertRows(tx, 'OwnerWalletAddress', ['url', 'ownerId'], addressRows)
    })
  }
  console.log(`[bench-owners] seeded ${owners.toLocaleString('en')} owners in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

async function insertRows(tx: SqlRunner, table: string, columns: string[], rows: unknown[][]): Promise<void> {
  const perStatement = Math.floor(30_000 / columns.length)
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement)
    let n = 0
    const values = chunk.map(() => `(${columns.map(() => `$${++n}`).join(', ')})`).join(', ')
    await tx.run(`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${values}`, chunk.flat() as never)
  }
}

main().catch((e: unknown) => {
  console.error('[bench-owners] failed:', e)
  process.exit(1)
})
