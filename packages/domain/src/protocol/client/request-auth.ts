import type { Deps } from '../deps'
import { isGnapError, unresolvableClientKey, type ClientOperation } from '../../kernel/errors'
import { failed, readSignatureInputs, signatureCheckOf, verifyHttpSignature, type ParsedSignature, type SignedRequest } from './http-signature'
import { inSpan } from '../../kernel/tracing'
import { rememberSignatureNonce } from './signature-nonce.repo'
import type { ClientInstance } from './client-instance'

/**
 * What a signed request presents (docs/protocol.md §4): its GNAP token, and its signature, checked against the keys
 * of the client the operation names. Made once per request by the route wrapper, which parses the signature headers
 * here, once; the authentication steps (protocol/grant/continuation-auth.ts, protocol/access-token/management-auth.ts, and the
 * grant request's own client signature in request-grant.ts) call `verifySignature`.
 */
export interface RequestAuth {
  /** The value of `Authorization: GNAP <value>`, or null when absent or another scheme. */
  token: string | null
  /**
   * Verifies the request's HTTP message signature with a key of `client`: one its wallet address publishes, or for a
   * directed identity the key it presented by value, which the signature's `keyid` must name (docs/protocol.md §4.5).
   * @throws GnapError invalid_client: 401, or `unresolvableClientKey(operation)` when no key can be resolved
   */
  verifySignature(client: ClientInstance, operation: ClientOperation): Promise<void>
}

/** `Authorization: GNAP <token>` (RFC 9635 §7.2); anything else is no token. */
export function gnapToken(authorization: string | null): string | null {
  if (!authorization) return null
  const m = /^GNAP ([\x21-\x7e]+)$/.exec(authorization.trim())
  return m?.[1] ?? null
}

/**
 * Reads a signed request's token and signature headers. The signature headers' shape is checked here, before any
 * use case runs (docs/protocol.md §4.2 steps 1–3).
 * @throws GnapError invalid_client 401 when no signature is well formed
 */
export function createRequestAuth(deps: Deps, req: SignedRequest): RequestAuth {
  let signatures: ParsedSignature[]
  try {
    signatures = readSignatureInputs(req)
  } catch (e) {
    throw counted(deps, e)
  }
  return {
    token: gnapToken(req.headers.get('authorization')),
    async verifySignature(client, operation) {
      const now = deps.clock()
      const { jwk } = client
      // A child span of the request (docs/operating.md "Traces"): the operation's name only, never the signature.
      await inSpan('gnap.verify_signature', { 'gnap.operation': operation }, () =>
        verifyHttpSignature(req, {
          signatures,
          operation,
          getKey: async (kid) => {
            // A directed identity's key came with its grant request: nothing is fetched (RFC 9635 §7.1).
            if (jwk) return kid === jwk.kid ? jwk : null
            try {
              return await deps.walletAddresses.getKey(client.id, kid)
            } catch (e) {
              // The wallet address or its key set could not be fetched: the key cannot be resolved.
              if (isGnapError(e) && e.code === 'invalid_client') throw failed(unresolvableClientKey(operation, e.message), 'key')
              throw e
            }
          },
          now,
          windowSeconds: deps.config.signatureWindowSeconds,
          skewSeconds: deps.config.signatureClockSkewSeconds,
          rememberNonce: (kid, nonce, expiresAt) => rememberSignatureNonce(deps.sql, `${client.id}#${kid}`, nonce, expiresAt, now),
        }),
      ).catch((e: unknown) => {
        throw counted(deps, e)
      })
    },
  }
}

/** A signature refusal, counted in the metrics by the check that failed; any other error as it is. */
function counted(deps: Deps, e: unknown): unknown {
  const check = signatureCheckOf(e)
  if (check !== null) deps.metrics.signatureFailure(check)
  return e
}
