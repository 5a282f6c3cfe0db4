#!/usr/bin/env node
// `pnpm test`: every suite, then one closing line summed over all suites from their JSON reports, exactly
// `N passed, N failed` (skipped tests, such as a PostgreSQL-only test in the SQLite run, are counted on the line
// before it). In three steps (docs/architecture.md, "Where the test time goes"):
//   1. the build (turbo `build`: the end-to-end tests run `next start` and the compiled launcher);
//   2. the suites that need no server, on both cores at once: domain, api and launcher on SQLite through turbo, and
//      beside them, with TEST_DATABASE_URL set (CI), domain and api on PostgreSQL (scripts/test-pg.mjs), each of
//      which keeps one core busy (vitest runs one file at a time on two cores);
//   3. the web suites, alone on the machine since their timings count: the HTTP tests against `next start`
//      (apps/web/test), then the browser tests (apps/web/e2e), skipped with one line when there is no chromium.
// Arguments go to every turbo run (e.g. `pnpm test --filter=@gnap/api`).
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { fileURLToPath } from 'node:url'
import { summarizeReports } from './lib/test-summary.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const reports = path.join(root, 'test-results')
fs.rmSync(reports, { recursive: true, force: true })
fs.mkdirSync(reports, { recursive: true })

const env = { ...process.env, CHECKPOINT_DISABLE: '1', NEXT_TELEMETRY_DISABLED: '1', TURBO_TELEMETRY_DISABLED: '1', TEST_REPORT_DIR: reports }
// The turbo runs are the SQLite runs, whatever the caller's environment; with TEST_DATABASE_URL set (CI), the domain
// and api suites also run on PostgreSQL, their reports counted below with the rest.
const pgUrl = env.TEST_DATABASE_URL
delete env.TEST_DATABASE_URL
// The web suite's multi-instance, crash and database-outage tests run the server on PostgreSQL too.
if (pgUrl) env.MULTI_INSTANCE_PG_URL = pgUrl
const extra = process.argv.slice(2)
// With `--filter`s among them, each step runs only if some filter is about its packages.
const filters = extra.filter((a) => a.startsWith('--filter'))
const wantsWeb = filters.length === 0 || filters.some((f) => f.includes('@gnap/web'))
const wantsUnits = filters.length === 0 || filters.some((f) => !f.includes('@gnap/web'))

/** Runs `command`; resolves with its exit status (1 when killed). With `prefix`, each output line is prefixed. */
function run(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env: options.env ?? env, stdio: options.prefix ? ['ignore', 'pipe', 'pipe'] : 'inherit' })
    if (options.prefix) {
      for (const stream of [child.stdout, child.stderr]) {
        readline.createInterface({ input: stream }).on('line', (line) => console.log(`${options.prefix}${line}`))
      }
    }
    child.on('error', (e) => {
      console.error(`[test] ${command}: ${e.message}`)
      resolve(1)
    })
    child.on('close', (code) => resolve(code ?? 1))
  })
}

const turbo = (tasks, filter) =>
  run(path.join(root, 'node_modules/.bin/turbo'), ['run', ...tasks, '--continue', '--concurrency=1', '--only', filter, ...extra])
const seconds = (since) => `${Math.round((Date.now() - since) / 1000)} s`
const timings = []
async function step(name, work) {
  const since = Date.now()
  const statuses = await Promise.all(work())
  timings.push(`${name} ${seconds(since)}`)
  return statuses.find((s) => s !== 0) ?? 0
}

// The browser tests drive chromium at CHROMIUM_PATH (default /usr/bin/chromium, apps/web/playwright.config.ts).
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
let hasChromium = true
try {
  fs.accessSync(chromium, fs.constants.X_OK)
} catch {
  hasChromium = false
}
const specFiles = fs.readdirSync(path.join(root, 'apps', 'web', 'e2e')).filter((f) => f.endsWith('.spec.ts')).length
const noChromium = `[test] no chromium at ${chromium}: the browser suite (apps/web/e2e, ${specFiles} spec files) is skipped; install it with \`apt-get install chromium\` (or set CHROMIUM_PATH)`
if (!hasChromium) console.log(noChromium)

const built = await step('build', () => [run(path.join(root, 'node_modules/.bin/turbo'), ['run', 'build', '//#db:generate', ...extra])])
const units = await step('domain, api, launcher beside PostgreSQL', () => [
  wantsUnits ? turbo(['test'], '--filter=!@gnap/web') : 0,
  pgUrl ? run(process.execPath, [path.join(root, 'scripts', 'test-pg.mjs')], { env: { ...env, TEST_DATABASE_URL: pgUrl }, prefix: '[pg] ' }) : 0,
])
if (!pgUrl) console.log('[test] TEST_DATABASE_URL not set: the PostgreSQL run is skipped (pnpm test:pg; CI sets it)')
// Without a build there is no server to test: the web suites are not run, and the build's failure fails the run.
const webTasks = hasChromium ? ['test', 'test:e2e'] : ['test']
const web = built === 0 && wantsWeb ? await step('web HTTP and browser', () => [turbo(webTasks, '--filter=@gnap/web')]) : 0

const { passed, failed: failedTests, skipped, failures } = summarizeReports(reports, root)
let failed = failedTests
const status = built || units || web
// A suite that crashed before writing its report still fails the run.
if (status !== 0 && failed === 0) {
  failed = 1
  failures.push('a suite ended with an error and no failed test in its report (see its output above)')
}
console.log(`[test] time: ${timings.join(', ')}`)
if (failures.length) console.log(`[test] failed:\n${failures.map((x) => `  ${x}`).join('\n')}`)
if (!hasChromium) console.log(noChromium)
if (skipped) console.log(`[test] ${skipped} skipped: tests that need PostgreSQL where the suite runs without it`)
console.log(`${passed} passed, ${failed} failed`)
process.exit(status)
