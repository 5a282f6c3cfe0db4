import { parse } from 'csv-parse/sync'

// Reading an operator's file of owners for `pnpm owners import` (docs/protocol.md §7): CSV with the header
// `email,name,wallet_addresses` (addresses separated by spaces or `;`), or JSON Lines of
// `{"email","name","walletAddresses":[…]}`. Text in, rows out: the use case validates each row.

/** One row as read, with its line in the file; `problem` when the row could not even be read. */
export type OwnerFileRow = { line: number; email: unknown; name: unknown; walletAddresses: unknown } | { line: number; problem: string }

export type OwnerFileFormat = 'csv' | 'jsonl'

/** The format named by a file's extension, else guessed from its first character (`{` → JSON Lines). */
export function ownerFileFormat(fileName: string, text: string): OwnerFileFormat {
  const lower = fileName.toLowerCase()
  if (lower.endsWith('.csv')) return 'csv'
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl'
  return text
    .replace(/^\uFEFF/, '')
    .trimStart()
    .startsWith('{')
    ? 'jsonl'
    : 'csv'
}

/**
 * The rows of an owner file.
 * @throws Error when the file as a whole cannot be read (a CSV without the expected header, broken CSV quoting)
 */
export function parseOwnerFile(text: string, format: OwnerFileFormat): OwnerFileRow[] {
  return format === 'csv' ? parseCsv(text) : parseJsonLines(text)
}

const COLUMNS = ['email', 'name', 'wallet_addresses'] as const

function parseCsv(text: string): OwnerFileRow[] {
  const records = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true, trim: true, info: true }) as unknown as {
    record: string[]
    info: { lines: number }
  }[]
  const [header, ...rows] = records
  const names = header?.record.map((h) => h.toLowerCase()) ?? []
  const at = COLUMNS.map((c) => names.indexOf(c))
  if (at.some((i) => i < 0)) throw new Error(`the first line must be the header ${COLUMNS.join(',')}`)
  const [emailAt, nameAt, addressesAt] = at as [number, number, number]
  return rows.map(({ record, info }) => ({
    line: info.lines,
    email: record[emailAt] ?? '',
    name: record[nameAt] ?? '',
    walletAddresses: (record[addressesAt] ?? '').split(/[\s;]+/).filter((a) => a !== ''),
  }))
}

function parseJsonLines(text: string): OwnerFileRow[] {
  const rows: OwnerFileRow[] = []
  text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .forEach((raw, i) => {
      const line = i + 1
      if (raw.trim() === '') return
      let value: unknown
      try {
        value = JSON.parse(raw)
      } catch {
        rows.push({ line, problem: 'the line is not valid JSON' })
        return
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        rows.push({ line, problem: 'the line is not a JSON object' })
        return
      }
      const o = value as Record<string, unknown>
      rows.push({ line, email: o.email, name: o.name, walletAddresses: o.walletAddresses })
    })
  return rows
}
