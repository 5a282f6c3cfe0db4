// Seeds a migrated SQLite file directly with better-sqlite3 before the server starts: `tokens` access tokens in
// rotation chains of four (three rotated, the last one live), one finalized/issued incoming-payment grant with
// one access item per chain, as the use cases write them (dates in the adapter's ISO form). Token values are random
// and only their SHA-256 is stored, as the server stores them; a sample of live values is returned so the load
// can introspect old rows too.
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'

// better-sqlite3, the same version as the server's (no types installed here): the little of its API used here.
export interface Statement {
  run(...params: unknown[]): { changes: number }
  get(...params: unknown[]): unknown
  all(...params: unknown[]): unknown[]
}
export interface SqliteDb {
  prepare(sql: string): Statement
  pragma(source: string): unknown
  transaction<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void
  close(): void
}
export const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string, options?: { readonly?: boolean }) => SqliteDb

const iso = (ms: number) => new Date(ms).toISOString().replace('Z', '+00:00')
const CHAIN = 4

export interface SeedResult {
  tokens: number
  grants: number
  seconds: number
  /** Live seeded tokens with known values (clients are seed-only wallet addresses: introspection only). */
  sample: string[]
}

export function seedTokens(file: string, tokens: number, sampleSize = 2_000): SeedResult {
  const started = performance.now()
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = OFF')
  db.pragma('cache_size = -524288') // 512 MB for this connection: random-key inserts into the indexes stay in memory
  const insGrant = db.prepare(
    `INSERT INTO "Grant" (id, state, finalizedReason, client, continueId, continueTokenHash, createdAt, updatedAt, finalizedAt)
     VALUES (?, 'finalized', 'issued', ?, ?, ?, ?, ?, ?)`,
  )
  const insItem = db.prepare(`INSERT INTO "AccessItem" (id, grantId, position, type, actions) VALUES (?, ?, 0, 'incoming-payment', ?)`)
  const insToken = db.prepare(
    `INSERT INTO "AccessToken" (id, grantId, managementId, valueHash, state, expiresIn, expiresAt, createdAt, rotatedAt, previousId)
     VALUES (?, ?, ?, ?, ?, 600, ?, ?, ?, ?)`,
  )
  const hash = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex')
  const newValue = () => randomBytes(24).toString('hex').toUpperCase()
  const actions = JSON.stringify(['create', 'read', 'list'])
  const now = Date.now()
  const grants = Math.ceil(tokens / CHAIN)
  const sampleEvery = Math.max(1, Math.floor(grants / sampleSize))
  const sample: string[] = []
  let written = 0

  const batch = db.transaction((from: number, to: number) => {
    for (let g = from; g < to; g++) {
      const grantId = randomUUID()
      // Spread over the last 30 days, a chain rotated every ten minutes; the live token expires an hour from now.
      const created = now - 30 * 86_400_000 + Math.floor((g / grants) * 29 * 86_400_000)
      insGrant.run(grantId, `https://wallet.example/seed-${g % 500}`, randomUUID(), hash(newValue()), iso(created), iso(created), iso(created))
      insItem.run(randomUUID(), grantId, actions)
      let previousId: string | null = null
      const length = Math.min(CHAIN, tokens - written)
      for (let k = 0; k < length; k++) {
        const id = randomUUID()
        const live = k === length - 1
        const value = newValue()
        const at = created + k * 600_000
        insToken.run(
          id,
          grantId,
          randomUUID(),
          hash(value),
          live ? 'active' : 'rotated',
          iso(live ? now + 3_600_000 : at + 600_000),
          iso(at),
          live ? null : iso(at + 600_000),
          previousId,
        )
        previousId = id
        written++
        if (live && g % sampleEvery === 0 && sample.length < sampleSize) sample.push(value)
      }
    }
  })
  const perTransaction = 20_000
  for (let g = 0; g < grants; g += perTransaction) {
    batch(g, Math.min(grants, g + perTransaction))
    if (grants > perTransaction) process.stdout.write(`\r[bench] seeding: ${written.toLocaleString('en')} tokens…`)
  }
  if (grants > perTransaction) process.stdout.write('\n')
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.close()
  return { tokens: written, grants, seconds: Math.round((performance.now() - started) / 100) / 10, sample }
}
