// The web security headers of every response the app serves: GNAP JSON, front-channel pages, React pages and
// Next's own 404 and asset responses. This module is their only source. Who applies them, one rule:
//   - `src/proxy.ts` applies them to every path its matcher takes: everything but the GNAP JSON endpoints;
//   - the GNAP JSON endpoints (`/`, `/introspect`, `/continue/{uuid}`, `/token/{uuid}`) are left out of that matcher,
//     because Next's proxy adapter costs more than the rest of an introspection, and their one wrapper
//     (server/edge/gnap-route.ts) applies them to each answer instead.
// A new route is therefore covered by the proxy unless it is a GNAP endpoint added to both the matcher and the wrapper.
// Free of the domain package, so the proxy bundle stays small.
import { securitySettings } from '../../env'

interface SecurityHeaderOptions {
  /**
   * Per-request random value allowing exactly the scripts Next renders for this response; null for an answer that is
   * no document (JSON, a 204, a redirect), which runs no script.
   */
  nonce: string | null
  /** AUTH_SERVER_URL is https: add HSTS and upgrade-insecure-requests. */
  https: boolean
  /** `next dev`: React needs eval for its error overlay. Never in production. */
  dev: boolean
}

function contentSecurityPolicy({ nonce, https, dev }: SecurityHeaderOptions): string {
  return [
    "default-src 'self'",
    // Next's App Router injects inline bootstrap scripts; it reads this nonce from the request's CSP header and
    // puts it on them. 'strict-dynamic' lets those scripts load the page's chunks; hosts and 'self' are then
    // ignored by CSP3 browsers and kept as the fallback for older ones.
    // Without a nonce, 'strict-dynamic' alone allows no script at all in CSP3 browsers.
    `script-src 'self'${nonce === null ? '' : ` 'nonce-${nonce}'`} 'strict-dynamic'${dev ? " 'unsafe-eval'" : ''}`,
    // Styles cannot run script. The front-channel pages carry an inline <style> and React pages may use style
    // attributes, which no nonce can cover; a nonce here would also switch 'unsafe-inline' off in CSP2+ browsers.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    // The consent form posts to our own origin, which answers 303 to the client's finish URI (docs/protocol.md §2.8),
    // and browsers apply form-action to the redirects that follow a submission. Finish URIs are any http(s) URL
    // the client registered (http for loopback clients), so the schemes are allowed; javascript:, data: and other
    // schemes stay refused as form targets.
    "form-action 'self' https: http:",
    ...(https ? ['upgrade-insecure-requests'] : []),
  ].join('; ')
}

/** Every header, by name. The CSP is also what Next reads the script nonce from (request side). */
function securityHeaders(options: SecurityHeaderOptions): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy(options),
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    // Only on https: on plain http the header is ignored by browsers and would only mislead.
    ...(options.https ? { 'strict-transport-security': 'max-age=31536000' } : {}),
  }
}

/** 128 random bits, base64: the form CSP nonces take (Next accepts `[A-Za-z0-9+/_-]+={0,2}`). */
export function newCspNonce(): string {
  const bytes = new Uint8Array(16)
  crypto.getRandomValues(bytes)
  return btoa(String.fromCharCode(...bytes))
}

const settings = securitySettings()

/** Every security header for one response, with a fresh CSP nonce unless the caller made one (the proxy, for Next). */
export function secureHeaders(nonce: string = newCspNonce()): Record<string, string> {
  return securityHeaders({ nonce, ...settings })
}

/**
 * Every security header for an answer that is no document (GNAP JSON, a 204, a redirect): the same policy with no
 * script nonce, since such an answer renders no script. The same for every answer, so it is built once.
 */
export const noDocumentHeaders: Readonly<Record<string, string>> = Object.freeze(securityHeaders({ nonce: null, ...settings }))
