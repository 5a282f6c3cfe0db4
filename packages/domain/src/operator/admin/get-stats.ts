import { z } from 'zod'
import type { Deps } from '../../protocol/deps'
import { countGrantsByState, countGrantsCreated, countTokensAt, countTokensLeftToExpire, type TimeRange } from './console.repo'
import { expireOverdueGrants } from '../../protocol/grant/expire-grants'
import { grantStatusName, type GrantStatus, type GrantStatusName } from '../../protocol/grant/grant-state'
import { grantScope, type TenantBound } from './tenant-scope'

const DAY_MS = 86_400_000
/** The longest range of a day-by-day series: a year, so one request costs at most two indexed counts a day. */
const STATS_MAX_DAYS = 366

export const GetStatsInputSchema = z
  .strictObject({
    from: z.date(),
    to: z.date(),
    bucket: z.enum(['day']).default('day'),
  })
  .refine((r) => r.from.getTime() < r.to.getTime(), { error: '`from` must be before `to`', path: ['to'] })
  .refine((r) => r.to.getTime() - r.from.getTime() <= STATS_MAX_DAYS * DAY_MS, { error: `at most ${STATS_MAX_DAYS} days`, path: ['to'] })

interface Stats {
  from: Date
  to: Date
  bucket: 'day'
  /** Grants created in the range, by their state now. */
  grants: Record<GrantStatusName, number> & { total: number }
  tokens: {
    /** Tokens issued in the range (by grants and by rotations). */
    issued: number
    /** Rotations in the range. */
    rotated: number
    /** Tokens revoked in the range (one by one or with their grant). */
    revoked: number
    /** Tokens whose expiry fell in the range (before now) and that were never rotated or revoked. */
    expired: number
  }
  /** One entry per UTC day overlapping the range; counts within the range only. */
  series: { start: Date; grantsCreated: number; rotations: number }[]
}

/**
 * The console's overview: grants by state, token events, and grants created and rotations per UTC day. Every
 * figure is a COUNT over an indexed range and the days are cut in JS, so the queries are the same on SQLite and
 * PostgreSQL (no date functions in SQL).
 * The input is GetStatsInputSchema's output: the router's `.input()` has refused a range that is empty, reversed or
 * longer than STATS_MAX_DAYS.
 */
export async function getStats(
  deps: Deps,
  { from, to, bucket, actor }: z.output<typeof GetStatsInputSchema> & { actor?: TenantBound | undefined },
): Promise<Stats> {
  // A key bound to a tenant counts its tenant's grants and their tokens only (tenant-scope.ts).
  const scope = grantScope(deps, actor)
  // A console read finalizes overdue grants first, so none is counted as pending (docs/protocol.md §3).
  await expireOverdueGrants(deps)
  const now = deps.clock()
  const range: TimeRange = { from, to }

  const expiredUntil = new Date(Math.min(to.getTime(), now.getTime()))
  // Independent counts, issued together: the driver's per-query overhead overlaps (and a PostgreSQL pool runs them
  // side by side).
  const [byState, issued, rotated, revoked, expired, series] = await Promise.all([
    countGrantsByState(deps.reads, range, scope),
    countTokensAt(deps.reads, 'createdAt', range, scope),
    countTokensAt(deps.reads, 'rotatedAt', range, scope),
    countTokensAt(deps.reads, 'revokedAt', range, scope),
    expiredUntil.getTime() > from.getTime() ? countTokensLeftToExpire(deps.reads, { from, to: expiredUntil }, scope) : 0,
    Promise.all(
      utcDays(range).map(async (day) => {
        const clipped = { from: new Date(Math.max(day.getTime(), from.getTime())), to: new Date(Math.min(day.getTime() + DAY_MS, to.getTime())) }
        const [grantsCreated, rotations] = await Promise.all([
          countGrantsCreated(deps.reads, clipped, scope),
          countTokensAt(deps.reads, 'rotatedAt', clipped, scope),
        ])
        return { start: day, grantsCreated, rotations }
      }),
    ),
  ])

  const grants: Stats['grants'] = { total: 0, pending: 0, approved: 0, issued: 0, revoked: 0, rejected: 0, expired: 0 }
  for (const row of byState) {
    const status = grantStatusName(row as GrantStatus)
    grants[status] += row._count._all
    grants.total += row._count._all
  }
  const tokens: Stats['tokens'] = { issued, rotated, revoked, expired }
  return { from, to, bucket, grants, tokens, series }
}

/** Midnight UTC of every day that overlaps [from, to). */
function utcDays(range: TimeRange): Date[] {
  const days: Date[] = []
  for (let t = Math.floor(range.from.getTime() / DAY_MS) * DAY_MS; t < range.to.getTime(); t += DAY_MS) days.push(new Date(t))
  return days
}
