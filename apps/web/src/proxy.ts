import { NextResponse, type NextRequest } from 'next/server'
import { newCspNonce, secureHeaders } from './server/edge/security-headers'
import { PUBLIC_FILES } from './server/pages/public-files'

/**
 * Sets the web security headers (server/edge/security-headers.ts, which states who applies them) on every response but
 * the GNAP JSON endpoints': pages, front-channel routes, the console's API, Next's 404 and assets. The GNAP endpoints
 * are left out by `config.matcher` and set the same headers through their wrapper (server/edge/gnap-route.ts).
 * A fresh CSP nonce per request goes on the request too: Next reads it from the request's
 * Content-Security-Policy header and puts it on the inline scripts it renders, and `x-nonce` lets a server
 * component hand it to a <Script>. Pages that render scripts must render per request (the root layout is dynamic).
 */
export function proxy(request: NextRequest): NextResponse {
  const nonce = newCspNonce()
  const headers = secureHeaders(nonce)
  // Next fails a path segment it cannot percent-decode with a plain-text 500 while matching the route; such a URL
  // names nothing, so it is refused here, before routing, as a malformed request.
  if (!isDecodablePath(request.nextUrl.pathname)) {
    const body = { error: { code: 'invalid_request', description: 'the URL path is not valid percent-encoded UTF-8' } }
    return NextResponse.json(body, { status: 400, headers: { ...headers, 'cache-control': 'no-store' } })
  }
  if (isStaticFile(request.nextUrl.pathname) && request.method !== 'GET' && request.method !== 'HEAD') {
    const body = { error: { code: 'invalid_request', description: `method not allowed: use GET` } }
    return NextResponse.json(body, { status: 405, headers: { ...headers, 'cache-control': 'no-store', allow: 'GET, HEAD' } })
  }
  const requestHeaders = new Headers(request.headers)
  // Next's static file serving answers an unsatisfiable Range or a failed precondition with a 500 instead of 416 or
  // 412. No page or asset of ours needs either, so they are dropped: such a request gets the whole file, 200.
  for (const name of PRECONDITION_HEADERS) requestHeaders.delete(name)
  requestHeaders.set('content-security-policy', headers['content-security-policy'] ?? '')
  requestHeaders.set('x-nonce', nonce)
  const response = NextResponse.next({ request: { headers: requestHeaders } })
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value)
  return response
}

// Every path but the GNAP JSON endpoints: `/` and a tenant's `/{tenantId}` (grant requests), `/introspect`, and `/continue/{id}` and `/token/{id}`
// with an id of the shape the server issues (a UUID); and the probes `/healthz` and `/readyz` (docs/protocol.md
// §2.19), which set their own headers. Any other id, a malformed %-encoding among them, still comes
// through here and gets the 400 above or the route's 404.
export const config = {
  matcher: [
    '/((?!$|introspect$|healthz$|readyz$|(?:continue|token)/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$).*)',
  ],
}

/** A file Next serves as it is: public/ and the build's assets. Next answers other methods than GET and HEAD on them with a 500. */
const isStaticFile = (pathname: string) => PUBLIC_FILES.has(pathname) || pathname.startsWith('/_next/static/')

const PRECONDITION_HEADERS = ['range', 'if-range', 'if-match', 'if-unmodified-since']

function isDecodablePath(pathname: string): boolean {
  try {
    decodeURIComponent(pathname)
    return true
  } catch {
    return false
  }
}
