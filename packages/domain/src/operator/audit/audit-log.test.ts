import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { parse } from 'csv-parse/sync'
import { describe, expect, it } from 'vitest'
import { ZodError } from 'zod'
import type { Deps } from '../../protocol/deps'
import { deleteExpiredRecords } from '../retention/retention'
import { useTestDeps } from '../../testing/use-test-deps'
import { insertAuditEntry, type AuditAction } from './audit.repo'
import { auditLogCsv, csvSafeCell } from './audit-csv'
import { ConsoleError } from '../admin/console-error'
import { listAuditLog as listAuditLogParsed, ListAuditLogInputSchema, type ListAuditLogInput } from './list-audit-log'

const t = useTestDeps()

/** The audit log as the router lists it: the console's input parsed by the procedure's schema, then the use case. */
const listAuditLog = async (deps: Deps, input: ListAuditLogInput) => listAuditLogParsed(deps, ListAuditLogInputSchema.parse(input))

const at = (minute: number) => new Date(Date.UTC(2026, 10, 25, 12, minute))

/** Entries at minutes 0..n: who, what, about what. */
async function record(entries: [actor: string, action: AuditAction, target: string, minute: number, detail?: string][]) {
  for (const [actor, action, target, minute, detail] of entries) {
    await insertAuditEntry(t.sql, { actor, action, target, detail: detail ?? null, now: at(minute) })
  }
}

const seed = () =>
  record([
    ['ops@example.com', 'admin.sign-in', 'admin:ops@example.com', 0],
    ['ops@example.com', 'owner.create', 'owner:o1', 1],
    ['ops@example.com', 'owner.disable', 'owner:o1', 2],
    ['ops.second@example.com', 'grant.revoke', 'grant:g1', 3],
    ['support@example.com', 'owner.edit', 'owner:o2', 4],
    ['ops@example.com', 'token.revoke', 'token:t1', 5],
    ['OPS@example.com', 'owner.enable', 'owner:o1', 6],
    ['op%@example.com', 'owner.delete', 'owner:o%', 7],
  ])

/** Every entry the filters keep, following the cursor to the end (pages of 2). */
async function all(input: ListAuditLogInput = {}): Promise<string[]> {
  const seen: string[] = []
  let cursor: string | null = null
  do {
    const page = await listAuditLog(t.deps, { ...input, limit: 2, cursor })
    seen.push(...page.items.map((e) => `${e.at.getUTCMinutes()} ${e.action}`))
    cursor = page.nextCursor
  } while (cursor)
  return seen
}

describe('listAuditLog filters', () => {
  it('lists everything newest first without filters, across pages', async () => {
    await seed()
    expect(await all()).toEqual([
      '7 owner.delete',
      '6 owner.enable',
      '5 token.revoke',
      '4 owner.edit',
      '3 grant.revoke',
      '2 owner.disable',
      '1 owner.create',
      '0 admin.sign-in',
    ])
  })

  it('keeps one actor exactly, or every actor starting with a prefix (case-sensitive, % and _ are plain characters)', async () => {
    await seed()
    expect(await all({ filters: { actor: { value: 'ops@example.com' } } })).toEqual([
      '5 token.revoke',
      '2 owner.disable',
      '1 owner.create',
      '0 admin.sign-in',
    ])
    expect(await all({ filters: { actor: { value: 'ops', match: 'prefix' } } })).toEqual([
      '5 token.revoke',
      '3 grant.revoke',
      '2 owner.disable',
      '1 owner.create',
      '0 admin.sign-in',
    ])
    expect(await all({ filters: { actor: { value: 'op%', match: 'prefix' } } })).toEqual(['7 owner.delete'])
    expect(await all({ filters: { actor: { value: 'op_', match: 'prefix' } } })).toEqual([])
  })

  it('keeps one known action, or the actions starting with a prefix', async () => {
    await seed()
    expect(await all({ filters: { action: { value: 'grant.revoke' } } })).toEqual(['3 grant.revoke'])
    expect(await all({ filters: { action: { value: 'owner.', match: 'prefix' } } })).toEqual([
      '7 owner.delete',
      '6 owner.enable',
      '4 owner.edit',
      '2 owner.disable',
      '1 owner.create',
    ])
  })

  it('keeps one target exactly or by prefix', async () => {
    await seed()
    expect(await all({ filters: { target: { value: 'owner:o1' } } })).toEqual(['6 owner.enable', '2 owner.disable', '1 owner.create'])
    expect(await all({ filters: { target: { value: 'owner:', match: 'prefix' } } })).toHaveLength(5)
    expect(await all({ filters: { target: { value: 'owner:o%', match: 'prefix' } } })).toEqual(['7 owner.delete'])
  })

  it('keeps a half-open time range: from included, to excluded', async () => {
    await seed()
    expect(await all({ filters: { createdFrom: at(2), createdTo: at(5) } })).toEqual(['4 owner.edit', '3 grant.revoke', '2 owner.disable'])
    // ISO 8601 strings (with Z or an offset) mean the same instants.
    expect(await all({ filters: { createdFrom: '2026-11-25T12:02:00Z', createdTo: '2026-11-25T13:05:00+01:00' } })).toEqual([
      '4 owner.edit',
      '3 grant.revoke',
      '2 owner.disable',
    ])
  })

  it('combines filters with AND', async () => {
    await seed()
    expect(
      await all({
        filters: {
          actor: { value: 'ops@example.com' },
          action: { value: 'owner.', match: 'prefix' },
          target: { value: 'owner:o1' },
          createdFrom: at(2),
        },
      }),
    ).toEqual(['2 owner.disable'])
  })

  it('refuses an unknown exact action, an empty or reversed range, dates without a zone and values too long', async () => {
    const refused = async (input: ListAuditLogInput) => expect(listAuditLog(t.deps, input)).rejects.toBeInstanceOf(ZodError)
    await refused({ filters: { action: { value: 'owner.explode' } } })
    await refused({ filters: { createdFrom: at(5), createdTo: at(5) } })
    await refused({ filters: { createdFrom: at(6), createdTo: at(5) } })
    await refused({ filters: { createdFrom: '2026-11-25T12:00:00' } })
    await refused({ filters: { actor: { value: 'x'.repeat(255) } } })
    await refused({ filters: { target: { value: '   ' } } })
    await refused({ filters: { actor: { value: 'a', match: 'contains' as 'prefix' } } })
  })

  it('refuses a cursor made for other filters: it only continues the list it came from', async () => {
    await seed()
    const first = await listAuditLog(t.deps, { limit: 2, filters: { action: { value: 'owner.', match: 'prefix' } } })
    expect(first.nextCursor).not.toBeNull()
    await expect(
      listAuditLog(t.deps, { limit: 2, cursor: first.nextCursor, filters: { action: { value: 'owner.', match: 'exact' as 'prefix' } } }),
    ).rejects.toThrow()
    const error = await listAuditLog(t.deps, { limit: 2, cursor: first.nextCursor }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConsoleError)
    expect((error as ConsoleError).code).toBe('bad_request')
    const next = await listAuditLog(t.deps, { limit: 2, cursor: first.nextCursor, filters: { action: { value: 'owner.', match: 'prefix' } } })
    expect(next.items.map((e) => e.action)).toEqual(['owner.edit', 'owner.disable'])
  })

  it('splits entries of the same instant by id, with none lost or repeated across pages', async () => {
    for (let i = 0; i < 7; i++) await record([['ops@example.com', 'grant.revoke', `grant:g${i}`, 9]])
    const seen = await all({ filters: { actor: { value: 'ops@example.com' } } })
    expect(seen).toHaveLength(7)
    const pages: string[] = []
    let cursor: string | null = null
    do {
      const page = await listAuditLog(t.deps, { limit: 3, cursor })
      pages.push(...page.items.map((e) => e.id))
      cursor = page.nextCursor
    } while (cursor)
    expect(new Set(pages).size).toBe(7)
  })
})

describe('auditLogCsv', () => {
  const text = async (chunks: AsyncIterable<string>) => {
    let out = ''
    for await (const c of chunks) out += c
    return out
  }

  it('writes the filtered entries as RFC 4180 CSV with CRLF lines, newest first', async () => {
    await seed()
    await record([['ops@example.com', 'owner.edit', 'owner:o3', 8, 'name: "Bob, Jr."\nemail changed']])
    const out = await text(auditLogCsv(t.deps, { actor: { value: 'ops@example.com' }, action: { value: 'owner.', match: 'prefix' } }))
    expect(out.startsWith('time,actor,action,target,detail\r\n')).toBe(true)
    expect(out).toContain('"name: ""Bob, Jr.""\nemail changed"')
    expect(parse(out, { columns: true })).toEqual([
      {
        time: '2026-11-25T12:08:00.000Z',
        actor: 'ops@example.com',
        action: 'owner.edit',
        target: 'owner:o3',
        detail: 'name: "Bob, Jr."\nemail changed',
      },
      { time: '2026-11-25T12:02:00.000Z', actor: 'ops@example.com', action: 'owner.disable', target: 'owner:o1', detail: '' },
      { time: '2026-11-25T12:01:00.000Z', actor: 'ops@example.com', action: 'owner.create', target: 'owner:o1', detail: '' },
    ])
  })

  it('puts a quote before cells a spreadsheet would run as a formula', async () => {
    await record([
      ['=HYPERLINK("https://evil.example","x")', 'owner.edit', 'owner:o1', 0, '+1+1'],
      ['@SUM(A1)', 'owner.edit', 'owner:o1', 1, '-2'],
      ['ops@example.com', 'owner.edit', 'owner:o1', 2, '\t=1'],
      ['ops@example.com', 'owner.edit', 'owner:o1', 3, '\r=1'],
      ['ops@example.com', 'owner.edit', 'owner:o1', 4, 'a=1'],
    ])
    const rows = parse(await text(auditLogCsv(t.deps, {})), { columns: true }) as Record<string, string>[]
    expect(rows.map((r) => [r.actor, r.detail])).toEqual([
      ['ops@example.com', 'a=1'],
      ['ops@example.com', "'\r=1"],
      ['ops@example.com', "'\t=1"],
      ["'@SUM(A1)", "'-2"],
      ['\'=HYPERLINK("https://evil.example","x")', "'+1+1"],
    ])
    expect(csvSafeCell('plain')).toBe('plain')
  })

  it('stops at the row cap with a last line saying where, and only when more entries match', async () => {
    await seed()
    const cut = await text(auditLogCsv(t.deps, {}, { maxRows: 3 }))
    const lines = parse(cut, { relax_column_count: true }) as string[][]
    expect(lines).toHaveLength(1 + 3 + 1)
    expect(lines[4]).toEqual([
      'Export stopped after 3 entries: entries older than 2026-11-25T12:05:00.000Z that match these filters are not in this file. Export again with an earlier end to get them.',
    ])
    const whole = await text(auditLogCsv(t.deps, { action: { value: 'owner.', match: 'prefix' } }, { maxRows: 5 }))
    expect(parse(whole)).toHaveLength(1 + 5)
    expect(whole).not.toContain('Export stopped')
  })

  it('refuses bad filters before writing anything', () => {
    expect(() => auditLogCsv(t.deps, { action: { value: 'nope' } })).toThrow(ZodError)
  })
})

describe('the audit log is append-only', () => {
  // No statement of the repositories changes or removes an entry, and no Prisma model call writes to it:
  // every procedure and use case reaches the database through these files (docs/protocol.md §2.15).
  const src = path.resolve(import.meta.dirname, '..')
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
      const p = path.join(dir, d.name)
      if (d.isDirectory()) return d.name === 'generated' || d.name === 'generated-pg' || d.name === 'testing' ? [] : files(p)
      return /\.ts$/.test(d.name) && !/\.test\.ts$/.test(d.name) ? [p] : []
    })

  it('no source file of the domain updates or deletes an AuditLog row', () => {
    const sources = files(src)
    expect(sources.length).toBeGreaterThan(50)
    const offenders = sources.filter((f) => {
      const code = readFileSync(f, 'utf8')
      return (
        /\b(UPDATE|DELETE\s+FROM|TRUNCATE(\s+TABLE)?|REPLACE\s+INTO|INSERT\s+OR\s+REPLACE\s+INTO)\s+"?AuditLog"?/i.test(code) ||
        /\bON\s+CONFLICT[\s\S]{0,80}"AuditLog"/i.test(code) ||
        /\bauditLog\s*\.\s*(update|updateMany|upsert|delete|deleteMany)\b/.test(code)
      )
    })
    expect(offenders).toEqual([])
  })

  it('writing entries and running retention leaves every earlier entry as it was', async () => {
    await seed()
    const before = await t.sql.all<{ id: string; actor: string; action: string; target: string; detail: string | null }>(
      `SELECT "id", "actor", "action", "target", "detail" FROM "AuditLog" ORDER BY "id"`,
    )
    // Years later, past every retention period.
    t.clock.advance(5 * 365 * 86_400)
    await deleteExpiredRecords(t.deps)
    const after = await t.sql.all(`SELECT "id", "actor", "action", "target", "detail" FROM "AuditLog" ORDER BY "id"`)
    expect(after).toEqual(before)
  })
})
