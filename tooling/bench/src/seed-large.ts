// Seeds a large, realistic data set for measuring the admin console: N grants (default 100,000) with their access
// items, interactions and token rotation chains, spread over the last 90 days, written in batches of --batch grants,
// one transaction per batch (multi-row INSERTs; --create-many uses Prisma's createMany, which is slower). The same
// --seed writes the same rows (ids, states, timestamps relative to now).
//
//   DATABASE_URL=file:$PWD/data/bench.db pnpm --filter @gnap/bench seed-large [--grants 100000] [--seed 1] [--reset]
//
// Without DATABASE_URL it writes data/bench.db, never the demo database. The file is migrated first. Rows are
// written directly (not through the use cases) because 100,000 grant requests with argon2-free but signed flows
// would take minutes; the shapes are those the use cases write (see protocol/grant/request-grant.ts, access.repo.ts).
import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { openStore } from '@gnap/domain/kernel'
import type { PrismaClient } from '@gnap/domain/testing'
import { migrateFile, type Prisma } from '@gnap/domain/testing'

/** The repository. */
const root = path.resolve(import.meta.dirname, '..', '..', '..')

interface Options {
  grants: number
  seed: number
  batch: number
  reset: boolean
  createMany: boolean
}

function parseArgs(argv: string[]): Options {
  const opts: Options = { grants: 100_000, seed: 1, batch: 2_000, reset: false, createMany: false }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const next = () => {
      const v = Number(argv[++i])
      if (!Number.isInteger(v) || v < 0) throw new Error(`${arg} needs a whole number`)
      return v
    }
    if (arg === '--grants') opts.grants = next()
    else if (arg === '--seed') opts.seed = next()
    else if (arg === '--batch') opts.batch = Math.max(1, next())
    else if (arg === '--reset') opts.reset = true
    else if (arg === '--create-many') opts.createMany = true
    else if (arg && /^\d+$/.test(arg)) opts.grants = Number(arg)
    else throw new Error(`unknown argument ${arg}`)
  }
  return opts
}

/** mulberry32: a small deterministic PRNG, so two runs with the same seed write the same data. */
function prng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    /** A UUID v4 from the PRNG (the shape of `newId`). */
    uuid: () => {
      const b = Array.from({ length: 16 }, () => Math.floor(next() * 256))
      b[6] = ((b[6] ?? 0) & 0x0f) | 0x40
      b[8] = ((b[8] ?? 0) & 0x3f) | 0x80
      const h = b.map((x) => x.toString(16).padStart(2, '0')).join('')
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
    },
  }
}

// Stored hashes of values nobody knows: unique, and useless to anyone reading the file.
const unknowableHash = () => createHash('sha256').update(randomBytes(24)).digest('hex')

const DAY = 86_400_000
const TOKEN_SECONDS = 600
const CLIENTS = 250

/** The rows of one batch, written in one transaction. */
interface Batch {
  grants: Prisma.GrantCreateManyInput[]
  items: Prisma.AccessItemCreateManyInput[]
  interactions: Prisma.InteractionCreateManyInput[]
  tokens: Prisma.AccessTokenCreateManyInput[]
}
type Prng = ReturnType<typeof prng>
type Db = Awaited<ReturnType<typeof openStore>>['prisma']

/**
 * One grant of the `index`th of `total`, with its access items, its interaction and its tokens, added to `batch`. The
 * PRNG is drawn in a fixed order, so a seed always gives the same rows.
 */
function addGrant(batch: Batch, rnd: Prng, index: number, total: number, now: number): void {
  const id = rnd.uuid()
  const clientNo = Math.floor(rnd.next() ** 2 * CLIENTS) // a few clients hold most grants
  const client = `https://wallet.example/client-${clientNo}`
  // Spread over 90 days; every 50th grant shares its second with the previous one (equal timestamps).
  const createdAt = new Date(now - 90 * DAY + Math.floor((index / total) * 90 * DAY) - (index % 50 === 0 ? 0 : rnd.int(1000)))
  const r = rnd.next()
  const status = r < 0.6 ? 'issued' : r < 0.72 ? 'revoked' : r < 0.8 ? 'rejected' : r < 0.92 ? 'pending' : 'approved'
  const types = pickTypes(rnd)
  const interactive = types.includes('outgoing-payment')
  const finalized = status === 'issued' || status === 'revoked' || status === 'rejected'
  const decidedAt = new Date(createdAt.getTime() + 20_000 + rnd.int(60_000))
  const issuedAt = new Date(decidedAt.getTime() + 5_000 + rnd.int(5_000))
  const revokedAt = new Date(issuedAt.getTime() + rnd.int(3 * DAY))

  batch.grants.push({
    id,
    state: finalized ? 'finalized' : status,
    finalizedReason: finalized ? status : null,
    client,
    clientName: `Client ${clientNo}`,
    continueId: rnd.uuid(),
    continueTokenHash: unknowableHash(),
    interactStart: interactive ? 'redirect' : null,
    finishMethod: interactive ? 'redirect' : null,
    finishUri: interactive ? `https://client-${clientNo}.example/finish` : null,
    clientNonce: interactive ? rnd.uuid() : null,
    createdAt,
    updatedAt: status === 'revoked' ? revokedAt : status === 'pending' ? createdAt : finalized ? issuedAt : decidedAt,
    finalizedAt: status === 'revoked' ? revokedAt : status === 'rejected' ? decidedAt : status === 'issued' ? issuedAt : null,
  })
  types.forEach((type, position) => {
    batch.items.push({ id: rnd.uuid(), grantId: id, position, ...itemFields(type, clientNo, rnd) })
  })
  if (interactive || status === 'pending' || status === 'approved' || status === 'rejected') {
    const state = status === 'pending' ? 'pending' : status === 'rejected' ? 'denied' : 'approved'
    batch.interactions.push({
      id: rnd.uuid(),
      nonce: rnd.uuid(),
      grantId: id,
      state,
      interactRef: rnd.uuid(),
      expiresAt: new Date(createdAt.getTime() + 600_000),
      decidedAt: state === 'pending' ? null : decidedAt,
      finishedAt: state === 'pending' ? null : new Date(decidedAt.getTime() + 1_000),
      refUsedAt: status === 'issued' || status === 'revoked' ? issuedAt : null,
      createdAt,
    })
  }
  if (status === 'issued' || status === 'revoked') {
    addTokenChain(batch.tokens, rnd, { grantId: id, status, issuedAt, revokedAt, now })
  }
}

/** A rotation chain of an issued or revoked grant: 0–4 rotations, each when (or shortly after) the previous token expired. */
function addTokenChain(
  tokens: Prisma.AccessTokenCreateManyInput[],
  rnd: Prng,
  { grantId: id, status, issuedAt, revokedAt, now }: { grantId: string; status: string; issuedAt: Date; revokedAt: Date; now: number },
): void {
  const rotations = rnd.int(5)
  let previousId: string | null = null
  let at = issuedAt.getTime()
  for (let n = 0; n <= rotations; n++) {
    const tokenId = rnd.uuid()
    const expiresAt = at + TOKEN_SECONDS * 1000
    const rotatedAt = n < rotations ? expiresAt + rnd.int(60_000) : null
    const isLast = n === rotations
    const revoked = isLast && status === 'revoked' && revokedAt.getTime() > at
    tokens.push({
      id: tokenId,
      grantId: id,
      managementId: rnd.uuid(),
      valueHash: unknowableHash(),
      state: rotatedAt !== null && rotatedAt <= now ? 'rotated' : revoked ? 'revoked' : 'active',
      expiresIn: TOKEN_SECONDS,
      expiresAt: new Date(expiresAt),
      createdAt: new Date(at),
      rotatedAt: rotatedAt !== null && rotatedAt <= now ? new Date(rotatedAt) : null,
      revokedAt: revoked ? revokedAt : null,
      previousId,
    })
    previousId = tokenId
    if (rotatedAt === null || rotatedAt > now) break
    at = rotatedAt
  }
}

/** One batch in one transaction: through createMany, or multi-row INSERTs (the default, faster at this size). */
async function writeBatch(db: Db, batch: Batch, createMany: boolean): Promise<void> {
  const { grants, items, interactions, tokens } = batch
  await db.$transaction(async (tx) => {
    if (createMany) {
      await tx.grant.createMany({ data: grants })
      await tx.accessItem.createMany({ data: items })
      await tx.interaction.createMany({ data: interactions })
      await tx.accessToken.createMany({ data: tokens })
    } else {
      await insertRows(tx, 'Grant', grants)
      await insertRows(tx, 'AccessItem', items)
      await insertRows(tx, 'Interaction', interactions)
      await insertRows(tx, 'AccessToken', tokens)
    }
  })
}

async function main() {
  const opts = parseArgs(process.argv.slice(2))
  const url = process.env.DATABASE_URL ?? `file:${path.join(root, 'data', 'bench.db')}`
  if (!url.startsWith('file:')) throw new Error('DATABASE_URL must be a SQLite file: URL')
  const file = url.slice('file:'.length)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  if (opts.reset) for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true })
  migrateFile(file)
  const store = await openStore(url)
  const db = store.prisma
  // A large page cache for this connection: random-key inserts into a dozen indexes stay in memory.
  if (process.env.SEED_CACHE !== '0') await db.$queryRawUnsafe('PRAGMA cache_size = -262144')
  const rnd = prng(opts.seed)
  const now = Date.now()
  const started = performance.now()
  const counts = { grants: 0, accessItems: 0, interactions: 0, tokens: 0 }

  try {
    for (let done = 0; done < opts.grants; done += opts.batch) {
      const size = Math.min(opts.batch, opts.grants - done)
      const batch: Batch = { grants: [], items: [], interactions: [], tokens: [] }
      const { grants, items, interactions, tokens } = batch
      for (let k = 0; k < size; k++) addGrant(batch, rnd, done + k, opts.grants, now)
      await writeBatch(db, batch, opts.createMany)
      counts.grants += grants.length
      counts.accessItems += items.length
      counts.interactions += interactions.length
      counts.tokens += tokens.length
      if ((done / opts.batch) % 10 === 0) process.stdout.write(`\r[seed-large] ${counts.grants.toLocaleString('en')} grants…`)
    }
    await db.$queryRawUnsafe('ANALYZE')
    const seconds = ((performance.now() - started) / 1000).toFixed(1)
    console.log(
      `\r[seed-large] ${url}: +${counts.grants} grants, +${counts.accessItems} access items, +${counts.interactions} interactions, +${counts.tokens} tokens in ${seconds} s`,
    )
    console.log(`[seed-large] totals: ${await db.grant.count()} grants, ${await db.accessToken.count()} tokens`)
  } finally {
    await store.close()
  }
}

/**
 * Multi-row INSERTs of standard SQL (quoted identifiers, bound parameters: the same on PostgreSQL), faster here
 * than createMany, whose per-row work in the query compiler dominates at this size. Dates are
 * bound as Date, so the driver adapter stores them exactly as Prisma's own writes do. Statements stay under
 * SQLite's 32,766 bound parameters.
 */
async function insertRows(tx: Pick<PrismaClient, '$executeRawUnsafe'>, table: string, rows: Record<string, unknown>[]): Promise<void> {
  const first = rows[0]
  if (!first) return
  const columns = Object.keys(first)
  const perStatement = Math.floor(30_000 / columns.length)
  const head = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES `
  const tuple = `(${columns.map(() => '?').join(', ')})`
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement)
    await tx.$executeRawUnsafe(head + chunk.map(() => tuple).join(', '), ...chunk.flatMap((r) => columns.map((c) => r[c] ?? null)))
  }
}

type AccessType = 'incoming-payment' | 'outgoing-payment' | 'quote'

function pickTypes(rnd: ReturnType<typeof prng>): AccessType[] {
  const r = rnd.next()
  if (r < 0.35) return ['incoming-payment']
  if (r < 0.55) return ['outgoing-payment']
  if (r < 0.7) return ['quote']
  if (r < 0.9) return ['quote', 'outgoing-payment']
  return ['incoming-payment', 'quote', 'outgoing-payment']
}

function itemFields(type: AccessType, clientNo: number, rnd: ReturnType<typeof prng>) {
  const wallet = `https://wallet.example/owner-${clientNo % 97}`
  switch (type) {
    case 'incoming-payment':
      return { type, actions: JSON.stringify(['create', 'read', 'list']), identifier: null, limits: null }
    case 'quote':
      return { type, actions: JSON.stringify(['create', 'read']), identifier: null, limits: null }
    case 'outgoing-payment':
      return {
        type,
        actions: JSON.stringify(['create', 'read']),
        identifier: wallet,
        limits: JSON.stringify({
          debitAmount: { value: String(100 + rnd.int(100_000)), assetCode: 'USD', assetScale: 2 },
          interval: 'R12/2026-01-01T00:00:00Z/P1M',
        }),
      }
  }
}

main().catch((e: unknown) => {
  console.error('[seed-large] failed:', e instanceof Error ? e.message : e)
  process.exit(1)
})
