// The time and size of `pnpm db:backup` on a large SQLite database while the server serves, and of the restore:
//
//   pnpm --filter @gnap/bench bench-backup [--tokens 1000000] [--file <a database seeded before>]
//
// Seeds a fresh file in data/ with --tokens access tokens (lib/seed.ts: rotation chains of four; 1M takes many
// minutes on two cores), or takes a copy of --file, starts the server on it under the launcher, and runs
// `pnpm db:backup` while 16 clients introspect tokens; then stops the server, runs `pnpm db:restore` into a fresh
// folder, and prints the figures. The files are deleted at the end.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { migrateFile } from '@gnap/domain/testing'
import { INTROSPECTION_SECRET } from './lib/prepare'
import { Database, seedTokens } from './lib/seed'
import { requireBuild, root, startGnap } from './lib/servers'

const option = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined)
const tokens = Number(option('--tokens') ?? 1_000_000)
if (!Number.isInteger(tokens) || tokens < 1) throw new Error('--tokens needs a whole number')
const given = option('--file')
requireBuild()

/** `pnpm db:backup|db:restore <file>` on `dbFile`, as an operator runs it, in a process of its own; its output. */
function dbCommand(command: 'backup' | 'restore', file: string, dbFile: string): Promise<{ ms: number; output: string }> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(root, 'node_modules', '.bin', 'tsx'), [path.join(root, 'prisma', 'backup.ts'), command, file], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: `file:${dbFile}` },
    })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    child.on('exit', (code) => (code === 0 ? resolve({ ms: performance.now() - started, output: output.trim() }) : reject(new Error(output))))
  })
}

const dir = fs.mkdtempSync(path.join(root, 'data', 'bench-backup-'))
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`
try {
  const dbFile = path.join(dir, 'gnap.db')
  let sample: string[] = []
  if (given) {
    fs.copyFileSync(given, dbFile)
    // The seeded values are not kept (only their hashes): the clients introspect unknown values, one index lookup each.
    sample = Array.from({ length: 64 }, (_, i) => `unknown-token-${i}`)
  } else {
    migrateFile(dbFile)
    const seeded = seedTokens(dbFile, tokens)
    sample = seeded.sample
    console.log(`[bench-backup] seeded ${seeded.tokens.toLocaleString('en')} tokens in ${seeded.seconds} s`)
  }
  const db = new Database(dbFile, { readonly: true })
  const count = (db.prepare('SELECT count(*) AS n FROM AccessToken').get() as { n: number }).n
  db.close()
  console.log(`[bench-backup] ${Number(count).toLocaleString('en')} tokens; database ${mib(fs.statSync(dbFile).size)}`)

  const server = await startGnap(dbFile, { LOG_LEVEL: 'warn' }, 1)
  let backingUp = true
  const answers = { ok: 0, other: 0, failed: 0 }
  const client = async (i: number) => {
    for (let n = i; backingUp; n += 16) {
      const res = await fetch(`${server.url}introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${INTROSPECTION_SECRET}` },
        body: JSON.stringify({ access_token: sample[n % sample.length] }),
      })
      await res.text()
      if (res.status === 200) answers.ok++
      else answers.failed++
    }
  }
  const clients = Array.from({ length: 16 }, (_, i) => client(i))
  await new Promise((r) => setTimeout(r, 1000))
  const before = { ...answers }
  const backupFile = path.join(dir, 'backup.db')
  const backup = await dbCommand('backup', backupFile, dbFile)
  const during = { ok: answers.ok - before.ok, failed: answers.failed - before.failed }
  backingUp = false
  await Promise.all(clients)
  await server.stop()
  console.log(
    `[bench-backup] pnpm db:backup while serving: ${(backup.ms / 1000).toFixed(1)} s in all (${backup.output}); ` +
      `meanwhile ${during.ok} introspections answered 200, ${during.failed} otherwise`,
  )
  const restoredDir = fs.mkdtempSync(path.join(dir, 'restored-'))
  const restored = await dbCommand('restore', backupFile, path.join(restoredDir, 'gnap.db'))
  console.log(`[bench-backup] pnpm db:restore into a fresh folder: ${(restored.ms / 1000).toFixed(1)} s in all (${restored.output})`)
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
