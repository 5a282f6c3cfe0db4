/**
 * Whether a browser says a form post comes from our own site (docs/protocol.md §7). `Sec-Fetch-Site`, when sent,
 * decides: same-origin, or none (typed by the person). Browsers without it say it in `Origin`, which must then be ours
 * (AUTH_SERVER_URL's host, or the Host the request came to). `Origin: null` is what browsers send for a form on a page
 * served with `Referrer-Policy: no-referrer`, as all of ours are, so it cannot be refused: every browser that sends
 * `Sec-Fetch-Site` is decided by it first, and the set-password pages post to a URL holding a secret, which a forged
 * post would have to know already.
 */
export function isSameOriginPost(req: Request, authServerUrl: string): boolean {
  const site = req.headers.get('sec-fetch-site')
  if (site !== null) return site === 'same-origin' || site === 'none'
  const origin = req.headers.get('origin')
  if (origin === null || origin === 'null') return true
  try {
    const { host } = new URL(origin)
    return host === new URL(authServerUrl).host || host === req.headers.get('host')
  } catch {
    return false
  }
}
