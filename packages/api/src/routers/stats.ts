import { getStats, GetStatsInputSchema } from '@gnap/domain/operator'
import { router, viewer } from '../trpc'
import { StatsSchema } from '../schemas'

export const statsRouter = router({
  /** The overview: grants by state, token events and a per-day series over [from, to) (at most 366 days). */
  overview: viewer.query(['POST', '/stats/overview', 'Grant and token figures over a period'], GetStatsInputSchema, StatsSchema, getStats),
})
