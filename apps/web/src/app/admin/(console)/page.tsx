import { Overview } from './overview'

export const metadata = { title: 'Overview' }

const DAY_MS = 86_400_000
/** The overview's window: the last 30 UTC days, today included. */
const DAYS = 30

/** The window's bounds at the time of the request: from the start of the oldest day to the end of today. */
function overviewWindow(now: number): { from: Date; to: Date } {
  const to = new Date((Math.floor(now / DAY_MS) + 1) * DAY_MS)
  return { from: new Date(to.getTime() - DAYS * DAY_MS), to }
}

export default function OverviewPage() {
  const { from, to } = overviewWindow(new Date().getTime())
  return <Overview from={from.toISOString()} to={to.toISOString()} days={DAYS} />
}
