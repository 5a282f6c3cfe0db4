import Negotiator from 'negotiator'
import { INTERACTION_COOKIE, loggablePath, readCapped, setCookie, type Deps, type FrontChannelResult } from '@gnap/domain'
import { errorResponse, json } from './gnap-route'
import { getDeps } from './deps'
import { messagePage } from './pages'

const interactionPath = (params: Record<string, string>) =>
  `/interact/${encodeURIComponent(params.id ?? '')}/${encodeURIComponent(params.nonce ?? '')}`

/** Browser-facing steps: HTML pages for callers that prefer them (browsers), the GNAP JSON body for every other. */
export function frontChannelRoute(handler: (deps: Deps, req: Request, params: Record<string, string>) => Promise<FrontChannelResult | Response>) {
  return async (req: Request, route: { params: Promise<Record<string, string>> }): Promise<Response> => {
    let deps: Deps | undefined
    try {
      deps = await getDeps()
      const params = await route.params
      const result = await handler(deps, req, params)
      const res = result instanceof Response ? result : render(deps, req, params, result)
      deps.log.info({ method: req.method, path: loggablePath(req.url), status: res.status }, 'request')
      return res
    } catch (e) {
      const res = errorResponse(e, deps)
      if (!prefersHtml(req)) return res
      // 503 while the database is unreachable (docs/protocol.md §9), else 500.
      return messagePage(res.status === 503 ? 503 : 500, 'Something went wrong', 'The request could not be completed. Please try again later.')
    }
  }
}

export function render(deps: Deps, req: Request, params: Record<string, string>, result: FrontChannelResult): Response {
  switch (result.kind) {
    case 'redirect': {
      const headers = new Headers({ location: result.location, 'cache-control': 'no-store' })
      if (result.session) {
        // Lax, not Strict: the identity provider's redirect back to finish is a cross-site navigation.
        headers.append(
          'set-cookie',
          setCookie(deps, {
            name: INTERACTION_COOKIE,
            value: result.session.value,
            maxAgeSeconds: result.session.maxAgeSeconds,
            path: interactionPath(params),
            sameSite: 'Lax',
          }),
        )
      }
      return new Response(null, { status: 302, headers })
    }
    case 'accepted':
      return prefersHtml(req) ? messagePage(202, 'Done', result.message, result.link) : new Response(null, { status: 202 })
    case 'page':
      return prefersHtml(req)
        ? messagePage(result.status, result.title, result.message, result.link)
        : json(result.status, { error: { code: result.code, description: result.message } })
  }
}

/** What a front-channel answer can be, JSON first: on a tie (the full wildcard, or both at one quality and precision), JSON. */
const ANSWER_TYPES = ['application/json', 'text/html']

/**
 * The one rule for pages or JSON on the browser-facing steps (docs/protocol.md §2.8 "Pages or JSON"): an HTML page
 * only when the request's `Accept`, read with its q-values and precedence (RFC 9110 §12.5.1), ranks `text/html`
 * above `application/json`, as a browser's does. No `Accept`, the full wildcard, `application/json`, or a list naming neither
 * gets the GNAP JSON error body with the same status.
 */
export function prefersHtml(req: Request): boolean {
  const accept = req.headers.get('accept')
  if (accept === null || accept.trim() === '') return false
  return new Negotiator({ headers: { accept } }).mediaType(ANSWER_TYPES) === 'text/html'
}

/** Reads a small urlencoded form (the consent screen's), capped in size. */
export async function readForm(req: Request): Promise<URLSearchParams> {
  const type = req.headers.get('content-type') ?? ''
  if (!type.startsWith('application/x-www-form-urlencoded')) return new URLSearchParams()
  const bytes = await readCapped(req.body, 8 * 1024)
  return new URLSearchParams(bytes ? new TextDecoder().decode(bytes) : '')
}

/** A 303 after a form post, so a reload does not post again. */
export function seeOther(location: string, setCookie?: string): Response {
  const headers = new Headers({ location, 'cache-control': 'no-store' })
  if (setCookie) headers.append('set-cookie', setCookie)
  return new Response(null, { status: 303, headers })
}
