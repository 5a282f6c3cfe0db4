import { createHash, createPublicKey, timingSafeEqual, verify as verifyEd25519 } from 'node:crypto'
import type { KeyObject } from 'node:crypto'
import { httpbis } from 'http-message-signatures'
import { isInnerList, parseDictionary, serializeInnerList, serializeItem } from 'structured-headers'
import type { BareItem, Dictionary, InnerList, Item } from 'structured-headers'
import { GnapError, unresolvableClientKey, type ClientOperation } from '../../kernel/errors'
import type { SignatureCheck } from '../../kernel/metrics'

// HTTP message signatures (RFC 9421) as GNAP clients use them (RFC 9635 §7.3.1, docs/protocol.md §4.2).
// Parsing and the signature base come from maintained libraries; the checks are ours and run in a fixed
// order so that every refusal names the check that failed.

/** A request as received, with the `@target-uri` already rebuilt from AUTH_SERVER_URL + path + query. */
export interface SignedRequest {
  method: string
  /** Scheme and host of AUTH_SERVER_URL + the request's path and query, never the scheme the socket saw. */
  targetUri: string
  headers: Headers
  /** The exact bytes received; null or empty when the request has no body. */
  body: Uint8Array | null
}

export interface CoveredComponent {
  /** Component name as listed, e.g. `@method` or `content-digest`. */
  name: string
  /** The serialized component identifier (name and its parameters), e.g. `"content-digest"`. */
  identifier: string
}

/** One `Signature-Input` member that passed the key-independent shape checks. */
export interface ParsedSignature {
  label: string
  components: CoveredComponent[]
  params: ReadonlyMap<string, BareItem>
  keyid: string
  /** Unix seconds. */
  created: number
  /** Unix seconds. */
  expires?: number
  nonce?: string
  /** The raw signature bytes from the `Signature` member of the same label. */
  signature: Uint8Array
  /** The serialized inner list: the value of `@signature-params` in the signature base (RFC 9421 §2.3). */
  signatureParams: string
}

/** The JWK members verification reads; any JsonWebKey (DOM or node:crypto) fits. */
export interface VerificationJwk {
  kty?: string
  crv?: string
  x?: string
}

export interface VerifyHttpSignatureOptions {
  /** The request's signatures as `readSignatureInputs` returned them: the headers are parsed once per request. */
  signatures: ParsedSignature[]
  /** The contract operation, which decides the status of a key that cannot be resolved (errors.ts). */
  operation: ClientOperation
  /** Resolves a `keyid` to the client's public JWK; null when no such key is published. */
  getKey: (keyid: string) => Promise<VerificationJwk | null>
  now: Date
  /** Oldest accepted `created`, in seconds before now. */
  windowSeconds: number
  /** Newest accepted `created`, in seconds after now (clock skew). */
  skewSeconds: number
  /** Records a nonce; resolves false when it was seen before. Without it nonces are not checked for replay. */
  rememberNonce?: (keyid: string, nonce: string, expiresAt: Date) => Promise<boolean>
}

// RFC 9421 §2.2: the derived components http-message-signatures can compute for a request.
const DERIVED_COMPONENTS = new Set(['@method', '@target-uri', '@authority', '@scheme', '@request-target', '@path', '@query', '@query-param'])
// RFC 9421 §2.1: field parameters meaningful on a request's own header. `req` and `tr` are not.
const FIELD_PARAMS = new Set(['sf', 'key', 'bs'])
// RFC 9110 §5.1 field-name token, lower-case as RFC 9421 §2.1 requires.
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/

/** The check each refusal of this module failed, for the metrics (kernel/metrics.ts). */
const checks = new WeakMap<GnapError, SignatureCheck>()

const refuse = (description: string, check: SignatureCheck): GnapError => failed(new GnapError('invalid_client', description), check)

/** `e`, marked as a refusal by `check`. */
export const failed = (e: GnapError, check: SignatureCheck): GnapError => {
  checks.set(e, check)
  return e
}

/** Which check refused a request (a GnapError this module threw); null for any other error. */
export const signatureCheckOf = (e: unknown): SignatureCheck | null => (e instanceof GnapError ? (checks.get(e) ?? null) : null)

const hasBody = (req: SignedRequest): boolean => req.body !== null && req.body.byteLength > 0

/** The fields a signature covers whenever the request has a body (docs/protocol.md §4.2 step 2). */
const CONTENT_FIELDS = ['content-digest', 'content-type', 'content-length'] as const

/**
 * Steps 1–3 of docs/protocol.md §4.2 that need no key: header presence and syntax, label pairing, covered components
 * and parameters. Returns every well-formed candidate, in `Signature-Input` order.
 * @throws GnapError invalid_client 401 describing the first candidate's failure when none is well formed.
 */
export function readSignatureInputs(req: SignedRequest): ParsedSignature[] {
  const signatureHeader = req.headers.get('signature')
  if (signatureHeader === null) throw refuse('missing Signature header', 'headers')
  const inputHeader = req.headers.get('signature-input')
  if (inputHeader === null) throw refuse('missing Signature-Input header', 'headers')

  const signatures = parseStructuredDictionary(signatureHeader, 'Signature')
  const inputs = parseStructuredDictionary(inputHeader, 'Signature-Input')

  const candidates: ParsedSignature[] = []
  let firstFailure: GnapError | null = null
  for (const [label, input] of inputs) {
    const signature = signatures.get(label)
    if (signature === undefined) continue
    try {
      candidates.push(readCandidate(req, label, input, signature))
    } catch (e) {
      if (!(e instanceof GnapError)) throw e
      firstFailure ??= e
    }
  }
  if (candidates.length > 0) return candidates
  throw firstFailure ?? refuse('no signature label appears in both Signature and Signature-Input', 'headers')
}

/**
 * Verifies the request's HTTP message signature (RFC 9421 §3.2, RFC 9635 §7.3.1, docs/protocol.md §4.2) from the
 * signatures `readSignatureInputs` parsed. Every label present in both headers is examined until one verifies.
 * @throws GnapError invalid_client 401 naming the first failed check of the first well-formed candidate;
 *   `unresolvableClientKey(operation)` when the keyid resolves to no key.
 */
export async function verifyHttpSignature(req: SignedRequest, opts: VerifyHttpSignatureOptions): Promise<{ keyid: string; label: string }> {
  const candidates = opts.signatures
  const nowSeconds = opts.now.getTime() / 1000
  let digestResult: GnapError | null | undefined
  const keys = new Map<string, Promise<VerificationJwk | null>>()

  let firstFailure: GnapError | null = null
  for (const candidate of candidates) {
    try {
      checkTimes(candidate, nowSeconds, opts)
      // The digest belongs to the request, not the label: check it once, report it for each candidate.
      if (digestResult === undefined) digestResult = checkContentDigest(req)
      if (digestResult !== null) throw digestResult

      let keyLookup = keys.get(candidate.keyid)
      if (keyLookup === undefined) {
        keyLookup = opts.getKey(candidate.keyid)
        keys.set(candidate.keyid, keyLookup)
      }
      const jwk = await keyLookup
      if (jwk === null) throw failed(unresolvableClientKey(opts.operation), 'key')
      const publicKey = toEd25519PublicKey(jwk)

      const base = buildSignatureBase(req, candidate)
      if (!verifySignature(base, publicKey, candidate.signature)) throw refuse('signature does not verify', 'signature')

      // RFC 9421 §7.2.2: remember the nonce only once the signature is proven, so forgeries cannot burn nonces.
      if (candidate.nonce !== undefined && opts.rememberNonce !== undefined) {
        const expiresAt = new Date((candidate.created + opts.windowSeconds) * 1000)
        const isFresh = await opts.rememberNonce(candidate.keyid, candidate.nonce, expiresAt)
        if (!isFresh) throw refuse('signature nonce already used', 'nonce')
      }
      return { keyid: candidate.keyid, label: candidate.label }
    } catch (e) {
      if (!(e instanceof GnapError)) throw e
      firstFailure ??= e
    }
  }
  // readSignatureInputs returns at least one candidate, and each one either returned or recorded a failure.
  throw firstFailure ?? refuse('signature does not verify', 'signature')
}

function parseStructuredDictionary(value: string, headerName: string): Dictionary {
  try {
    return parseDictionary(value)
  } catch {
    throw refuse(`${headerName} header is not a structured field dictionary`, 'headers')
  }
}

function readCandidate(req: SignedRequest, label: string, input: Item | InnerList, signatureMember: Item | InnerList): ParsedSignature {
  // RFC 9421 §4.1: each Signature-Input member is an inner list of component identifiers.
  if (!isInnerList(input)) throw refuse('signature input is not an inner list', 'headers')
  // RFC 9421 §4.2: each Signature member is a byte sequence.
  if (isInnerList(signatureMember) || !(signatureMember[0] instanceof ArrayBuffer)) {
    throw refuse('signature value is not a byte sequence', 'headers')
  }

  const components = readComponents(input[0])
  const names = new Set(components.map((c) => c.name))
  if (!names.has('@method')) throw refuse('signature does not cover @method', 'components')
  if (!names.has('@target-uri')) throw refuse('signature does not cover @target-uri', 'components')
  // RFC 9635 §7.3.1: a bound token travels in Authorization, which must be signed.
  if (req.headers.has('authorization') && !names.has('authorization')) {
    throw refuse('signature does not cover the authorization header', 'components')
  }
  // RFC 9635 §7.3.1: a request with content covers content-digest; docs/protocol.md §4.2 step 2 adds its type and
  // length, as Open Payments clients sign them, so no part of what describes the content can be changed unsigned.
  if (hasBody(req)) {
    for (const field of CONTENT_FIELDS) if (!names.has(field)) throw refuse(`signature does not cover ${field}`, 'components')
  }
  for (const { name } of components) {
    if (!name.startsWith('@') && !req.headers.has(name)) throw refuse(`covered header ${name} is missing from the request`, 'components')
  }

  const params = input[1]
  const keyid = params.get('keyid')
  if (typeof keyid !== 'string' || keyid === '') throw refuse('signature keyid parameter is missing', 'parameters')
  const created = params.get('created')
  if (typeof created !== 'number' || !Number.isInteger(created)) {
    throw refuse('signature created parameter is missing or not an integer', 'parameters')
  }
  const expires = params.get('expires')
  if (expires !== undefined && (typeof expires !== 'number' || !Number.isInteger(expires))) {
    throw refuse('signature expires parameter is not an integer', 'parameters')
  }
  const nonce = params.get('nonce')
  if (nonce !== undefined && typeof nonce !== 'string') throw refuse('signature nonce parameter is not a string', 'parameters')
  const alg = params.get('alg')
  if (alg !== undefined && alg !== 'ed25519') throw refuse('signature alg parameter is not ed25519', 'parameters')
  // RFC 9635 §7.3.1 asks for tag "gnap"; Open Payments clients send none.
  const tag = params.get('tag')
  if (tag !== undefined && tag !== 'gnap') throw refuse('signature tag parameter is not gnap', 'parameters')

  return {
    label,
    components,
    params,
    keyid,
    created,
    ...(expires !== undefined ? { expires } : {}),
    ...(nonce !== undefined ? { nonce } : {}),
    signature: new Uint8Array(signatureMember[0]),
    signatureParams: serializeInnerList(input),
  }
}

function readComponents(items: Item[]): CoveredComponent[] {
  const components: CoveredComponent[] = []
  const seen = new Set<string>()
  for (const item of items) {
    const [name, params] = item
    // RFC 9421 §2: component identifiers are strings, lower-case for fields.
    if (typeof name !== 'string') throw refuse('covered component is not a string', 'components')
    if (name !== name.toLowerCase()) throw refuse('covered component names must be lower-case', 'components')
    if (name.startsWith('@')) {
      if (!DERIVED_COMPONENTS.has(name)) throw refuse('signature covers an unsupported derived component', 'components')
      const allowed = name === '@query-param' ? ['name'] : []
      if ([...params.keys()].some((p) => !allowed.includes(p)) || (name === '@query-param' && !params.has('name'))) {
        throw refuse('signature covers a component with unsupported parameters', 'components')
      }
    } else {
      if (!FIELD_NAME.test(name)) throw refuse('covered component is not a valid field name', 'components')
      if ([...params.keys()].some((p) => !FIELD_PARAMS.has(p))) {
        throw refuse('signature covers a component with unsupported parameters', 'components')
      }
    }
    const identifier = serializeItem(item)
    // RFC 9421 §2.5: a component identifier appears at most once.
    if (seen.has(identifier)) throw refuse('covered component listed twice', 'components')
    seen.add(identifier)
    components.push({ name, identifier })
  }
  return components
}

function checkTimes(candidate: ParsedSignature, nowSeconds: number, opts: VerifyHttpSignatureOptions): void {
  const age = nowSeconds - candidate.created
  if (age > opts.windowSeconds || -age > opts.skewSeconds) {
    throw refuse('signature created time outside the allowed window', 'time')
  }
  if (candidate.expires !== undefined && nowSeconds > candidate.expires) throw refuse('signature has expired', 'time')
}

// RFC 9530 §2: Content-Digest is a dictionary of algorithm → byte sequence, computed over the content as sent (an
// empty content has a digest too).
const DIGEST_ALGORITHMS = [
  ['sha-512', 'sha512'],
  ['sha-256', 'sha256'],
] as const

/**
 * docs/protocol.md §4.2 step 4: a body needs a Content-Digest, and a Content-Digest that is sent describes the bytes
 * received, none included. Otherwise a request signed over its digest could arrive with its body stripped and be
 * taken for a body-less one (a continuation signed with an interact_ref answered as a poll).
 */
function checkContentDigest(req: SignedRequest): GnapError | null {
  const body = req.body ?? new Uint8Array()
  const header = req.headers.get('content-digest')
  if (header === null) return body.byteLength > 0 ? refuse('content-digest header is missing', 'digest') : null
  let digests: Dictionary
  try {
    digests = parseDictionary(header)
  } catch {
    return refuse('content-digest header is malformed', 'digest')
  }
  let checked = 0
  for (const [label, algorithm] of DIGEST_ALGORITHMS) {
    const member = digests.get(label)
    if (member === undefined) continue
    if (isInnerList(member) || !(member[0] instanceof ArrayBuffer)) return refuse('content-digest header is malformed', 'digest')
    const expected = createHash(algorithm).update(body).digest()
    const given = Buffer.from(member[0])
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return refuse('content-digest does not match the body', 'digest')
    }
    checked += 1
  }
  if (checked === 0) return refuse('content-digest has no sha-512 or sha-256 entry', 'digest')
  return null
}

// Imported keys by their public key bytes (the JWK's `x`): the same `x` is the same key, so a client's requests
// reuse one KeyObject instead of importing the JWK each time. Bounded; the oldest import is dropped first.
const importedKeys = new Map<string, KeyObject>()
const MAX_IMPORTED_KEYS = 1_000

function toEd25519PublicKey(jwk: VerificationJwk): KeyObject {
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') {
    throw refuse('client key is not an Ed25519 key', 'key')
  }
  const cached = importedKeys.get(jwk.x)
  if (cached !== undefined) return cached
  let key: KeyObject
  try {
    // Only the public members: a published `d` must never turn this into a private key.
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' })
  } catch {
    throw refuse('client key is not an Ed25519 key', 'key')
  }
  if (importedKeys.size >= MAX_IMPORTED_KEYS) importedKeys.delete(importedKeys.keys().next().value!)
  importedKeys.set(jwk.x, key)
  return key
}

function buildSignatureBase(req: SignedRequest, candidate: ParsedSignature): Buffer {
  // Fetch Headers already join repeated fields with ", "; the library trims values and unfolds obs-fold.
  const headers: Record<string, string> = {}
  req.headers.forEach((value, name) => {
    headers[name] = value
  })
  try {
    const base = httpbis.createSignatureBase(
      { fields: candidate.components.map((c) => c.identifier) },
      { method: req.method, url: req.targetUri, headers },
    )
    base.push(['"@signature-params"', [candidate.signatureParams]])
    return Buffer.from(httpbis.formatSignatureBase(base), 'utf8')
  } catch {
    throw refuse('signature base could not be built from the covered components', 'signature')
  }
}

function verifySignature(base: Buffer, publicKey: KeyObject, signature: Uint8Array): boolean {
  try {
    return verifyEd25519(null, base, publicKey, signature)
  } catch {
    return false
  }
}
