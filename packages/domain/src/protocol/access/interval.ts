import { DateTime, Duration } from 'luxon'

// ISO 8601 repeating intervals for `limits.interval` (docs/protocol.md §6; auth-server.yaml components.schemas.interval).
// Accepted: `R[n]/<start>/<duration>` (what clients send), `R[n]/<start>/<end>`, `R[n]/<duration>/<end>`.
// `R<n>` = n repetitions after the first interval (`R0`: only the first); `R` and `R-1` = unbounded.
// Refused on purpose, because a limit must not depend on when or where it is read:
// - no `R` prefix: the contract describes a repeating interval;
// - dates without a full calendar date (`14:15`, `2019-W01`, `2019-123`, `2019`): luxon would fill the rest from
//   today or the format is too rare to be worth the ambiguity;
// - signed, empty (`P`, `PT`, `P1DT`) or zero durations, and fractions except on seconds (luxon would accept them).
// A date without an offset is read as UTC, never as the server's local zone.

export type ParsedInterval =
  | { repetitions: number | null; start: DateTime; duration: Duration; end?: undefined }
  | { repetitions: number | null; start: DateTime; end: DateTime; duration?: undefined }
  | { repetitions: number | null; duration: Duration; end: DateTime; start?: undefined }

const REPETITIONS = /^R(-1|\d*)$/
// Calendar date (extended or basic), optionally followed by a time; luxon checks the rest.
const DATE_TIME = /^\d{4}(?:-\d{2}-\d{2}|\d{4})(?:T.+)?$/
const INT = '\\d+'
const DURATION = new RegExp(
  `^P(?:${INT}Y)?(?:${INT}M)?(?:${INT}W)?(?:${INT}D)?` + `(?:T(?=\\d)(?:${INT}H)?(?:${INT}M)?(?:${INT}(?:[.,]\\d{1,3})?S)?)?$`,
)

/** Returns null for anything that is not a repeating interval we accept (see the list above). */
export function parseInterval(s: string): ParsedInterval | null {
  if (typeof s !== 'string') return null
  const parts = s.split('/')
  if (parts.length !== 3) return null
  const [r, first, second] = parts as [string, string, string]

  const repetitions = parseRepetitions(r)
  if (repetitions === undefined) return null

  const firstIsDuration = first.startsWith('P')
  const secondIsDuration = second.startsWith('P')
  if (firstIsDuration && secondIsDuration) return null

  if (secondIsDuration) {
    const start = parseDateTime(first)
    const duration = parseDuration(second)
    if (!start || !duration || !start.plus(duration).isValid) return null
    return { repetitions, start, duration }
  }
  if (firstIsDuration) {
    const duration = parseDuration(first)
    const end = parseDateTime(second)
    if (!duration || !end || !end.minus(duration).isValid) return null
    return { repetitions, duration, end }
  }
  const start = parseDateTime(first)
  const end = parseDateTime(second)
  if (!start || !end || end.toMillis() <= start.toMillis()) return null
  return { repetitions, start, end }
}

export function isValidInterval(s: string): boolean {
  return parseInterval(s) !== null
}

/** number = repetitions, null = unbounded, undefined = not a repetition part. */
function parseRepetitions(r: string): number | null | undefined {
  const m = REPETITIONS.exec(r)
  if (!m) return undefined
  const n = m[1] ?? ''
  if (n === '' || n === '-1') return null
  const value = Number(n)
  return Number.isSafeInteger(value) ? value : undefined
}

function parseDateTime(s: string): DateTime | null {
  if (!DATE_TIME.test(s)) return null
  const dt = DateTime.fromISO(s, { zone: 'utc', setZone: true })
  return dt.isValid ? dt : null
}

function parseDuration(s: string): Duration | null {
  if (!DURATION.test(s)) return null
  const d = Duration.fromISO(s.replace(',', '.'))
  if (!d.isValid) return null
  const values = Object.values(d.toObject())
  if (!values.every((v) => Number.isFinite(v) && v >= 0)) return null
  return values.some((v) => v > 0) ? d : null
}
