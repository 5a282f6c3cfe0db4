import { inRequestSpan, tracingEnabled } from '@gnap/domain/kernel'

/**
 * `handler` inside the server span of its request when tracing is on (docs/operating.md "Traces"): named `METHOD
 * template` by the route's template (`POST /token/[id]`), never by a path with ids, continuing an incoming
 * `traceparent`. Records the method, the route and the answer's status; no header, body or query. Off: `handler` as it is.
 */
export function tracedRoute<Args extends unknown[]>(
  template: string | ((req: Request, ...args: Args) => Promise<string>),
  handler: (req: Request, ...args: Args) => Promise<Response>,
): (req: Request, ...args: Args) => Promise<Response> {
  return async (req, ...args) => {
    if (!tracingEnabled()) return handler(req, ...args)
    const route = typeof template === 'string' ? template : await template(req, ...args)
    const attributes = { 'http.request.method': req.method, 'http.route': route }
    return inRequestSpan(`${req.method} ${route}`, req.headers, attributes, async (setStatus) => {
      const res = await handler(req, ...args)
      setStatus(res.status)
      return res
    })
  }
}
