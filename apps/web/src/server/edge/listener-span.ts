import type http from 'node:http'
import { inRequestSpan } from '@gnap/domain/kernel'

/**
 * The server span of one request on a listener of its own (introspection, service API, Admin API) when tracing is on
 * (docs/operating.md "Traces"): named `METHOD route` by the listener's route template, never by an id, continuing an
 * incoming `traceparent`. Only the method, route and status are recorded; no header, body or query.
 */
export function listenerSpan(
  req: http.IncomingMessage,
  listener: string,
  route: string,
  fn: (setStatus: (status: number) => void) => Promise<void>,
): Promise<void> {
  const method = req.method ?? 'GET'
  return inRequestSpan(`${method} ${route}`, req.headers, { 'http.request.method': method, 'http.route': route, 'gnap.listener': listener }, fn)
}
