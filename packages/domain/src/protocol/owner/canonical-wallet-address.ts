// The one written form of a wallet address URL (docs/protocol.md §6, "Wallet address identifiers"): every
// identifier that names a wallet address, or a resource below one, is brought to it once, where the request that
// carries it is parsed, and stored in it. Every comparison of an owner's wallet addresses with a grant's identifiers
// (consent, /account, the console's owner pages, disable, delete, remove-wallet-address) is then an equality or a
// prefix of the same strings, in SQL as in code, so no other spelling of an owner's address escapes them.

/** The characters RFC 3986 §2.3 calls unreserved: percent-encoding one of them changes nothing (§6.2.2.2). */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/

/**
 * Percent-encoding normalisation of RFC 3986 §6.2.2.1 and §6.2.2.2: hex digits upper case, and an encoded
 * unreserved character written as itself (`%7e` → `~`, `%61` → `a`). Reserved characters (`%2F`) stay encoded.
 */
function normalisePercentEncoding(path: string): string {
  return path.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16))
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`
  })
}

/**
 * The canonical form of a wallet address URL, or of a resource URL below one; null for what is not one.
 *
 * - parsed as a WHATWG URL: scheme and host lower case, the default port dropped, dot segments (also `%2e`) resolved;
 * - percent-encoding normalised in the path (RFC 3986 §6.2.2.1–6.2.2.2);
 * - no trailing slash (`https://wallet.example/alice/` is `https://wallet.example/alice`).
 *
 * Refused (null): anything but an absolute http(s) URL with a host; white space or control characters; credentials;
 * a query or a fragment, even an empty one (`?`, `#`). A wallet address has none of these (Open Payments
 * wallet-address-server.yaml), and keeping them would leave two spellings of one address or a part nobody compares.
 * Canonicalising a canonical URL returns it unchanged.
 */
export function canonicalWalletAddress(text: string): string | null {
  if (/[\u0000-\u0020\u007f]/.test(text) || text.includes('?') || text.includes('#')) return null
  if (!/^https?:\/\/[^/]/i.test(text) || !URL.canParse(text)) return null
  const url = new URL(text)
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hostname === '' || url.username !== '' || url.password !== '') return null
  // Setting the path parses it again, so a segment that decoding turned into a dot segment is resolved too.
  url.pathname = normalisePercentEncoding(url.pathname)
  return url.href.replace(/\/+$/, '')
}
