import type { Deps } from '../deps'
import { GnapError } from '../errors'
import { verifyHttpSignature, type SignedRequest } from './http-signature'
import { sqlOf } from '../db/client'
import { rememberSignatureNonce } from './signature-nonce.repo'

/** What a signed request presents: its GNAP token, and a way to check its signature against a client's keys. */
export interface RequestAuth {
  /** The value of `Authorization: GNAP <value>`, or null when absent or another scheme. */
  token: string | null
  /**
   * Verifies the request's HTTP message signature with a key that `walletAddress` publishes.
   * @throws GnapError invalid_client (401; 400 when no key can be resolved)
   */
  verifySignature(walletAddress: string): Promise<void>
}

/** `Authorization: GNAP <token>` (RFC 9635 §7.2); anything else is no token. */
export function gnapToken(authorization: string | null): string | null {
  if (!authorization) return null
  const m = /^GNAP ([\x21-\x7e]+)$/.exec(authorization.trim())
  return m?.[1] ?? null
}

export function createRequestAuth(deps: Deps, req: SignedRequest): RequestAuth {
  return {
    token: gnapToken(req.headers.get('authorization')),
    async verifySignature(walletAddress) {
      const now = deps.clock()
      await verifyHttpSignature(req, {
        getKey: (kid) => deps.walletAddresses.getKey(walletAddress, kid),
        now,
        windowSeconds: deps.config.signatureWindowSeconds,
        skewSeconds: deps.config.signatureClockSkewSeconds,
        rememberNonce: (kid, nonce, expiresAt) => rememberSignatureNonce(sqlOf(deps.db), `${walletAddress}#${kid}`, nonce, expiresAt, now),
      })
    },
  }
}

/**
 * Verifies against a client's keys for operations whose contract lists no 400 invalid_client (cancel, rotate,
 * revoke: auth-server.yaml delete-continue, post-token, delete-token): a key that cannot be resolved is then a
 * 401, like any other signature failure (PROTOCOL.md §2.4 step 3).
 */
export async function verifySignatureAs401(auth: RequestAuth, walletAddress: string): Promise<void> {
  try {
    await auth.verifySignature(walletAddress)
  } catch (e) {
    if (e instanceof GnapError && e.code === 'invalid_client' && e.status !== 401) throw new GnapError('invalid_client', e.message, 401)
    throw e
  }
}
