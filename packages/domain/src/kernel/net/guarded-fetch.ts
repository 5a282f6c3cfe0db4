import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { SpanKind, inSpan, traceHeaders, tracingEnabled } from '../tracing'
import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import { Readable } from 'node:stream'
import { isAllowedAddress, parseIpAddress, parseNetwork, type Network } from './outbound-address'

// The one way the server connects to a URL a client chose (docs/protocol.md §4.3, RFC 9635 §11). The host is
// resolved here, every resolved address is checked (outbound-address.ts), and the socket connects to exactly the
// addresses that were checked: the check and the connection share one DNS answer, so a name that resolves to a
// public address for the check and to loopback for the connection cannot slip through. An IP address written in
// the URL is checked before anything is opened. A refused address never gets a connection attempt.
//
// Built on node:http(s) with a `lookup` hook rather than on the `undici` package: importing undici installs its own
// global dispatcher, which the runtime's built-in fetch of another undici version then fails to use.

/** The host of a fetched URL is, or resolves to, an address outbound fetches may not reach. */
export class RefusedAddressError extends Error {
  constructor(host: string) {
    super(`refused to connect to ${host}: not a public address and not in the allowed networks`)
    this.name = 'RefusedAddressError'
  }
}

/**
 * A `fetch` for GET requests (and POSTs of a string body: webhook deliveries) that connects only to public unicast addresses or to the `allowedNetworks` (CIDR
 * texts). It never follows a redirect (the caller sees the 3xx), and does not decompress.
 */
export function createGuardedFetch(allowedNetworks: readonly string[]): typeof fetch {
  const allowed: Network[] = allowedNetworks.map(parseNetwork)

  const lookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { family: options.family ?? 0, hints: options.hints ?? 0, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, [])
      // Every address must pass, not just the one tried first: the connection may fall back to any of them.
      if (addresses.length === 0 || addresses.some((a) => !isAllowedLookupAddress(a, allowed))) {
        return callback(Object.assign(new RefusedAddressError(hostname), { code: 'EREFUSEDADDRESS' }), [])
      }
      if (options.all === true) return callback(null, addresses)
      const first = addresses[0]!
      callback(null, first.address, first.family)
    })
  }

  // Kept-alive sockets are reused only for the same host and port, and each was connected to a checked address.
  const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) }

  // With tracing on (docs/operating.md "Traces"): a client span per call, named by method and carrying only the
  // host (a webhook URL's path or query may hold a secret), and its `traceparent` on the request.
  const guarded = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (!tracingEnabled()) return send(input, init)
    const url = new URL(input instanceof Request ? input.url : input)
    const method = init?.method ?? 'GET'
    const attributes = { 'http.request.method': method, 'server.address': url.hostname, 'url.scheme': url.protocol.slice(0, -1) }
    return inSpan(
      method,
      attributes,
      () => send(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), ...traceHeaders() } }),
      SpanKind.CLIENT,
      true,
    )
  }
  return guarded as typeof fetch

  function send(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    return new Promise<Response>((resolve, reject) => {
      const url = new URL(input instanceof Request ? input.url : input)
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return reject(new TypeError(`unsupported protocol ${url.protocol}`))
      // An IP address in the URL (the URL parser has already normalised 2130706433, 127.1, 0x7f.1, ::ffff:7f00:1,
      // …) is connected to without a lookup, so it is checked here.
      const literal = parseIpAddress(url.hostname)
      if (literal !== null && !isAllowedAddress(literal, allowed)) return reject(new RefusedAddressError(url.hostname))

      const client = url.protocol === 'https:' ? https : http
      const req = client.request(
        url,
        {
          method: init?.method ?? 'GET',
          headers: Object.fromEntries(new Headers(init?.headers).entries()),
          agent: agents[url.protocol],
          lookup,
          ...(init?.signal ? { signal: init.signal } : {}),
        },
        (res) => {
          try {
            const headers = new Headers()
            for (const [name, value] of Object.entries(res.headers)) {
              for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v)
            }
            const status = res.statusCode ?? 0
            const bodyless = status === 204 || status === 205 || status === 304
            if (bodyless) res.resume()
            const body = bodyless ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>)
            resolve(new Response(body, { status, headers }))
          } catch (e) {
            res.destroy()
            reject(e instanceof Error ? e : new Error(String(e)))
          }
        },
      )
      req.on('error', reject)
      if (init?.body !== undefined && init.body !== null && typeof init.body !== 'string') {
        req.destroy()
        return reject(new TypeError('only a string body is supported'))
      }
      req.end(init?.body ?? undefined)
    })
  }
}

function isAllowedLookupAddress(a: LookupAddress, allowed: readonly Network[]): boolean {
  const address = parseIpAddress(a.address)
  return address !== null && isAllowedAddress(address, allowed)
}
