import { Overview } from './overview'

export const metadata = { title: 'Overview' }

const DAY_MS = 86_400_000
/** The overview's window: the last 30 UTC days, today included. */
const DAYS = 30

export default function OverviewPage() {
  const to = new Date((Math.floor(Date.now() / DAY_MS) + 1) * DAY_MS)
  const from = new Date(to.getTime() - DAYS * DAY_MS)
  return <Overview from={from.toISOString()} to={to.toISOString()} days={DAYS} />
}
