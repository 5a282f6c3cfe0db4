import { createHash } from 'node:crypto'

/**
 * The interaction finish hash (RFC 9635 §4.2.3; docs/protocol.md §5): SHA-256 over the client nonce, the AS nonce,
 * the interact_ref and the grant endpoint URI, joined by LF. Encoded in standard base64 with padding, the form
 * Open Payments clients verify (the RFC itself says base64url without padding).
 */
export function finishHash(input: { clientNonce: string; asNonce: string; interactRef: string; grantEndpoint: string }): string {
  const base = [input.clientNonce, input.asNonce, input.interactRef, input.grantEndpoint].join('\n')
  return createHash('sha256').update(base, 'ascii').digest('base64')
}
