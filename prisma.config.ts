// Prisma CLI configuration: migrations run on the WebAssembly schema engine through the better-sqlite3
// driver adapter, so no engine binary is downloaded (see README, "Prisma without downloaded engines").
import path from 'node:path'
import fs from 'node:fs'
import { defineConfig } from 'prisma/config'
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3'

const defaultUrl = `file:${path.join(__dirname, 'data', 'gnap.db')}`
const url = process.env.DATABASE_URL ?? defaultUrl
process.env.DATABASE_URL = url
process.env.CHECKPOINT_DISABLE = '1'

// Create the folder of a SQLite file so a fresh clone migrates without a manual step.
if (url.startsWith('file:')) fs.mkdirSync(path.dirname(url.slice('file:'.length)), { recursive: true })

// The shadow database of `migrate dev` receives each migration as one multi-statement query, which
// better-sqlite3 refuses: replay those statement by statement.
function withScriptSafeShadow(factory: PrismaBetterSQLite3) {
  const connect = factory.connectToShadowDb.bind(factory)
  factory.connectToShadowDb = async () => {
    const db = await connect()
    const executeRaw = db.executeRaw.bind(db)
    db.executeRaw = async (q) => (q.args.length === 0 ? (await db.executeScript(q.sql), 0) : executeRaw(q))
    return db
  }
  return factory
}

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: path.join('prisma', 'schema.prisma'),
  migrations: { path: path.join('prisma', 'migrations') },
  adapter: async () => withScriptSafeShadow(new PrismaBetterSQLite3({ url })),
})
