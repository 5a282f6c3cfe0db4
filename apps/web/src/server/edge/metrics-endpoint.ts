import cluster from 'node:cluster'
import http from 'node:http'
import { GnapError, pathNotFound, secretsInclude } from '@gnap/domain/kernel'
import { type Deps } from '@gnap/domain/protocol'
import { json } from './gnap-route'
import { closeWhenStopping } from '../process/process-edge'
import type { WebMetrics } from '../process/metrics'

// GET /metrics in the Prometheus text format. On the public port behind METRICS_SECRET (Authorization: Bearer),
// and on METRICS_PORT (loopback, no secret): under the launcher its primary listens there (packages/launcher
// serve.ts); a process started otherwise listens itself. Off (404) when neither is set. Under the launcher a scrape
// is answered by the primary with every worker's metrics summed; the worker that took the request asks it over IPC.

const SCRAPE_TIMEOUT_MS = 10_000

/** The text of a scrape: this process's registry, or, in a worker of the launcher, every worker's summed by the primary. */
export async function scrape(metrics: WebMetrics): Promise<{ text: string; contentType: string }> {
  if (!cluster.isWorker || !process.send) return { text: await metrics.registry.metrics(), contentType: metrics.registry.contentType }
  const id = `${process.pid}:${++requests}`
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error('the launcher did not answer the metrics request')), SCRAPE_TIMEOUT_MS)
    const onMessage = (msg: { gnap?: unknown; id?: unknown; text?: unknown; error?: unknown } | null) => {
      if (msg?.gnap !== 'metrics' || msg.id !== id) return
      finish(typeof msg.text === 'string' ? null : new Error(String(msg.error ?? 'no metrics')), typeof msg.text === 'string' ? msg.text : '')
    }
    const finish = (error: Error | null, text = '') => {
      clearTimeout(timer)
      process.off('message', onMessage)
      if (error) reject(error)
      else resolve({ text, contentType: metrics.registry.contentType })
    }
    process.on('message', onMessage)
    process.send!({ gnap: 'metrics', id })
  })
}
let requests = 0

const unauthorized = () => new GnapError('invalid_client', 'metrics require Authorization: Bearer <metrics secret>')

/** The answer to GET /metrics on the public port: 404 without METRICS_SECRET, 401 without the right bearer secret. */
export async function metricsResponse(deps: Deps, authorization: string | null): Promise<Response> {
  const secrets = deps.config.metricsSecrets
  if (!secrets || !('registry' in deps.metrics)) return json(404, pathNotFound().toBody())
  const m = /^Bearer (\S+)$/.exec(authorization?.trim() ?? '')
  if (m?.[1] === undefined || !secretsInclude(m[1], secrets)) {
    return json(401, unauthorized().toBody(), { 'www-authenticate': 'Bearer' })
  }
  const { text, contentType } = await scrape(deps.metrics as WebMetrics)
  return new Response(text, { status: 200, headers: { 'content-type': contentType, 'cache-control': 'no-store' } })
}

/**
 * METRICS_PORT in a process that is not a worker of the launcher (`next start` run directly): GET /metrics on
 * 127.0.0.1 only. Resolves once it listens; null when the port is not set or the launcher's primary serves it.
 */
export async function startMetricsListener(deps: Deps): Promise<http.Server | null> {
  const port = deps.config.metricsPort
  if (port === null || cluster.isWorker || !('registry' in deps.metrics)) return null
  const metrics = deps.metrics as WebMetrics
  // A server of its own (not http.createServer, which the launcher's fair turns patch for Next's server).
  const server = new http.Server((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '/').split('?')[0] !== '/metrics') return void res.writeHead(404).end()
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' }).end(text),
      () => res.writeHead(500).end(),
    )
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  closeWhenStopping(server)
  return server
}
