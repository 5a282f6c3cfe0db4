#!/usr/bin/env node
// `pnpm test:pg`: the domain and api suites again, on PostgreSQL. Starts nothing: TEST_DATABASE_URL must name a
// running server (a postgresql:// URL of a role with CREATEDB; see docs/postgresql.md).
// Each test file gets its own database made from a migrated template. Reports go to TEST_REPORT_DIR as
// domain-pg.json and api-pg.json, so `pnpm test`'s closing line counts them beside the SQLite runs.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const url = process.env.TEST_DATABASE_URL
if (!url || !/^postgres(ql)?:\/\//.test(url)) {
  console.error('[test:pg] set TEST_DATABASE_URL to a postgresql:// URL of a role with CREATEDB')
  process.exit(2)
}
const reports = process.env.TEST_REPORT_DIR ?? path.join(root, 'test-results')
fs.mkdirSync(reports, { recursive: true })
const env = { ...process.env, CHECKPOINT_DISABLE: '1' }
let status = 0
for (const [pkg, report] of [
  ['domain', 'domain-pg.json'],
  ['api', 'api-pg.json'],
]) {
  console.log(`[test:pg] packages/${pkg} on PostgreSQL`)
  const run = spawnSync(
    path.join(root, 'packages', pkg, 'node_modules', '.bin', 'vitest'),
    ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${path.join(reports, report)}`],
    { cwd: path.join(root, 'packages', pkg), env, stdio: 'inherit' },
  )
  if (run.status !== 0) status = run.status ?? 1
}
process.exit(status)
