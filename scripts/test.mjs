#!/usr/bin/env node
// `pnpm test`: every suite through turbo (builds first, since the end-to-end tests run `next start`): the vitest
// suites (`test`) and the Playwright browser tests (`test:e2e`). Then one closing line summed over all suites
// from their JSON reports, exactly `N passed, N failed` (skipped tests, such as a PostgreSQL-only test in the SQLite
// run, are counted on the line before it).
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { summarizeReports } from './lib/test-summary.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const reports = path.join(root, 'test-results')
fs.rmSync(reports, { recursive: true, force: true })
fs.mkdirSync(reports, { recursive: true })

const env = { ...process.env, CHECKPOINT_DISABLE: '1', NEXT_TELEMETRY_DISABLED: '1', TURBO_TELEMETRY_DISABLED: '1', TEST_REPORT_DIR: reports }
// The turbo run is the SQLite run, whatever the caller's environment; with TEST_DATABASE_URL set (CI), the domain
// and api suites then run again on PostgreSQL (scripts/test-pg.mjs), their reports counted below with the rest.
const pgUrl = env.TEST_DATABASE_URL
delete env.TEST_DATABASE_URL
// The web suite's multi-instance, crash and database-outage tests run the server on PostgreSQL too.
if (pgUrl) env.MULTI_INSTANCE_PG_URL = pgUrl
const turbo = spawnSync(
  path.join(root, 'node_modules/.bin/turbo'),
  ['run', 'test', 'test:e2e', '--continue', '--concurrency=1', ...process.argv.slice(2)],
  {
    cwd: root,
    env,
    stdio: 'inherit',
  },
)
const pg = pgUrl
  ? spawnSync(process.execPath, [path.join(root, 'scripts', 'test-pg.mjs')], {
      cwd: root,
      env: { ...env, TEST_DATABASE_URL: pgUrl },
      stdio: 'inherit',
    })
  : null
if (!pgUrl) console.log('[test] TEST_DATABASE_URL not set: the PostgreSQL run is skipped (pnpm test:pg; CI sets it)')

const { passed, failed: failedTests, skipped, failures } = summarizeReports(reports, root)
let failed = failedTests
const status = (turbo.status ?? 1) || (pg ? (pg.status ?? 1) : 0)
// A suite that crashed before writing its report still fails the run.
if (status !== 0 && failed === 0) {
  failed = 1
  failures.push('a suite ended with an error and no failed test in its report (see its output above)')
}
if (failures.length) console.log(`[test] failed:\n${failures.map((x) => `  ${x}`).join('\n')}`)
if (skipped) console.log(`[test] ${skipped} skipped: tests that need PostgreSQL where the suite runs without it`)
console.log(`${passed} passed, ${failed} failed`)
process.exit(status)
