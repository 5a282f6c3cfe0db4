import { stringify } from 'csv-stringify/sync'
import type { z } from 'zod'
import type { Deps } from '../../protocol/deps'
import { findAuditEntries } from './audit.repo'
import { AuditLogFiltersSchema } from './list-audit-log'
import { rowsOfTenant } from '../../protocol/tenant/tenants'

// The audit log as CSV (RFC 4180) for spreadsheets and archives (docs/protocol.md §2.15): read in keyset pages and
// handed out chunk by chunk, so an export never holds the whole log in memory.

/** At most this many entries per export; a longer log ends with a note saying where it stopped. */
export const AUDIT_EXPORT_MAX_ROWS = 100_000

const PAGE = 500

export const AUDIT_CSV_COLUMNS = ['time', 'actor', 'action', 'target', 'detail'] as const

// A cell a spreadsheet would read as a formula (or a cell that only looks empty before one): quoted with a leading
// apostrophe, which spreadsheets show as text (OWASP's advice on CSV injection).
const FORMULA_START = /^[=+\-@\t\r]/

/** The text of one cell, safe to open in a spreadsheet: a leading `= + - @`, tab or CR gets a `'` in front. */
export const csvSafeCell = (text: string): string => (FORMULA_START.test(text) ? `'${text}` : text)

const csv = (records: string[][]) => stringify(records, { record_delimiter: '\r\n' })

/**
 * The filtered log, newest first, as CSV chunks: the header line with the first page, then one chunk per page. Stops after `maxRows`
 * entries with a last line saying so when more match. `tenantId`: the caller's binding (docs/protocol.md §2.21), whose
 * tenant's entries alone it exports.
 * @throws ZodError for filters out of range (at once, before any chunk)
 */
export function auditLogCsv(
  deps: Deps,
  filtersInput: z.input<typeof AuditLogFiltersSchema>,
  opts: { maxRows?: number; tenantId?: string | null } = {},
): AsyncGenerator<string, void, undefined> {
  const filters = AuditLogFiltersSchema.parse(filtersInput)
  const maxRows = opts.maxRows ?? AUDIT_EXPORT_MAX_ROWS
  const tenants = [opts.tenantId ?? null, filters.tenantId ?? null].filter((t): t is string => t !== null).map((t) => rowsOfTenant(deps, t))
  return (async function* () {
    let after: { createdAt: Date; id: string } | null = null
    let written = 0
    for (;;) {
      const take = Math.min(PAGE, maxRows - written)
      const rows = await findAuditEntries(deps.reads, { filters, after, take: take + 1, tenants })
      const page = rows.slice(0, take)
      const records = page.map((r) => [r.createdAt.toISOString(), r.actor, r.action, r.target, r.detail ?? ''].map(csvSafeCell))
      // The header goes with the first page, so a database that fails does so before anything was written.
      yield csv(after === null && written === 0 ? [[...AUDIT_CSV_COLUMNS], ...records] : records)
      written += page.length
      const last = page[page.length - 1]
      if (rows.length <= take || !last) return
      if (written >= maxRows) {
        yield csv([
          [
            `Export stopped after ${maxRows} entries: entries older than ${last.createdAt.toISOString()} that match these filters are not in this file. Export again with an earlier end to get them.`,
          ],
        ])
        return
      }
      after = { createdAt: last.createdAt, id: last.id }
    }
  })()
}
