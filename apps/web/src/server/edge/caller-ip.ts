import type { GnapConfig } from '@gnap/domain/kernel'

/**
 * The caller's IP address for per-IP limits, or null when it cannot be known (docs/protocol.md §7).
 *
 * Route handlers do not see the socket. `next start` copies the socket address into `X-Forwarded-For` only when
 * the request has none, so the header is whatever the caller sent unless a proxy in front sets it. Hence: without
 * TRUST_PROXY the address is unknown (null) and per-IP limits do not apply. With it, the proxies in front append the
 * address they received from (nginx's `$proxy_add_x_forwarded_for`, cloud load balancers), so only the right-hand
 * entries were written by them; whatever stands further left came from the caller and may be forged. The entry
 * `trustedProxyHops` from the right is the address the outermost proxy saw: the caller. With fewer entries than hops
 * (a request that passed fewer proxies), the leftmost is taken.
 */
export function callerIp(req: Request, config: Pick<GnapConfig, 'trustProxy' | 'trustedProxyHops'>): string | null {
  return config.trustProxy ? callerIpFromForwardedFor(req.headers.get('x-forwarded-for'), config) : null
}

/** The same rule on the `X-Forwarded-For` header's value, for a server that is not Next (the introspection listener). */
export function callerIpFromForwardedFor(forwardedFor: string | null, config: Pick<GnapConfig, 'trustProxy' | 'trustedProxyHops'>): string | null {
  if (!config.trustProxy) return null
  const entries = (forwardedFor ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
  if (entries.length === 0) return null
  const entry = entries[Math.max(0, entries.length - config.trustedProxyHops)] ?? ''
  // An address, not free text: IPv4, IPv6 (optionally bracketed, with zone) — anything else is unknown.
  return /^[0-9A-Fa-f.:[\]%]{2,64}$/.test(entry) ? entry.toLowerCase() : null
}
