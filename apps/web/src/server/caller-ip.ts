/**
 * The caller's IP address for per-IP limits, or null when it cannot be known.
 *
 * Route handlers do not see the socket. `next start` copies the socket address into `X-Forwarded-For` only when
 * the request has none, so the header is whatever the caller sent unless a proxy in front sets it. Hence: with
 * TRUST_PROXY=true (a proxy that sets the header is the only way in), the first hop is the caller; without it the
 * address is unknown (null) and per-IP limits do not apply.
 */
export function callerIp(req: Request, trustProxy: boolean): string | null {
  if (!trustProxy) return null
  const first = (req.headers.get('x-forwarded-for') ?? '').split(',')[0]?.trim() ?? ''
  // An address, not free text: IPv4, IPv6 (optionally bracketed, with zone) — anything else is unknown.
  return /^[0-9A-Fa-f.:[\]%]{2,64}$/.test(first) ? first.toLowerCase() : null
}
