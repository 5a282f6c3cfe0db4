import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto'
import type { KeyObject } from 'node:crypto'
import { createHeaders } from '@interledger/http-signature-utils'
import type { Ed25519Jwk } from '../protocol/client/wallet-address'

// Client keys and request signing for tests. Signing goes through @interledger/http-signature-utils, the code
// the Open Payments SDK itself signs with, so a test that passes proves the SDK's requests pass.

export interface ClientKey {
  kid: string
  privateKey: KeyObject
  /** The public JWK as a wallet address publishes it (wallet-address-server.yaml json-web-key). */
  jwk: Ed25519Jwk
}

export function generateClientKey(kid = 'key-1'): ClientKey {
  const { privateKey } = generateKeyPairSync('ed25519')
  const { x } = createPublicKey(privateKey).export({ format: 'jwk' })
  if (x === undefined) throw new Error('generateClientKey: no public key')
  return { kid, privateKey, jwk: { kid, alg: 'EdDSA', kty: 'OKP', crv: 'Ed25519', x, use: 'sig' } }
}

export interface SignedHeadersInput {
  method: string
  url: string
  /** Extra headers to send and sign when the SDK would, e.g. `Authorization: GNAP <token>`. */
  headers?: Record<string, string>
  /** Compact JSON, exactly the bytes the SDK sends (it signs JSON.stringify(JSON.parse(body))). */
  body?: string
}

/**
 * The headers the Open Payments SDK sends for this request (lower-case names): its defaults `Accept` and
 * `Content-Type: application/json` (also on body-less requests), the given headers, and for a body
 * `Content-Digest` and `Content-Length`, then `Signature` and `Signature-Input` (label sig1, keyid and created).
 */
export async function signedHeaders(key: ClientKey, input: SignedHeadersInput): Promise<Record<string, string>> {
  if (input.body !== undefined && input.body !== '' && JSON.stringify(JSON.parse(input.body)) !== input.body) {
    throw new Error('signedHeaders: body must be compact JSON, as the SDK sends it; its digest covers that form')
  }
  // What ky hands the SDK's signing hook: a normalised URL and Fetch Headers (lower-case names).
  const headers = new Headers({ accept: 'application/json', 'content-type': 'application/json' })
  for (const [name, value] of Object.entries(input.headers ?? {})) headers.set(name, value)
  const url = new URL(input.url).href
  const method = input.method.toUpperCase()
  const body = input.body === '' ? undefined : input.body

  const signed = await createHeaders({
    request: { method, url, headers: Object.fromEntries(headers.entries()), ...(body !== undefined ? { body } : {}) },
    privateKey: key.privateKey,
    keyId: key.kid,
  })
  if (body !== undefined) {
    headers.set('content-digest', required(signed['Content-Digest']))
    headers.set('content-length', required(signed['Content-Length']))
    headers.set('content-type', required(signed['Content-Type']))
  }
  headers.set('signature', signed.Signature)
  headers.set('signature-input', signed['Signature-Input'])
  return Object.fromEntries(headers.entries())
}

function required(value: string | undefined): string {
  if (value === undefined) throw new Error('signedHeaders: the signer returned no content headers for a body')
  return value
}

/**
 * Headers of a body-less request signed with a `nonce` parameter, which the SDK never sends: for tests of
 * signature replay (RFC 9421 §2.3), covering @method, @target-uri and the given headers.
 */
export async function signedHeadersWithNonce(
  key: ClientKey,
  input: { method: string; url: string; headers: Record<string, string>; nonce: string },
): Promise<Record<string, string>> {
  const { httpbis, createSigner } = await import('http-message-signatures')
  const signed = await httpbis.signMessage(
    {
      key: createSigner(key.privateKey, 'ed25519', key.kid),
      name: 'sig1',
      params: ['keyid', 'created', 'nonce'],
      paramValues: { nonce: input.nonce },
      fields: ['@method', '@target-uri', ...Object.keys(input.headers).map((h) => h.toLowerCase())],
    },
    { method: input.method, url: input.url, headers: input.headers },
  )
  return signed.headers as Record<string, string>
}

/**
 * Headers of a request signed over exactly `components` (SDK parameters: label sig1, keyid and created), for tests of
 * what a signature must cover. `headers` are sent as given; nothing is added, not even for a body.
 */
export async function signedHeadersCovering(
  key: ClientKey,
  input: { method: string; url: string; headers: Record<string, string>; components: string[] },
): Promise<Record<string, string>> {
  const { httpbis, createSigner } = await import('http-message-signatures')
  const signed = await httpbis.signMessage(
    { key: createSigner(key.privateKey, 'ed25519', key.kid), name: 'sig1', params: ['keyid', 'created'], fields: input.components },
    { method: input.method, url: input.url, headers: input.headers },
  )
  return signed.headers as Record<string, string>
}

/** The `Content-Digest` the SDK sends for these bytes (RFC 9530, sha-512). */
export const contentDigest = (bytes: string | Uint8Array): string => `sha-512=:${createHash('sha512').update(bytes).digest('base64')}:`
