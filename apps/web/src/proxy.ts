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
  const requestHeaders = new Headers(request.headers)
  requestHeaders.set('content-security-policy', headers['content-security-policy'] ?? '')
  requestHeaders.set('x-nonce', nonce)
  const response = NextResponse.next({ request: { headers: requestHeaders } })
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value)
  return response
}
