import { calculateJwkThumbprint } from 'jose'
import { badClient } from '../../kernel/errors'
import { isAllowedWalletAddressUrl, type Ed25519Jwk } from './wallet-address'
import { canonicalWalletAddress } from '../owner/canonical-wallet-address'

// The `client` of a grant request in the three forms of auth-server.yaml 1.3.0 (docs/protocol.md §4.5, RFC 9635
// §2.3): the deprecated string, `{walletAddress}`, and `{jwk}` (directed identity: the client instance presents its
// public key by value, RFC 9635 §2.3 and §7.1, and is known by nothing else).

/** A `client` as the request gave it, its form decided and its key checked (the wallet address not yet). */
export type ClientForm = { walletAddress: string } | { jwk: Ed25519Jwk }

/**
 * Who a grant belongs to: `id` is what the grant stores as its client (the wallet address, or for directed identity
 * the key's RFC 9278 thumbprint URI), and `jwk` the key presented by value (null for a wallet address).
 */
export interface ClientInstance {
  id: string
  jwk: Ed25519Jwk | null
}

/** RFC 9278 §3: the URI form of an RFC 7638 SHA-256 JWK thumbprint. */
export const JWK_THUMBPRINT_URI_PREFIX = 'urn:ietf:params:oauth:jwk-thumbprint:sha-256:'

const BASE64URL = /^[A-Za-z0-9_-]+$/
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * Reads the request's `client` member (docs/protocol.md §4.5): a non-empty string or `{walletAddress}` name a wallet
 * address; `{jwk}` presents an Ed25519 public key. Anything else, both members at once, or a key that is not an
 * Ed25519 public key (or carries its private part) is refused.
 * @throws GnapError invalid_client 400
 */
export function parseClientForm(value: unknown): ClientForm {
  if (typeof value === 'string') {
    if (value.length === 0) throw badClient('client must not be empty')
    return { walletAddress: value }
  }
  if (!isRecord(value)) throw badClient('client must be a wallet address URL, {"walletAddress": "<url>"} or {"jwk": {…}}')
  const members = Object.keys(value)
  if ('walletAddress' in value && 'jwk' in value) throw badClient('client must have walletAddress or jwk, not both')
  if (members.length !== 1) throw badClient('client must have exactly one member: walletAddress or jwk')
  if ('walletAddress' in value) {
    if (typeof value.walletAddress !== 'string' || value.walletAddress.length === 0) {
      throw badClient('client.walletAddress must be the wallet address URL of the client instance')
    }
    return { walletAddress: value.walletAddress }
  }
  if ('jwk' in value) return { jwk: parseDirectedIdentityJwk(value.jwk) }
  throw badClient('client must have exactly one member: walletAddress or jwk')
}

/**
 * An Ed25519 public key as auth-server.yaml json-web-key describes it: `kty` OKP, `crv` Ed25519, a 32-byte `x`, a
 * `kid` (the signature's `keyid` names it), `alg` EdDSA, `use` sig if present. A private part (`d`) is refused, never
 * stored. Only these members are kept.
 * @throws GnapError invalid_client 400
 */
function parseDirectedIdentityJwk(jwk: unknown): Ed25519Jwk {
  if (!isRecord(jwk)) throw badClient('client.jwk must be a JSON Web Key object')
  if ('d' in jwk) throw badClient('client.jwk carries a private key (d): send the public key only')
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519') throw badClient('client.jwk must be an Ed25519 public key (kty OKP, crv Ed25519)')
  if (typeof jwk.x !== 'string' || !BASE64URL.test(jwk.x) || Buffer.from(jwk.x, 'base64url').length !== 32) {
    throw badClient('client.jwk.x must be the 32-byte Ed25519 public key, base64url-encoded')
  }
  // Only the canonical encoding: other spellings of the same 32 bytes (trailing bits set) would give the same key
  // another RFC 7638 thumbprint, and so another client id past a block or a rate limit.
  if (Buffer.from(jwk.x, 'base64url').toString('base64url') !== jwk.x) {
    throw badClient('client.jwk.x must be in canonical base64url (no padding, unused bits zero)')
  }
  if (typeof jwk.kid !== 'string' || jwk.kid.length === 0 || jwk.kid.length > 256)
    throw badClient('client.jwk.kid must be a string of 1 to 256 characters')
  if (jwk.alg !== 'EdDSA') throw badClient('client.jwk.alg must be EdDSA')
  if (jwk.use !== undefined && jwk.use !== 'sig') throw badClient('client.jwk.use must be sig')
  return { kid: jwk.kid, alg: 'EdDSA', kty: 'OKP', crv: 'Ed25519', x: jwk.x, ...(jwk.use === 'sig' ? { use: 'sig' as const } : {}) }
}

/** The RFC 7638 thumbprint (SHA-256, base64url) of an Ed25519 public key: what the console shows for it. */
export const jwkThumbprint = (jwk: Ed25519Jwk): Promise<string> => calculateJwkThumbprint({ kty: jwk.kty, crv: jwk.crv, x: jwk.x }, 'sha256')

/**
 * The client instance a grant request names. A wallet address must be one the server may fetch (https, or loopback
 * or ALLOW_HTTP_WALLET_ADDRESSES); a directed identity is known by its key's thumbprint URI.
 * @throws GnapError invalid_client 400
 */
export async function identifyClient(form: ClientForm, allowHttpWalletAddresses: boolean): Promise<ClientInstance> {
  if ('jwk' in form) return { id: `${JWK_THUMBPRINT_URI_PREFIX}${await jwkThumbprint(form.jwk)}`, jwk: form.jwk }
  if (!isAllowedWalletAddressUrl(form.walletAddress, allowHttpWalletAddresses)) {
    throw badClient('client must be an https wallet address URL')
  }
  // Known by its canonical form (docs/protocol.md §6), as blocks, grants and the console name it.
  return { id: canonicalWalletAddress(form.walletAddress) ?? form.walletAddress, jwk: null }
}

/** A stored grant's client instance: its `client` and its `clientJwk` column (JSON, null for a wallet address). */
export function storedClient(grant: { client: string; clientJwk: string | null }): ClientInstance {
  return { id: grant.client, jwk: grant.clientJwk === null ? null : (JSON.parse(grant.clientJwk) as Ed25519Jwk) }
}

/** The thumbprint a stored client's id carries, or null for a wallet address. */
export const thumbprintOfClient = (client: string): string | null =>
  client.startsWith(JWK_THUMBPRINT_URI_PREFIX) ? client.slice(JWK_THUMBPRINT_URI_PREFIX.length) : null
