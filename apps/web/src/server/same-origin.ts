/**
 * Whether a browser says a form post comes from our own site (docs/protocol.md §7): `Sec-Fetch-Site` absent or
 * same-origin (or `none`, typed by the person), and `Origin` absent or ours (AUTH_SERVER_URL's host, or the Host the
 * request came to). Browsers send at least one of them with every cross-site post.
 */
export function isSameOriginPost(req: Request, authServerUrl: string): boolean {
  const site = req.headers.get('sec-fetch-site')
  if (site !== null && site !== 'same-origin' && site !== 'none') return false
  const origin = req.headers.get('origin')
  if (origin === null) return true
  try {
    const { host } = new URL(origin)
    return host === new URL(authServerUrl).host || host === req.headers.get('host')
  } catch {
    return false
  }
}
