import Negotiator from 'negotiator'
import { INTERACTION_COOKIE, loggablePath, setCookie } from '@gnap/domain/kernel'
import { type Deps, type FrontChannelResult } from '@gnap/domain/protocol'
import { errorResponse, json } from './gnap-route'
import { getDeps } from '../process/deps'
import { pages } from '../pages/message-pages'

const interactionPath = (params: Record<string, string>) =>
  `/interact/${encodeURIComponent(params.id ?? '')}/${encodeURIComponent(params.nonce ?? '')}`

/**
 * Browser-facing steps: HTML pages or the GNAP JSON body, as the caller's Accept prefers (`prefersHtml`). `fallback`
 * is the answer for a caller whose Accept ranks neither above the other: JSON on the contract's endpoints (§2.7,
 * §2.8), pages on our own (the consent screen, the account and password pages).
 */
export function frontChannelRoute(
  handler: (deps: Deps, req: Request, params: Record<string, string>) => Promise<FrontChannelResult | Response>,
  fallback: Fallback = 'page',
) {
  return async (req: Request, route: { params: Promise<Record<string, string>> }): Promise<Response> => {
    let deps: Deps | undefined
    try {
      deps = await getDeps()
      const params = await route.params
      const result = await handler(deps, req, params)
      const res = result instanceof Response ? result : render(deps, req, params, result, fallback)
      deps.log.info({ method: req.method, path: loggablePath(req.url), status: res.status }, 'request')
      return res
    } catch (e) {
      const res = errorResponse(e, deps)
      if (!prefersHtml(req, fallback)) return res
      // 503 while the database is unreachable (docs/protocol.md §9), else 500.
      return res.status === 503 ? pages.unavailable() : pages.failed()
    }
  }
}

export function render(deps: Deps, req: Request, params: Record<string, string>, result: FrontChannelResult, fallback: Fallback = 'page'): Response {
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
      return found(headers)
    }
    case 'accepted':
      return prefersHtml(req, fallback) ? pages.done(result.message, result.link) : accepted()
    case 'page':
      // The status is the one the domain's table gave the page (INTERACTION_STEPS), in either form.
      return prefersHtml(req, fallback) ? pages.step(result) : json(result.status, { error: { code: result.code, description: result.message } })
  }
}

/** The answer for a caller whose Accept ranks neither type above the other. */
export type Fallback = 'json' | 'page'

/**
 * The one rule for pages or JSON on the browser-facing steps (docs/protocol.md §2.8 "Pages or JSON"): the request's
 * `Accept`, read with its q-values and precedence (RFC 9110 §12.5.1), decides between `text/html` and
 * `application/json`; a browser's header ranks the page first. When it ranks neither first (no Accept, the full
 * wildcard, a tie, or a list naming neither), the endpoint's fallback decides.
 */
export function prefersHtml(req: Request, fallback: Fallback): boolean {
  const accept = req.headers.get('accept')
  if (accept === null || accept.trim() === '') return fallback === 'page'
  // On a tie, negotiator picks the type listed first: the fallback's.
  const chosen = new Negotiator({ headers: { accept } }).mediaType(fallback === 'json' ? JSON_FIRST : PAGE_FIRST)
  return fallback === 'json' ? chosen === 'text/html' : chosen !== 'application/json'
}

const JSON_FIRST = ['application/json', 'text/html']
const PAGE_FIRST = ['text/html', 'application/json']

/** A redirect of an interaction step (302): the browser follows it with the same method. */
const found = (headers: Headers) => new Response(null, { status: 302, headers })

/** An interaction done, for a caller that asked for no page: nothing more to say. */
const accepted = () => new Response(null, { status: 202 })

/** A 303 after a form post, so a reload does not post again. */
export function seeOther(location: string, setCookie?: string): Response {
  const headers = new Headers({ location, 'cache-control': 'no-store' })
  if (setCookie) headers.append('set-cookie', setCookie)
  return new Response(null, { status: 303, headers })
}
