import { errorResponse, otherMethods } from '../../server/edge/gnap-route'
import { getDeps } from '../../server/process/deps'
import { metricsResponse } from '../../server/edge/metrics-endpoint'

export const dynamic = 'force-dynamic'

// Prometheus scrapes GET /metrics with Authorization: Bearer <METRICS_SECRET> (server/edge/metrics-endpoint.ts).
export async function GET(req: Request): Promise<Response> {
  try {
    return await metricsResponse(await getDeps(), req.headers.get('authorization'))
  } catch (e) {
    return errorResponse(e)
  }
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET')
