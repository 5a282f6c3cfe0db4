// Tables for the terminal.
import type { RunResult } from './load'
import { txnPerFlushCell, type BatchDelta } from './metrics'

export interface Row extends RunResult {
  /**
   * Peak RSS during the run, MB: the sum over every process of the server (a launcher's primary and workers, or
   * several instances), and the largest serving process (the largest worker; the process itself without workers).
   */
  rssTreeMb: number
  rssProcessMb: number
  /** CPU time of the server's processes per answered request, ms: 1000 / this is what one core could serve. */
  serverCpuMsPerRequest: number
  /** CPU time of the load generator (this process) per request, ms. */
  clientCpuMsPerRequest: number
  /**
   * SQLite servers only (they have a metrics port): the write batches committed during the run and the transactions
   * in them, from the server's counters scraped right before and right after it; null when the server does not
   * expose them. Absent for servers without a metrics port (baselines, PostgreSQL).
   */
  batches?: BatchDelta | null
}

export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))]
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)))
  const line = (r: string[]) => r.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n')
}

/** The cells of `keys` of one run (`-` where the run or its figure is missing), for the side-by-side tables. */
export function cellsOf<T extends object>(row: T | null | undefined, ...keys: (keyof T)[]): (string | number)[] {
  return keys.map((k) => {
    const v: unknown = row?.[k]
    return typeof v === 'number' || typeof v === 'string' ? v : '-'
  })
}

/** Every run's figures; the `txn/flush` column when any row was measured with a metrics port (the SQLite servers). */
export function resultTable(rows: Row[]): string {
  const batches = rows.some((r) => r.batches !== undefined)
  return table(
    [
      'operation',
      'target',
      'conc',
      'req/s',
      'p50 ms',
      'p99 ms',
      'max ms',
      'errors',
      'non-2xx',
      'RSS MB/proc',
      'RSS MB sum',
      'CPU ms/req',
      ...(batches ? ['txn/flush'] : []),
    ],
    rows.map((r) => [
      r.op,
      r.target,
      r.connections,
      r.rps,
      r.p50,
      r.p99,
      r.max,
      r.errors,
      r.failures,
      r.rssProcessMb,
      r.rssTreeMb,
      r.serverCpuMsPerRequest,
      ...(batches ? [txnPerFlushCell(r.batches)] : []),
    ]),
  )
}

/** A loud block for runs with errors or unexpected answers: those figures are not valid. */
export function loudFailures(rows: Row[]): string | null {
  const bad = rows.filter((r) => r.errors > 0 || r.failures > 0)
  if (bad.length === 0) return null
  const lines = bad.map(
    (r) =>
      `  ${r.target} ${r.op} @${r.connections}: ${r.errors} errors (${r.timeouts} timeouts), ${r.failures} unexpected answers ${JSON.stringify(r.statuses)}\n` +
      r.samples.map((s) => `      ${s}`).join('\n'),
  )
  const bar = '!'.repeat(78)
  const onlyTimeouts = bad.every((r) => r.failures === 0 && r.errors === r.timeouts)
  const note = onlyTimeouts
    ? '\n!!! All of them are timeouts (no answer in 10 s). A Node process whose event loop is saturated accepts about one\n' +
      '!!! new connection per loop turn, so at high concurrency the last connections wait seconds for their first\n' +
      '!!! answer; compare the floor and the ceiling at the same concurrency (docs/benchmark.md).'
    : ''
  return `${bar}\n!!! ERRORS: these runs had failures; their figures do not count\n${lines.join('\n')}${note}\n${bar}`
}
