import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import type { Deps } from '../../protocol/deps'
import { findTenant } from '../../protocol/tenant/tenant.repo'
import { rememberSignatureNonce } from '../../protocol/client/signature-nonce.repo'
import { canonicalJson } from './canonical-json'

// The Admin API's request signature (docs/admin-api.md, "Signing a request"), as Rafiki's Admin API clients send it:
//   signature: t=<milliseconds since the epoch>, v<version>=<hex HMAC-SHA256(API secret, "<t>.<canonical JSON body>")>
//   tenant-id: <the signing tenant's id>
// The secret is the tenant's API secret (the operator tenant's is ADMIN_API_SECRET). A signature is accepted within
// ADMIN_API_SIGNATURE_TTL_SECONDS of its timestamp, and once: the SignatureNonce table remembers it until then, so a
// replay is refused by every instance sharing the database, and the retention job deletes it afterwards.

/** Why a request's signature was refused; logged and counted, never told to the caller (all answer 401 alike). */
export type AdminApiRefusal = 'missing' | 'malformed' | 'version' | 'time' | 'tenant' | 'signature' | 'replay'

/** Who signed a request: the tenant, and whether it is the operator tenant (which sees every tenant). */
export interface AdminApiCaller {
  tenantId: string
  isOperator: boolean
}

export type AdminApiAuthentication = { ok: true; caller: AdminApiCaller } | { ok: false; refusal: AdminApiRefusal }

const SIGNATURE_SHAPE = /^t=(\d{1,15}), v(\d{1,6})=([0-9a-f]{64})$/

/** The signature header's parts; null when it is not `t=<ms>, v<N>=<64 hex digits>`. */
export function parseAdminApiSignature(header: string): { timestamp: string; version: number; digest: string } | null {
  const m = SIGNATURE_SHAPE.exec(header)
  if (!m) return null
  return { timestamp: m[1]!, version: Number(m[2]), digest: m[3]! }
}

/** The hex digest a client computes: HMAC-SHA256 keyed with the API secret over `<timestamp>.<canonical JSON>`. */
export function adminApiDigest(secret: string, timestamp: string, body: unknown): string {
  return createHmac('sha256', secret)
    .update(`${timestamp}.${canonicalJson(body)}`, 'utf8')
    .digest('hex')
}

/** The signature header a client sends, for tests and the docs' example. */
export function adminApiSignatureHeader(secret: string, version: number, body: unknown, timestampMs: number): string {
  return `t=${timestampMs}, v${version}=${adminApiDigest(secret, String(timestampMs), body)}`
}

/** Constant-time comparison of two hex digests of the same length. */
function digestsEqual(presented: string, expected: string): boolean {
  const a = Buffer.from(presented, 'hex')
  const b = Buffer.from(expected, 'hex')
  return a.length === b.length && timingSafeEqual(a, b)
}

const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? undefined : value)

/**
 * Checks a request's signature against its parsed JSON body: the header's shape and version, the timestamp within
 * the TTL either side of now, the tenant (live, not deleted), the digest (constant time), and last, once the rest
 * holds, that the signature was not used before (recorded until it expires).
 */
export async function authenticateAdminApiRequest(
  deps: Pick<Deps, 'sql' | 'clock' | 'config'>,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  body: unknown,
  settings: { signatureVersion: number; signatureTtlSeconds: number },
): Promise<AdminApiAuthentication> {
  const signature = header(headers['signature'])
  const tenantId = header(headers['tenant-id'])?.toLowerCase()
  if (signature === undefined || tenantId === undefined) return { ok: false, refusal: 'missing' }
  const parts = parseAdminApiSignature(signature)
  if (!parts) return { ok: false, refusal: 'malformed' }
  if (parts.version !== settings.signatureVersion) return { ok: false, refusal: 'version' }
  const now = deps.clock().getTime()
  const ttlMs = settings.signatureTtlSeconds * 1000
  const signedAt = Number(parts.timestamp)
  if (Math.abs(now - signedAt) > ttlMs) return { ok: false, refusal: 'time' }
  const tenant = await findTenant(deps.sql, tenantId)
  if (!tenant || tenant.deletedAt !== null) return { ok: false, refusal: 'tenant' }
  if (!digestsEqual(parts.digest, adminApiDigest(tenant.apiSecret, parts.timestamp, body))) return { ok: false, refusal: 'signature' }
  // Accepted once: remembered until no clock within the TTL would take it again.
  const seen = createHash('sha256').update(signature, 'utf8').digest('hex')
  const expiresAt = new Date(Math.max(now, signedAt) + ttlMs)
  if (!(await rememberSignatureNonce(deps.sql, `admin-api:${tenant.id}`, seen, expiresAt, new Date(now)))) return { ok: false, refusal: 'replay' }
  return { ok: true, caller: { tenantId: tenant.id, isOperator: tenant.id === deps.config.operatorTenant?.id } }
}
