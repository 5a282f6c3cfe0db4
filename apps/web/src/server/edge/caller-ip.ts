import { AsyncLocalStorage } from 'node:async_hooks'
import type { IncomingMessage } from 'node:http'
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

// The peer address of the socket each request came in on, for the limits that may count a proxy as one caller. Route
// handlers do not see the socket, so the process edge (process-edge.ts), which sees every request before Next does,
// runs the request's work in this scope. One store per process, even when Next loads this module more than once.
const KEY = Symbol.for('gnap.socketAddress')
const sockets: AsyncLocalStorage<string | null> =
  ((globalThis as Record<symbol, unknown>)[KEY] as AsyncLocalStorage<string | null> | undefined) ??
  ((globalThis as Record<symbol, unknown>)[KEY] = new AsyncLocalStorage<string | null>())

/** An address as node reports a socket's peer, in the form the limits count it: IPv4-mapped IPv6 as IPv4, lower case. */
function peerAddress(remoteAddress: string | undefined): string | null {
  if (!remoteAddress) return null
  const address = remoteAddress.toLowerCase()
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/.test(address) ? address.slice('::ffff:'.length) : address
}

/** Runs `fn` (and everything it starts) as the work of a request that came in on a socket from `remoteAddress`. */
export function runWithSocketAddress<T>(remoteAddress: string | undefined, fn: () => T): T {
  return sockets.run(peerAddress(remoteAddress), fn)
}

/**
 * The caller's address for the wrong-shared-secret limit (docs/protocol.md §2.6): the trusted proxies' entry with
 * TRUST_PROXY (callerIp), else the address of the socket the request came in on. Without a trusted proxy nobody can
 * choose that address, so it counts; behind a proxy that is not trusted it is the proxy's, which only makes the
 * callers behind it share one counter of wrong secrets. Null when neither is known.
 */
export function callerAddress(req: Request, config: Pick<GnapConfig, 'trustProxy' | 'trustedProxyHops'>): string | null {
  return config.trustProxy ? callerIp(req, config) : (sockets.getStore() ?? null)
}

/**
 * The same for the introspection listener, which sees its socket: the socket's peer, unless INTROSPECTION_TRUST_PROXY
 * says proxies append to `X-Forwarded-For` in front of the listener too (docs/protocol.md §2.6). TRUST_PROXY alone
 * does not: it is about the public port, and resource servers usually reach the private one directly.
 */
export function listenerCallerAddress(
  req: IncomingMessage,
  forwardedFor: string | null,
  config: Pick<GnapConfig, 'introspectionListener' | 'trustedProxyHops'>,
): string | null {
  if (!config.introspectionListener?.trustProxy) return peerAddress(req.socket.remoteAddress)
  return callerIpFromForwardedFor(forwardedFor, { trustProxy: true, trustedProxyHops: config.trustedProxyHops })
}
