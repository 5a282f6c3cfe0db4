import type { Deps } from '../deps'
import { badIdpSecret } from '../../kernel/errors'
import { hashSecret, secretsInclude } from '../../kernel/secrets'
import { findTenantIdsByIdpSecretHash } from '../tenant/tenant.repo'
import { isOperatorGrant, tenantOfGrant } from '../tenant/tenants'

/** Whom a presented `x-idp-secret` speaks for: the operator's identity provider, and the tenants whose secret it is. */
export interface IdpCaller {
  operator: boolean
  tenants: string[]
}

/** Whether `presented` is an entry of IDENTITY_SERVER_SECRET: the operator tenant's (or the implicit one's) identity provider. */
function presentsOperatorIdpSecret(deps: Deps, presented: string | null): boolean {
  const expected = deps.config.identityServerSecrets
  return expected !== null && presented !== null && secretsInclude(presented, expected)
}

/**
 * The identity-provider API (id-provider.yaml) is authenticated by the `x-idp-secret` header: any entry of
 * IDENTITY_SERVER_SECRET (docs/protocol.md §7). Digests are
 * compared, so a secret of another length is a plain 401, never a crash (docs/protocol.md §8.6).
 * @throws GnapError `code` (401)
 */
export function checkIdpSecret(deps: Deps, presented: string | null, code: 'invalid_request' | 'invalid_interaction'): void {
  if (!presentsOperatorIdpSecret(deps, presented)) throw badIdpSecret(code)
}

/**
 * Whom an `x-idp-secret` speaks for (docs/protocol.md §2.21): the operator tenant's identity provider (IDENTITY_SERVER_SECRET,
 * as checkIdpSecret), and the tenants whose identity provider was given this secret through the service API
 * (compared by its hash; a deleted tenant's still counts here, so that its calls then answer as for an unknown
 * interaction). A secret that is neither is a 401, counted as checkIdpSecret's. Which grant the caller may act on is
 * `refuseOtherTenantsIdp`'s, once the interaction is found.
 * @throws GnapError `code` (401)
 */
export async function identifyIdpCaller(deps: Deps, presented: string | null, code: 'invalid_request' | 'invalid_interaction'): Promise<IdpCaller> {
  if (!presented) throw badIdpSecret(code)
  const operator = presentsOperatorIdpSecret(deps, presented)
  const tenants = await findTenantIdsByIdpSecretHash(deps.sql, hashSecret(presented))
  if (!operator && tenants.length === 0) throw badIdpSecret(code)
  return { operator, tenants }
}

/**
 * Another tenant's identity provider may not see or decide this grant's interaction (docs/protocol.md §2.21): the
 * secret must be the one of the grant's own tenant.
 * @throws GnapError `code` (401)
 */
export function refuseOtherTenantsIdp(
  deps: Deps,
  caller: IdpCaller,
  grant: { tenantId: string | null },
  code: 'invalid_request' | 'invalid_interaction',
): void {
  if (caller.operator && isOperatorGrant(deps, grant)) return
  const tenantId = tenantOfGrant(deps, grant)
  if (tenantId !== null && caller.tenants.includes(tenantId)) return
  throw badIdpSecret(code)
}
