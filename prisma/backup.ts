// `pnpm db:backup <file>`: a consistent copy of the SQLite database into <file>, safe while the server serves
// (SQLite's online backup API, packages/domain/src/kernel/db/backup.ts); `pnpm db:restore <file>`: puts such a copy in place
// of the database, refused while a server uses it. Both use DATABASE_URL like `pnpm start` (default: data/gnap.db).
// For PostgreSQL they say what to run instead (pg_dump, pg_restore). Exit code 0 on success, 1 on refusal or failure,
// 2 on a usage error.
import path from 'node:path'
import { BackupError, backupSqlite, restoreSqlite } from '@gnap/domain/backup'

const root = path.resolve(import.meta.dirname, '..')
const [command, file, ...rest] = process.argv.slice(2)
if ((command !== 'backup' && command !== 'restore') || !file || rest.length > 0) {
  console.error('usage: pnpm db:backup <file> | pnpm db:restore <file>')
  process.exit(2)
}
const databaseUrl = process.env.DATABASE_URL || `file:${path.join(root, 'data', 'gnap.db')}`
// A relative <file> is taken from where the command was typed (pnpm runs scripts from the repository's root).
const where = path.resolve(process.env.INIT_CWD ?? process.cwd(), file)

async function main(): Promise<void> {
  if (command === 'backup') {
    const { file: out, bytes, ms } = await backupSqlite(databaseUrl, where)
    console.log(`[db:backup] ${out}: ${(bytes / 1024 / 1024).toFixed(1)} MiB in ${(ms / 1000).toFixed(1)} s`)
  } else {
    const { file: db, bytes } = restoreSqlite(databaseUrl, where)
    console.log(`[db:restore] ${db} restored from ${where} (${(bytes / 1024 / 1024).toFixed(1)} MiB)`)
  }
}

main().catch((e: unknown) => {
  console.error(`[db:${command}] ${e instanceof BackupError ? e.message : e instanceof Error ? e.message : String(e)}`)
  process.exit(1)
})
