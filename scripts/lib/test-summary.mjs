// The closing line of `pnpm test` (scripts/test.mjs), summed over the JSON reports every suite writes: vitest's
// (numPassedTests, …, testResults) and Playwright's (stats, suites, errors). Also names every failed test, so the
// tail of a CI log says which one failed.
import fs from 'node:fs'
import path from 'node:path'

/** Failed Playwright specs under `suite`, as `report: file > title`. */
function playwrightFailures(suite, file, report, into) {
  for (const s of suite.suites ?? []) playwrightFailures(s, s.file ?? file, report, into)
  for (const spec of suite.specs ?? []) {
    if (spec.tests?.some((t) => t.status === 'unexpected')) into.push(`${report}: ${spec.file ?? file} > ${spec.title}`)
  }
}

const firstLine = (text) => String(text ?? '').split('\n')[0]

/**
 * Reads every `*.json` report in `dir`. Returns the counts and `failures`: one line per failed test (or per error
 * outside any test), paths relative to `root`.
 */
export function summarizeReports(dir, root) {
  let passed = 0
  let failed = 0
  let skipped = 0
  const failures = []
  for (const f of fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    const r = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'))
    if (r.stats && typeof r.stats.expected === 'number') {
      // Playwright's JSON report: expected = passed, unexpected = failed, flaky = passed on a retry.
      passed += r.stats.expected + (r.stats.flaky ?? 0)
      failed += r.stats.unexpected ?? 0
      // An error outside any test (config, global setup, a file that failed to load) fails the run once.
      if (!r.stats.unexpected && r.errors?.length) failed += 1
      skipped += r.stats.skipped ?? 0
      for (const suite of r.suites ?? []) playwrightFailures(suite, suite.file, f, failures)
      for (const e of r.errors ?? []) failures.push(`${f}: ${firstLine(e.message ?? e)}`)
      continue
    }
    passed += r.numPassedTests ?? 0
    failed += r.numFailedTests ?? 0
    // A file that failed to load has no failed test of its own: count it once.
    if (!r.numFailedTests && r.numFailedTestSuites) failed += r.numFailedTestSuites
    skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0)
    for (const file of r.testResults ?? []) {
      const name = path.relative(root, file.name ?? '')
      const failedHere = (file.assertionResults ?? []).filter((t) => t.status === 'failed')
      for (const t of failedHere) failures.push(`${f}: ${name} > ${t.fullName ?? t.title}: ${firstLine(t.failureMessages?.[0])}`)
      if (failedHere.length === 0 && file.status === 'failed') failures.push(`${f}: ${name}: ${firstLine(file.message)}`)
    }
  }
  return { passed, failed, skipped, failures }
}
