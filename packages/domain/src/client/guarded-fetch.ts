import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { Agent, fetch as undiciFetch } from 'undici'
import { isAllowedAddress, parseIpAddress, parseNetwork, type Network } from './outbound-address'

// The one way the server connects to a URL a client chose (docs/protocol.md §4.3, RFC 9635 §11). The host is
// resolved here, every resolved address is checked (outbound-address.ts), and the socket connects to exactly the
// addresses that were checked: the check and the connection share one DNS answer, so a name that resolves to a
// public address for the check and to loopback for the connection cannot slip through. An IP address written in
// the URL is checked before anything is opened. A refused address never gets a connection attempt.

/** The host of a fetched URL is, or resolves to, an address outbound fetches may not reach. */
export class RefusedAddressError extends Error {
  constructor(host: string) {
    super(`refused to connect to ${host}: not a public address and not in the allowed networks`)
    this.name = 'RefusedAddressError'
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/**
 * A `fetch` that connects only to public unicast addresses or to the `allowedNetworks` (CIDR texts). Redirects are
 * the caller's to refuse (`redirect: 'manual'`): none is followed here either.
 */
export function createGuardedFetch(allowedNetworks: readonly string[]): typeof fetch {
  const allowed: Network[] = allowedNetworks.map(parseNetwork)

  const lookup = (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void => {
    dnsLookup(hostname, { family: options.family === 'IPv6' ? 6 : options.family === 'IPv4' ? 4 : Number(options.family ?? 0), all: true }, (err, addresses) => {
      if (err) return callback(err, [])
      // Every address must pass, not just the one tried first: the connection may fall back to any of them.
      const refused = addresses.length === 0 || addresses.some((a) => !isAllowedLookupAddress(a, allowed))
      if (refused) return callback(Object.assign(new RefusedAddressError(hostname), { code: 'EREFUSEDADDRESS' }), [])
      const first = addresses[0]!
      if (options.all === true) callback(null, addresses)
      else callback(null, first.address, first.family)
    })
  }

  const agent = new Agent({ connect: { lookup: lookup as never } })

  return (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input)
    // An IP address in the URL (the URL parser has already normalised 2130706433, 127.1, 0x7f.1, ::ffff:7f00:1, …)
    // is connected to without a lookup, so it is checked here.
    const literal = parseIpAddress(url.hostname)
    if (literal !== null && !isAllowedAddress(literal, allowed)) throw new RefusedAddressError(url.hostname)
    const response = await undiciFetch(url, { ...(init as object), dispatcher: agent })
    return response as unknown as Response
  }) as typeof fetch
}

function isAllowedLookupAddress(a: LookupAddress, allowed: readonly Network[]): boolean {
  const address = parseIpAddress(a.address)
  return address !== null && isAllowedAddress(address, allowed)
}
