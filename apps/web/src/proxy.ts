import { NextResponse, type NextRequest } from 'next/server'
import { securitySettings } from './env'
import { newCspNonce, securityHeaders } from './server/security-headers'

const settings = securitySettings()

/**
 * The one place that sets the web security headers (issue #6), on every response: route handlers, pages, Next's
 * 404 and assets. A fresh CSP nonce per request goes on the request too: Next reads it from the request's
 * Content-Security-Policy header and puts it on the inline scripts it renders, and `x-nonce` lets a server
 * component hand it to a <Script>. Pages that render scripts must render per request (the root layout is dynamic).
 */
export function proxy(request: NextRequest): NextResponse {
  const nonce = newCspNonce()
  const headers = securityHeaders({ nonce, ...settings })
  // Next fails a path segment it cannot percent-decode with a plain-text 500 while matching the route; such a URL
  // names nothing, so it is refused here, before routing, as a malformed request.
  if (!isDecodablePath(request.nextUrl.pathname)) {
    const body = { error: { code: 'invalid_request', description: 'the URL path is not valid percent-encoded UTF-8' } }
    return NextResponse.json(body, { status: 400, headers: { ...headers, 'cache-control': 'no-store' } })
  }
  const requestHeaders = new Headers(request.headers)
  requestHeaders.set('content-security-policy', headers['content-security-policy'] ?? '')
  requestHeaders.set('x-nonce', nonce)
  const response = NextResponse.next({ request: { headers: requestHeaders } })
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value)
  return response
}

function isDecodablePath(pathname: string): boolean {
  try {
    decodeURIComponent(pathname)
    return true
  } catch {
    return false
  }
}
