// The ceiling: the cheapest thing a route handler can do under `next start`, answered per request.
export const dynamic = 'force-dynamic'

export function GET() {
  return Response.json({ ok: true })
}
