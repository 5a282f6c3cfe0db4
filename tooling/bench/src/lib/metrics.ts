// SQLite's write batches, read from a bench server's metrics port (METRICS_PORT: under the launcher its primary
// answers GET /metrics on 127.0.0.1 without a secret, with every worker's counters summed). Two counters, scraped
// right before and right after a measured run:
//   gnap_sqlite_commit_batches_total        write batches committed, each one flush of the write-ahead log
//   gnap_sqlite_batched_transactions_total  write transactions committed in those batches
// Their differences give the transactions per flush of that run. A server without these counters (or without
// metrics) gives no figure: the bench prints "-".

export const COMMIT_BATCHES = 'gnap_sqlite_commit_batches_total'
export const BATCHED_TRANSACTIONS = 'gnap_sqlite_batched_transactions_total'

/** The two counters at one moment; null for a counter the server does not expose. */
export interface BatchCounters {
  batches: number | null
  transactions: number | null
}

/** A run's batches: how many flushes, how many transactions in them, and their ratio (null without a figure). */
export interface BatchDelta {
  batches: number
  transactions: number
  txnPerFlush: number | null
}

/** A sample line of the text exposition: `name{labels} value [timestamp]`; comments and blank lines are skipped. */
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{.*\})?\s+(\S+)/

/** The sum of every sample of the metric `name` (all label sets), or null when the text has none. */
export function counterValue(text: string, name: string): number | null {
  let sum: number | null = null
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue
    const m = SAMPLE.exec(line.trim())
    if (m?.[1] !== name) continue
    const value = Number(m[2])
    if (Number.isFinite(value)) sum = (sum ?? 0) + value
  }
  return sum
}

/** Both counters from 127.0.0.1:`port`; null when the scrape fails (no answer within 5 s, or not a 200). */
export async function scrapeBatches(port: number): Promise<BatchCounters | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5_000) })
    if (!res.ok) return null
    const text = await res.text()
    return { batches: counterValue(text, COMMIT_BATCHES), transactions: counterValue(text, BATCHED_TRANSACTIONS) }
  } catch {
    return null
  }
}

/** What happened between two scrapes; null when either scrape or either counter is missing. */
export function batchDelta(before: BatchCounters | null, after: BatchCounters | null): BatchDelta | null {
  if (before?.batches == null || before.transactions == null || after?.batches == null || after.transactions == null) return null
  const batches = after.batches - before.batches
  const transactions = after.transactions - before.transactions
  return { batches, transactions, txnPerFlush: batches > 0 ? Math.round((transactions / batches) * 10) / 10 : null }
}

/** The table cell: transactions per flush with one decimal, or "-". */
export const txnPerFlushCell = (delta: BatchDelta | null | undefined): string => (delta?.txnPerFlush == null ? '-' : delta.txnPerFlush.toFixed(1))
