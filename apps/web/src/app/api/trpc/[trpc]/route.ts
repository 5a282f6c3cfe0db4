import { fetchRequestHandler } from '@trpc/server/adapters/fetch'
import { appRouter, batchOptions, createContext, CSRF_HEADER } from '@gnap/api'
import { ADMIN_COOKIE, adminCookieJar, isGnapError, readCookie, UNAVAILABLE_RETRY_AFTER_SECONDS } from '@gnap/domain/kernel'
import { CONSOLE_ERROR_STATUS, type ConsoleErrorCode } from '@gnap/domain/operator'
import { depsOrUnavailable } from '../../../../server/process/deps'
import { callerIp } from '../../../../server/edge/caller-ip'
import { JSON_LIMITS, readBody } from '../../../../server/edge/body'
import { tracedRoute } from '../../../../server/edge/request-span'

export const dynamic = 'force-dynamic'

const ENDPOINT = '/api/trpc'

// The console's API: @gnap/api on tRPC's fetch adapter. The admin session is the httpOnly
// `gnap_admin` cookie; sign-in and sign-out are the `auth.*` procedures, whose context writes the Set-Cookie header
// into the adapter's response headers. Mutations also need `x-csrf-token` (the session's token, rendered into the
// console's pages): `mutationProcedure` refuses them otherwise. Batches are refused when they name an `auth.*`
// procedure and capped for the others (`batchOptions`): a batch of sign-ins would be many guesses in one request.

/** A refusal before any procedure, with the status of its console code (docs/protocol.md §2.18's one table). */
const refuse = (kind: ConsoleErrorCode, message: string, headers: Record<string, string> = {}) =>
  Response.json({ error: { message } }, { status: CONSOLE_ERROR_STATUS[kind], headers: { 'cache-control': 'no-store', ...headers } })

// Traced as one span per request, named by the route, not by the procedures (request-span.ts).
const handler = tracedRoute('/api/trpc/[trpc]', serve)

async function serve(req: Request): Promise<Response> {
  const deps = await depsOrUnavailable()
  // docs/protocol.md §9: the database is unreachable for now.
  if (!deps)
    return refuse('service_unavailable', 'the service is temporarily unavailable: try again later', {
      'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS),
    })
  let request = req
  if (req.method === 'POST') {
    // Sign-in is the one procedure without a session, so cross-site requests are refused here before any
    // procedure (login CSRF): browsers say where a request comes from in Sec-Fetch-Site and Origin.
    const site = req.headers.get('sec-fetch-site')
    if (site !== null && site !== 'same-origin' && site !== 'none') return refuse('forbidden', 'cross-site requests are refused')
    const origin = req.headers.get('origin')
    if (origin !== null && !isOwnOrigin(origin, req, deps.config.authServerUrl)) return refuse('forbidden', 'cross-site requests are refused')
    // The same caps as the GNAP endpoints: no request of the console comes close.
    const read = await readBody(req, JSON_LIMITS)
    if (read.kind === 'too-large') return refuse('payload_too_large', 'request too large')
    if (read.kind === 'too-deep') return refuse('bad_request', 'request nested too deep')
    const { bytes } = read
    request = new Request(req.url, { method: 'POST', headers: req.headers, body: bytes.length > 0 ? Buffer.from(bytes) : null })
  }
  const res = await fetchRequestHandler({
    endpoint: ENDPOINT,
    req: request,
    ...batchOptions(request, ENDPOINT),
    router: appRouter,
    createContext: ({ req: r, resHeaders }) =>
      createContext({
        deps,
        sessionValue: readCookie(r.headers.get('cookie'), ADMIN_COOKIE),
        // A back end's API key (docs/protocol.md §2.18); a request with both is refused by the procedures.
        authorization: r.headers.get('authorization'),
        csrfToken: r.headers.get(CSRF_HEADER),
        ip: callerIp(r, deps.config),
        cookies: adminCookieJar(deps, resHeaders),
      }),
    // Answers carry the session's CSRF token and console data: never cached, by anyone. A refused sign-in, and any
    // answer while the database is unreachable (503), says when to try again in Retry-After, as the GNAP endpoints do.
    responseMeta: ({ errors }) => {
      const headers = new Headers({ 'cache-control': 'no-store' })
      const wait = Math.max(
        0,
        ...errors.map((e) =>
          e.code === 'SERVICE_UNAVAILABLE' ? UNAVAILABLE_RETRY_AFTER_SECONDS : isGnapError(e.cause) ? (e.cause.retryAfterSeconds ?? 0) : 0,
        ),
      )
      if (wait > 0) headers.set('retry-after', String(wait))
      return { headers }
    },
  })
  // tRPC's bodies are JSON, but some of its refusals (a POST without a JSON content type: 415) leave the
  // content type to the Response default, text/plain: a JSON endpoint says what it sends.
  if (res.body === null || /^application\/json\s*(;|$)/i.test(res.headers.get('content-type') ?? '')) return res
  const headers = new Headers(res.headers)
  headers.set('content-type', 'application/json')
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers })
}

/** The page's own origin: the public URL, or the Host the request came to (a local start under another name). */
function isOwnOrigin(origin: string, req: Request, authServerUrl: string): boolean {
  try {
    const { host } = new URL(origin)
    return host === new URL(authServerUrl).host || host === req.headers.get('host')
  } catch {
    return false
  }
}

export { handler as GET, handler as POST }
