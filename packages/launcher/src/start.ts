// `pnpm start` (node packages/launcher/dist/start.js): apply pending migrations to DATABASE_URL (creating the SQLite
// file), seed the demo client into an empty database, and serve the production build on PORT with WEB_CONCURRENCY
// worker processes (serve.ts, run in this process). Outside production, missing settings get local defaults
// (announced, secrets written to data/secrets.json with mode 0600, never printed). data/, the SQLite database and the
// secrets files are made private to this user before anything is served (private-files.ts).
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { applyLocalDefaults } from './local-settings.js'
import { pathWithThisNode, requireNodeRuntime } from './node-runtime.js'
import { makeFilesPrivate, sqliteFile } from './private-files.js'
import { applyLauncherAliases } from './rafiki-names.js'
import { launcherSettings, serve } from './serve.js'

/** The repository (this module runs from packages/launcher/dist). */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
const dataDir = path.join(root, 'data')
requireNodeRuntime('start')
const env: Record<string, string | undefined> = { ...process.env, CHECKPOINT_DISABLE: '1', NEXT_TELEMETRY_DISABLED: '1' }
// prisma and tsx below, and anything they start, run on this very node.
env.PATH = pathWithThisNode(env.PATH)
// Rafiki's AUTH_PORT and AUTH_DATABASE_URL, under our names before anything reads them (the migrations, the seed).
const conflicts = applyLauncherAliases(env)
if (conflicts.length > 0) {
  console.error(`[start] Invalid setting:\n${conflicts.map((c) => `  ${c}`).join('\n')}`)
  process.exit(1)
}
env.PORT ||= '3000'
// The launcher's settings (WEB_CONCURRENCY, PORT, …) are checked before anything touches the database.
try {
  launcherSettings(env)
} catch (e) {
  console.error(`[start] ${(e as Error).message}`)
  process.exit(1)
}
env.DATABASE_URL ||= `file:${path.join(dataDir, 'gnap.db')}`

const missing = applyLocalDefaults(env, { tag: 'start', authServerUrl: `http://localhost:${env.PORT}` })
if (missing.length) {
  console.error(`[start] NODE_ENV=production requires: ${missing.join(', ')}`)
  process.exit(1)
}

// The SQLite file is created here, 0600, before the migrations write to it; what already exists gets its mode too.
const privateFiles = { dataDir, dbFile: sqliteFile(env.DATABASE_URL, root) }
makeFilesPrivate(privateFiles)

const prisma = path.join(root, 'node_modules', '.bin', 'prisma')
const migrate = spawnSync(prisma, ['migrate', 'deploy'], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' })
if (migrate.status !== 0) {
  process.stdout.write(migrate.stdout ?? '')
  console.error('[start] migrations failed')
  process.exit(1)
}
console.log('[start] database migrated')

const seed = spawnSync(path.join(root, 'node_modules', '.bin', 'tsx'), [path.join(root, 'prisma', 'seed.ts')], { cwd: root, env, stdio: 'inherit' })
if (seed.status !== 0) process.exit(seed.status ?? 1)
// Again after the seed, which may have written data/demo-client.json or left a -wal and -shm behind.
makeFilesPrivate(privateFiles)

// WEB_CONCURRENCY workers of `next start` on PORT, supervised by this process.
serve(env)
