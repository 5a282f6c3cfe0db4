import type { Deps } from '../deps'
import { badIdpSecret } from '../errors'
import { secretsEqual } from '../secrets'

/**
 * The identity-provider API (id-provider.yaml) is authenticated by the `x-idp-secret` header. Digests are
 * compared, so a secret of another length is a plain 401, never a crash (docs/protocol.md §8.6).
 * @throws GnapError `code` (401)
 */
export function checkIdpSecret(deps: Deps, presented: string | null, code: 'invalid_request' | 'invalid_interaction'): void {
  const expected = deps.config.identityServerSecret
  if (!expected || !presented || !secretsEqual(presented, expected)) throw badIdpSecret(code)
}
