// Migrates a template SQLite file once; each test file copies it (see src/testing/test-db.ts), so files run
// in parallel on real SQLite without truncating each other's data.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export default function setup() {
  const root = path.resolve(import.meta.dirname, '../../..')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-template-'))
  const file = path.join(dir, 'template.db')
  execFileSync(path.join(root, 'node_modules/.bin/prisma'), ['migrate', 'deploy'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: `file:${file}`, CHECKPOINT_DISABLE: '1' },
    stdio: 'pipe',
  })
  process.env.GNAP_TEMPLATE_DB = file
  return () => fs.rmSync(dir, { recursive: true, force: true })
}
