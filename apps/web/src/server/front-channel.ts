import type { Deps, FrontChannelResult } from '@gnap/domain'
import { errorResponse, json } from './gnap-route'
import { getDeps } from './deps'

export const SESSION_COOKIE = 'gnap_interaction'

/** Browser-facing steps: HTML pages for people, the GNAP JSON body for callers that ask for JSON. */
export function frontChannelRoute(handler: (deps: Deps, req: Request, params: Record<string, string>) => Promise<FrontChannelResult>) {
  return async (req: Request, route: { params: Promise<Record<string, string>> }): Promise<Response> => {
    let deps: Deps | undefined
    try {
      deps = await getDeps()
      const params = await route.params
      const result = await handler(deps, req, params)
      const res = render(deps, req, params, result)
      deps.log.info({ method: req.method, path: 'interact', status: res.status }, 'request')
      return res
    } catch (e) {
      const res = errorResponse(e, deps)
      return wantsJson(req) ? res : htmlPage(500, 'Something went wrong', 'The request could not be completed. Please try again later.')
    }
  }
}

function render(deps: Deps, req: Request, params: Record<string, string>, result: FrontChannelResult): Response {
  switch (result.kind) {
    case 'redirect': {
      const headers = new Headers({ location: result.location, 'cache-control': 'no-store' })
      if (result.session) {
        const secure = deps.config.authServerUrl.startsWith('https:') ? '; Secure' : ''
        const path = `/interact/${encodeURIComponent(params.id ?? '')}/${encodeURIComponent(params.nonce ?? '')}`
        // Lax, not Strict: the identity provider's redirect back to finish is a cross-site navigation.
        headers.append('set-cookie', `${SESSION_COOKIE}=${result.session.value}; Path=${path}; Max-Age=${result.session.maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`)
      }
      return new Response(null, { status: 302, headers })
    }
    case 'accepted':
      return wantsJson(req) ? new Response(null, { status: 202 }) : htmlPage(202, 'Done', result.message)
    case 'page':
      return wantsJson(req)
        ? json(result.status, { error: { code: result.code, description: result.message } })
        : htmlPage(result.status, result.title, result.message)
  }
}

function wantsJson(req: Request): boolean {
  const accept = req.headers.get('accept') ?? ''
  return accept.includes('application/json') && !accept.includes('text/html')
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c)

export function htmlPage(status: number, title: string, message: string): Response {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;background:#f6f7f9;color:#1b1f24;margin:0;display:flex;min-height:100vh;align-items:center;justify-content:center}
main{background:#fff;border:1px solid #d8dde3;border-radius:12px;padding:2rem;max-width:32rem;margin:1rem}h1{font-size:1.4rem;margin:0 0 .75rem}p{line-height:1.5;margin:0}</style>
</head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></main></body></html>`
  return new Response(html, { status, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } })
}

export function readCookie(req: Request, name: string): string | null {
  const header = req.headers.get('cookie')
  if (!header) return null
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=')
    if (k === name) return v.join('=')
  }
  return null
}
