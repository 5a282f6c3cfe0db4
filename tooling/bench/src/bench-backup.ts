// The time and size of `pnpm db:backup` on a large SQLite database while the server serves, and of the restore:
//
//   pnpm --filter @gnap/bench bench-backup [--tokens 1000000]
//
// Seeds a fresh file in data/ with --tokens access tokens (lib/seed.ts: rotation chains of four), starts the server
// on it under the launcher, and takes the backup with the same code as `pnpm db:backup` while 16 clients introspect
// seeded tokens; then stops the server, restores the copy into a fresh folder (`pnpm db:restore`'s code), and prints
// the figures. The files are deleted at the end.
import fs from 'node:fs'
import path from 'node:path'
import { backupSqlite, restoreSqlite } from '@gnap/domain/backup'
import { migrateFile } from '@gnap/domain/testing'
import { INTROSPECTION_SECRET } from './lib/prepare'
import { seedTokens } from './lib/seed'
import { requireBuild, root, startGnap } from './lib/servers'

const arg = process.argv.indexOf('--tokens')
const tokens = arg >= 0 ? Number(process.argv[arg + 1]) : 1_000_000
if (!Number.isInteger(tokens) || tokens < 1) throw new Error('--tokens needs a whole number')
requireBuild()

const dir = fs.mkdtempSync(path.join(root, 'data', 'bench-backup-'))
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`
try {
  const dbFile = path.join(dir, 'gnap.db')
  migrateFile(dbFile)
  const seeded = seedTokens(dbFile, tokens)
  console.log(`[bench-backup] seeded ${seeded.tokens.toLocaleString('en')} tokens in ${seeded.seconds} s; database ${mib(fs.statSync(dbFile).size)}`)

  const server = await startGnap(dbFile, { LOG_LEVEL: 'warn' }, 1)
  let backingUp = true
  const answers = { ok: 0, other: 0 }
  const client = async (i: number) => {
    for (let n = i; backingUp; n += 16) {
      const res = await fetch(`${server.url}introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${INTROSPECTION_SECRET}` },
        body: JSON.stringify({ access_token: seeded.sample[n % seeded.sample.length] }),
      })
      const body = (await res.json()) as { active?: boolean }
      if (res.status === 200 && body.active) answers.ok++
      else answers.other++
    }
  }
  const clients = Array.from({ length: 16 }, (_, i) => client(i))
  await new Promise((r) => setTimeout(r, 1000))
  const before = { ...answers }
  const backupFile = path.join(dir, 'backup.db')
  const backup = await backupSqlite(`file:${dbFile}`, backupFile)
  const during = { ok: answers.ok - before.ok, other: answers.other - before.other }
  backingUp = false
  await Promise.all(clients)
  await server.stop()
  console.log(
    `[bench-backup] backup while serving: ${(backup.ms / 1000).toFixed(1)} s, ${mib(backup.bytes)}; ` +
      `${during.ok} introspections answered active during it, ${during.other} otherwise`,
  )

  const restoredDir = fs.mkdtempSync(path.join(dir, 'restored-'))
  const started = performance.now()
  const restored = restoreSqlite(`file:${path.join(restoredDir, 'gnap.db')}`, backupFile)
  console.log(
    `[bench-backup] restore into a fresh folder (with its quick_check): ${((performance.now() - started) / 1000).toFixed(1)} s, ${mib(restored.bytes)}`,
  )
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
