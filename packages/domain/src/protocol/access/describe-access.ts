import { type DateTime, type Duration } from 'luxon'
import type { AccessItem, AccessType, Amount, OutgoingAccess } from './access.wire'
import { parseInterval } from './interval'

// Plain-English descriptions of access items for the resource owner (consent screen, admin console).
// Pure, no I/O, never throws on validated items: a schedule we cannot read is shown verbatim.
// Wording rules (the tests are the full list):
// - amounts: exact decimal of value / 10^assetScale (BigInt), every scale digit kept, commas between thousands;
// - dates in UTC, "1 December 2026", plus " at 14:15 UTC" when the time is not midnight;
// - docs/protocol.md §6: `R<n>` = n repetitions after the first period, so n + 1 periods in all; `R`/`R-1` = no end.

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'] as const

/** `{value:'123456789', assetCode:'USD', assetScale:2}` → `1,234,567.89 USD`. */
export function formatAmount(amount: Amount): string {
  const { value, assetCode, assetScale } = amount
  // Validated amounts always pass; anything else is shown as given rather than guessed at.
  if (!/^\d+$/.test(value) || !Number.isInteger(assetScale) || assetScale < 0 || assetScale > 255) {
    return `${value} ${assetCode}`
  }
  const units = BigInt(value)
  const one = 10n ** BigInt(assetScale)
  const whole = groupThousands((units / one).toString())
  if (assetScale === 0) return `${whole} ${assetCode}`
  const fraction = (units % one).toString().padStart(assetScale, '0')
  return `${whole}.${fraction} ${assetCode}`
}

/**
 * A repeating interval as a phrase that can follow "Send up to 25.00 USD ":
 * - `R12/2026-12-01T00:00:00Z/P1M` → `every month from 1 December 2026, for 13 months`
 * - `R0/2026-12-01T00:00:00Z/P1W` → `during the week from 1 December 2026`
 * - `R/2026-12-01T00:00:00Z/P1D` → `every day from 1 December 2026, with no end`
 * - `R0/<start>/<end>` → `between <start> and <end>`; other `<start>/<end>` forms repeat the length between them
 * - `R-1/P1M/2026-12-01T00:00:00Z` → `every month, ending 1 December 2026`
 * - anything unreadable → `on the schedule <as written>`
 */
export function describeInterval(interval: string): string {
  const fallback = `on the schedule ${String(interval)}`
  try {
    return describeParsedInterval(interval) ?? fallback
  } catch {
    return fallback
  }
}

function describeParsedInterval(interval: string): string | null {
  const parsed = parseInterval(interval)
  if (!parsed) return null
  const { repetitions } = parsed

  if (parsed.start && parsed.end) {
    const start = parsed.start.toUTC()
    const end = parsed.end.toUTC()
    if (repetitions === 0) return `between ${formatDate(start)} and ${formatDate(end)}`
    const length = end.diff(start, ['years', 'months', 'days', 'hours', 'minutes', 'seconds', 'milliseconds'])
    return describeFromStart(repetitions, start, toParts(length))
  }
  if (parsed.start) return describeFromStart(repetitions, parsed.start, toParts(parsed.duration))

  const parts = toParts(parsed.duration)
  const end = formatDate(parsed.end)
  if (repetitions === null) return `every ${everyPhrase(parts)}, ending ${end}`
  if (repetitions === 0) return `during the ${thePhrase(parts)} ending ${end}`
  return `every ${everyPhrase(parts)}, for ${listParts(times(parts, repetitions + 1))} ending ${end}`
}

function describeFromStart(repetitions: number | null, start: DateTime, parts: Parts): string {
  const from = formatDate(start)
  if (repetitions === null) return `every ${everyPhrase(parts)} from ${from}, with no end`
  if (repetitions === 0) return `during the ${thePhrase(parts)} from ${from}`
  return `every ${everyPhrase(parts)} from ${from}, for ${listParts(times(parts, repetitions + 1))}`
}

/** Each action of an item as a lower-case phrase that can follow "It can ", in a fixed order, no duplicates. */
export function describeActions(type: AccessType, actions: readonly string[]): string[] {
  const words: Readonly<Record<string, string>> = ACTION_WORDS[type] ?? {}
  const known = Object.keys(words)
  const unique = [...new Set(actions)]
  const ordered = [...known.filter((a) => unique.includes(a)), ...unique.filter((a) => !known.includes(a))]
  // Unknown actions never pass validation; if one ever reaches here, show it rather than hide it.
  return ordered.map((a) => words[a] ?? `do "${a}" with ${String(type)}`)
}

const ACTION_WORDS: Readonly<Record<AccessType, Readonly<Record<string, string>>>> = {
  'incoming-payment': {
    create: 'create incoming payments (requests to receive money)',
    complete: 'mark incoming payments as complete',
    read: 'see incoming payments it created',
    'read-all': 'see all incoming payments',
    list: 'list incoming payments it created',
    'list-all': 'list all incoming payments',
  },
  'outgoing-payment': {
    create: 'send payments',
    read: 'see outgoing payments it created',
    'read-all': 'see all outgoing payments',
    list: 'list outgoing payments it created',
    'list-all': 'list all outgoing payments',
  },
  quote: {
    create: 'get quotes',
    read: 'see quotes it created',
    'read-all': 'see all quotes',
  },
}

export interface AccessDescription {
  title: string
  lines: string[]
}

/** A heading and bullet lines for one access item, e.g. "Send payments from https://…/alice". */
export function describeAccessItem(item: AccessItem): AccessDescription {
  const actions: readonly string[] = item.actions
  const can = (action: string) => actions.includes(action)
  switch (item.type) {
    case 'outgoing-payment':
      return describeOutgoing(item)
    case 'incoming-payment': {
      const into = item.identifier ?? 'any wallet address'
      const title = can('create') ? `Receive payments into ${into}` : can('complete') ? `Manage payments into ${into}` : `See payments into ${into}`
      return { title, lines: describeActions(item.type, actions).map(capitalise) }
    }
    case 'quote':
      return {
        title: can('create') ? 'Get quotes' : 'See quotes',
        lines: describeActions(item.type, actions).map(capitalise),
      }
  }
}

function describeOutgoing(item: OutgoingAccess): AccessDescription {
  const actions: readonly string[] = item.actions
  const wallet = item.identifier
  // Without `create` nothing can be sent, so limits would only confuse.
  if (!actions.includes('create')) {
    return { title: `See payments sent from ${wallet}`, lines: describeActions(item.type, actions).map(capitalise) }
  }
  const limits = item.limits
  const to = limits?.receiver === undefined ? '' : ` to ${limits.receiver}`
  // docs/protocol.md §6: amounts are maxima per period, or for the whole grant when there is no interval.
  const schedule = limits?.interval === undefined ? undefined : describeInterval(limits.interval)
  const hasAmount = limits?.debitAmount !== undefined || limits?.receiveAmount !== undefined

  const when = schedule ?? 'in total'
  let sending: string
  if (limits?.debitAmount) {
    sending = `Send up to ${formatAmount(limits.debitAmount)}${to} ${when}`
  } else if (limits?.receiveAmount) {
    sending = `Send payments${to} so the receiver gets up to ${formatAmount(limits.receiveAmount)} ${when}`
  } else {
    sending = `Send any amount (no limit)${to}${schedule === undefined ? '' : ` ${schedule}`}`
  }
  // The sending line stands for the `create` action, so it is not listed twice.
  const others = describeActions(
    item.type,
    actions.filter((a) => a !== 'create'),
  ).map(capitalise)
  return {
    title: `Send payments from ${wallet}${hasAmount ? '' : ' with no amount limit'}`,
    lines: [sending, ...others],
  }
}

// ---- durations -------------------------------------------------------------------------------------------

/** Duration components as exact integers; seconds are kept as milliseconds so `PT1.5S` stays exact. */
interface Parts {
  years: bigint
  months: bigint
  weeks: bigint
  days: bigint
  hours: bigint
  minutes: bigint
  millis: bigint
}

const UNIT_NAMES = [
  ['years', 'year'],
  ['months', 'month'],
  ['weeks', 'week'],
  ['days', 'day'],
  ['hours', 'hour'],
  ['minutes', 'minute'],
] as const

function toParts(duration: Duration): Parts {
  const o = duration.toObject()
  const int = (v: number | undefined): bigint => {
    const n = v ?? 0
    if (!Number.isFinite(n)) throw new Error('not a finite duration')
    return BigInt(Math.round(n))
  }
  return {
    years: int(o.years),
    months: int(o.months),
    weeks: int(o.weeks),
    days: int(o.days),
    hours: int(o.hours),
    minutes: int(o.minutes),
    millis: int((o.seconds ?? 0) * 1000 + (o.milliseconds ?? 0)),
  }
}

/**
 * n periods of p, for "for 13 months". A single unit is simply multiplied ("13 months", "1,001 minutes"). A mix of
 * units has the fixed-size ones carried upwards so it reads naturally ("7 hours and 30 minutes", not "6 hours and 90
 * minutes"): in UTC a minute is 60 seconds, an hour 60 minutes, a day 24 hours, a year 12 months. Days are never
 * turned into weeks or months.
 */
function times(p: Parts, n: number): Parts {
  const k = BigInt(n)
  const product: Parts = {
    years: p.years * k,
    months: p.months * k,
    weeks: p.weeks * k,
    days: p.days * k,
    hours: p.hours * k,
    minutes: p.minutes * k,
    millis: p.millis * k,
  }
  if (components(p).length <= 1) return product
  const { years, months, weeks, days, hours, minutes, millis } = product
  const carriedMinutes = minutes + millis / 60_000n
  const carriedHours = hours + carriedMinutes / 60n
  return {
    years: years + months / 12n,
    months: months % 12n,
    weeks,
    days: days + carriedHours / 24n,
    hours: carriedHours % 24n,
    minutes: carriedMinutes % 60n,
    millis: millis % 60_000n,
  }
}

/** Non-zero components as `[count, singular name, plural name]`, largest unit first. */
function components(p: Parts): Array<{ count: string; isOne: boolean; one: string; many: string }> {
  const out: Array<{ count: string; isOne: boolean; one: string; many: string }> = []
  for (const [key, one] of UNIT_NAMES) {
    const v = p[key]
    if (v !== 0n) out.push({ count: groupThousands(v.toString()), isOne: v === 1n, one, many: key })
  }
  if (p.millis !== 0n) {
    const whole = groupThousands((p.millis / 1000n).toString())
    const fraction = (p.millis % 1000n).toString().padStart(3, '0').replace(/0+$/, '')
    out.push({
      count: fraction === '' ? whole : `${whole}.${fraction}`,
      isOne: p.millis === 1000n,
      one: 'second',
      many: 'seconds',
    })
  }
  return out
}

/** `1 year, 2 months, 10 days, 2 hours and 30 minutes`. */
function listParts(p: Parts): string {
  return joinList(components(p).map((c) => `${c.count} ${c.isOne ? c.one : c.many}`))
}

/** After "every": `month` for exactly one unit, else the full list (`2 weeks`, `1 month and 10 days`). */
function everyPhrase(p: Parts): string {
  const c = components(p)
  const only = c[0]
  return c.length === 1 && only?.isOne ? only.one : listParts(p)
}

/** After "the": same rule as everyPhrase ("the week", "the 2 weeks"). */
const thePhrase = everyPhrase

function joinList(items: string[]): string {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1] ?? ''}`
}

// ---- small formatting helpers ----------------------------------------------------------------------------

/** `1 December 2026`, or `1 December 2026 at 14:15 UTC` (seconds and milliseconds only when not zero). */
function formatDate(dt: DateTime): string {
  const u = dt.toUTC()
  const date = `${u.day} ${MONTHS[u.month - 1] ?? ''} ${u.year}`
  if (u.hour === 0 && u.minute === 0 && u.second === 0 && u.millisecond === 0) return date
  let time = `${pad2(u.hour)}:${pad2(u.minute)}`
  if (u.second !== 0 || u.millisecond !== 0) time += `:${pad2(u.second)}`
  if (u.millisecond !== 0) time += `.${String(u.millisecond).padStart(3, '0')}`
  return `${date} at ${time} UTC`
}

const pad2 = (n: number) => String(n).padStart(2, '0')

function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1)
}
