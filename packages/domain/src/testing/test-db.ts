import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { openDb, type Db } from '../db/client'

const repoRoot = path.resolve(import.meta.dirname, '../../../..')

/** A migrated SQLite file of its own for one test file: a copy of the template made by the global setup. */
export async function createTestDb(): Promise<{ db: Db; url: string; cleanup: () => Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-test-'))
  const file = path.join(dir, 'test.db')
  const template = process.env.GNAP_TEMPLATE_DB
  if (template && fs.existsSync(template)) fs.copyFileSync(template, file)
  else migrateFile(file)
  const url = `file:${file}`
  const db = await openDb(url)
  return {
    db,
    url,
    cleanup: async () => {
      await db.$disconnect()
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Applies the migrations to a SQLite file with the Prisma CLI. */
export function migrateFile(file: string): void {
  execFileSync(path.join(repoRoot, 'node_modules/.bin/prisma'), ['migrate', 'deploy'], {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL: `file:${file}`, CHECKPOINT_DISABLE: '1' },
    stdio: 'pipe',
  })
}
