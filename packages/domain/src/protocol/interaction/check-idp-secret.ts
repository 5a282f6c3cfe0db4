import type { Deps } from '../deps'
import { badIdpSecret } from '../../kernel/errors'
import { secretsInclude } from '../../kernel/secrets'

/**
 * The identity-provider API (id-provider.yaml) is authenticated by the `x-idp-secret` header: any entry of
 * IDENTITY_SERVER_SECRET (docs/protocol.md §7). Digests are
 * compared, so a secret of another length is a plain 401, never a crash (docs/protocol.md §8.6).
 * @throws GnapError `code` (401)
 */
export function checkIdpSecret(deps: Deps, presented: string | null, code: 'invalid_request' | 'invalid_interaction'): void {
  const expected = deps.config.identityServerSecrets
  if (!expected || !presented || !secretsInclude(presented, expected)) throw badIdpSecret(code)
}
