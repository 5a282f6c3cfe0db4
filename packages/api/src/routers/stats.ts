import { getStats, GetStatsInputSchema } from '@gnap/domain/operator'
import { viewerProcedure, router } from '../trpc'
import { StatsSchema } from '../schemas'

export const statsRouter = router({
  /** The overview: grants by state, token events and a per-day series over [from, to) (at most 366 days). */
  overview: viewerProcedure
    .meta({ rest: { method: 'POST', path: '/stats/overview', summary: 'Grant and token figures over a period' } })
    .input(GetStatsInputSchema)
    .output(StatsSchema)
    .query(({ ctx, input }) => getStats(ctx.deps, input)),
})
