import ipaddr from 'ipaddr.js'

// Which IP addresses an outbound fetch of a client's wallet address may connect to (docs/protocol.md §4.3, RFC 9635
// §11): public unicast addresses, and the networks an operator lists. Everything else (loopback, RFC 1918, link-local,
// unique-local, CGNAT, multicast, unspecified, broadcast, documentation and other reserved ranges, and IPv6 outside
// global unicast, which covers IPv4-compatible, NAT64 and 6to4 forms) is refused, in whatever spelling it arrives.

/** A network in CIDR notation, as `WALLET_ADDRESS_ALLOWED_NETWORKS` lists them. */
export type Network = [ipaddr.IPv4 | ipaddr.IPv6, number]

/** The loopback networks: allowed outside production (docs/protocol.md §7). */
export const LOOPBACK_NETWORKS: readonly string[] = ['127.0.0.0/8', '::1/128']

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3')

/**
 * Parses one network: `a.b.c.d/n`, `x::y/n`, or a single address (a /32 or /128). IPv4-mapped IPv6 networks are
 * read as the IPv4 network they map.
 * @throws Error when the text is not a network
 */
export function parseNetwork(text: string): Network {
  const trimmed = text.trim()
  const [address, prefix] = trimmed.includes('/') ? ipaddr.parseCIDR(trimmed) : single(trimmed)
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && prefix >= 96) {
    return [(address as ipaddr.IPv6).toIPv4Address(), prefix - 96]
  }
  return [address, prefix]
}

function single(text: string): Network {
  const address = ipaddr.parse(text)
  return [address, address.kind() === 'ipv4' ? 32 : 128]
}

/**
 * The address as ipaddr.js reads it, IPv4-mapped IPv6 (`::ffff:127.0.0.1`, `::ffff:7f00:1`) turned into the IPv4
 * address it maps; null when the text is no IP address (a DNS name). Brackets around IPv6 are allowed.
 */
export function parseIpAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text
  // ipaddr.js also reads the legacy IPv4 forms (hex, octal, fewer parts), as the URL parser and getaddrinfo do.
  if (!ipaddr.isValid(bare)) return null
  return ipaddr.process(bare)
}

/** Whether an outbound fetch may connect to `address`: a public unicast address, or one inside `allowed`. */
export function isAllowedAddress(address: ipaddr.IPv4 | ipaddr.IPv6, allowed: readonly Network[]): boolean {
  if (allowed.some(([network, prefix]) => network.kind() === address.kind() && address.match(network, prefix))) return true
  if (address.range() !== 'unicast') return false
  return address.kind() === 'ipv4' || address.match(GLOBAL_UNICAST_V6)
}

/** `isAllowedAddress` for an address in text; text that is no IP address is refused. */
export function isAllowedAddressText(text: string, allowed: readonly Network[]): boolean {
  const address = parseIpAddress(text)
  return address !== null && isAllowedAddress(address, allowed)
}
