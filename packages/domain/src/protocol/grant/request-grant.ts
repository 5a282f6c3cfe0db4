import type { Deps } from '../deps'
import { GnapError } from '../../kernel/errors'
import { serverUrl } from '../../kernel/config/config'
import { itemNeedsInteraction, needsInteraction } from '../access/access-rules'
import { createAccessItems } from '../access/access.repo'
import { insertAccessToken } from '../access-token/access-token.repo'
import { identifyClient } from '../client/client-instance'
import { isAllowedWalletAddressUrl } from '../client/wallet-address'
import { clientDisplayName, publishedClientName } from '../client/client-name'
import { refuseBlockedClient } from '../client/client-block'
import type { RequestAuth } from '../client/request-auth'
import { admitDirectedIdentityGrantRequest, admitGrantRequestFromClient } from '../rate-limit/grant-rate-limit'
import { hashSecret, newId, newNonce, newSecret } from '../../kernel/secrets'
import { toAccessTokenJson, toContinueJson, type GrantRequest, type GrantResponseJson } from './grant.wire'
import { insertGrant } from './grant.repo'
import { insertGrantSubjects } from './grant-subject.repo'
import { insertInteraction } from '../interaction/interaction.repo'
import { recordEvents } from '../events/outbox.repo'
import { grantIssuedEvents } from '../events/grant-events'
import { liveTenantForGrantEndpoint } from '../tenant/tenants'

/**
 * POST / — a grant request (docs/protocol.md §2.1). Non-interactive grants are finalized/issued at once, with
 * their token and their grant.issued event; interactive ones are pending with an interaction.
 * `callerAddress` is the caller's address (the trusted proxy's entry, else the socket's), for a directed identity's
 * share of the allowance directed identities share (§4.5). Required: a caller with no address passes null
 * explicitly, so no caller skips the share by forgetting it (docs/security.md).
 * `endpointTenant` is the tenant id of `POST /{tenantId}` (docs/protocol.md §2.21), null for `POST /`: an unknown or
 * deleted tenant is refused before anything is fetched or written.
 * @throws GnapError invalid_client (400 bad client, 401 signature or blocked client), invalid_request (400; 404 unknown tenant), request_denied (429 rate limit)
 */
export async function requestGrant(
  deps: Deps,
  request: GrantRequest,
  auth: RequestAuth,
  callerAddress: string | null,
  endpointTenant: string | null = null,
): Promise<GrantResponseJson> {
  const { config } = deps
  const tenantId = endpointTenant === null ? null : await liveTenantForGrantEndpoint(deps, endpointTenant)
  const client = await identifyClient(request.client, config.allowHttpWalletAddresses)
  refuseSubjectSchemes(request.subject, config.allowHttpWalletAddresses)
  // A blocked client is refused before anything is fetched for it (docs/protocol.md §2.16).
  await refuseBlockedClient(deps.sql, client.id)
  const rules = {
    incomingPaymentInteraction: config.incomingPaymentInteraction,
    quoteInteraction: config.quoteInteraction,
    listAllInteraction: config.listAllInteraction,
  }
  // A subject request always goes to the owner (docs/protocol.md §2.1, Subject requests).
  const interactive = request.subject !== undefined || needsInteraction(request.access, rules)
  refuseInteractiveDirectedIdentity(client.jwk !== null, interactive)
  // The grant request's client signature (docs/protocol.md §2.1 step 3), by a key the client's wallet address
  // publishes, or the key a directed identity presents (§4.5).
  await auth.verifySignature(client, 'post-request')
  await admitGrantRequestFromClient(deps, client.id)
  if (client.jwk) await admitDirectedIdentityGrantRequest(deps, callerAddress)
  const now = deps.clock()
  const continueToken = newSecret()
  const grantId = newId()
  const continueId = newId()

  if (!interactive) {
    // The client's name, for the console (§2.1 step 5); a directed identity has no wallet address document.
    const clientName = client.jwk ? null : await publishedClientName(deps.walletAddresses, client.id)
    const token = await deps.sql.transaction(async (tx) => {
      await insertGrant(tx, {
        id: grantId,
        state: 'finalized',
        finalizedReason: 'issued',
        finalizedAt: now,
        client: client.id,
        clientName,
        clientJwk: client.jwk ? JSON.stringify(client.jwk) : null,
        tenantId,
        continueId,
        continueTokenHash: hashSecret(continueToken),
        createdAt: now,
      })
      // After the insert, inside its transaction: a block committed meanwhile is seen here (docs/protocol.md §3 Races).
      await refuseBlockedClient(tx, client.id)
      await createAccessItems(tx, grantId, request.access)
      const issued = await insertAccessToken(tx, { grantId, expiresIn: config.accessTokenExpirySeconds, now })
      await recordEvents(
        tx,
        grantIssuedEvents({ id: grantId, client: client.id }, request.access, { managementId: issued.managementId }),
        now,
        deps.config,
      )
      return issued
    })
    deps.log.info({ grantId, interactive: false }, 'grant issued')
    deps.metrics.grant('issued')
    deps.metrics.tokenIssued()
    return {
      access_token: toAccessTokenJson(config, token, request.access),
      continue: toContinueJson(config, continueId, continueToken),
    }
  }

  const interact = consentableInteraction(request, rules)
  const wallet = await deps.walletAddresses.getWalletAddress(client.id)
  const clientName = clientDisplayName(wallet.publicName)

  const interactionId = newId()
  const nonce = newNonce()
  const finish = interact.finish
  const continueNotBefore = new Date(now.getTime() + config.waitSeconds * 1000)
  await deps.sql.transaction(async (tx) => {
    await insertGrant(tx, {
      id: grantId,
      state: 'pending',
      client: client.id,
      clientName,
      tenantId,
      continueId,
      continueTokenHash: hashSecret(continueToken),
      continueNotBefore,
      interactStart: interact.start.join(' '),
      finishMethod: finish?.method ?? null,
      finishUri: finish?.uri ?? null,
      clientNonce: finish?.nonce ?? null,
      createdAt: now,
    })
    await refuseBlockedClient(tx, client.id)
    await createAccessItems(tx, grantId, request.access)
    if (request.subject) await insertGrantSubjects(tx, grantId, request.subject)
    await insertInteraction(tx, {
      id: interactionId,
      nonce,
      grantId,
      interactRef: newId(),
      expiresAt: new Date(now.getTime() + config.interactionExpirySeconds * 1000),
      createdAt: now,
    })
  })
  deps.log.info({ grantId, interactive: true }, 'grant pending interaction')
  deps.metrics.grant('pending')

  const redirect = new URL(serverUrl(config, 'interact', interactionId, nonce))
  redirect.searchParams.set('clientName', clientName)
  redirect.searchParams.set('clientUri', client.id)
  return {
    interact: { redirect: redirect.href, finish: nonce },
    continue: toContinueJson(config, continueId, continueToken, config.waitSeconds),
  }
}

/**
 * What an interactive grant request must carry for the owner to consent (docs/protocol.md §2.1 step 4): every item
 * that needs interaction names its resource (one that skips it, a quote say, may ride along without an identifier),
 * and the client can start a redirect.
 * @returns the request's interaction
 * @throws GnapError invalid_request
 */
function consentableInteraction(request: GrantRequest, rules: Parameters<typeof itemNeedsInteraction>[1]): NonNullable<GrantRequest['interact']> {
  if (request.access.some((item) => itemNeedsInteraction(item, rules) && (!('identifier' in item) || !item.identifier))) {
    throw new GnapError('invalid_request', 'access items that need interaction must have an identifier')
  }
  if (!request.interact || !request.interact.start.includes('redirect')) {
    throw new GnapError('invalid_request', 'this grant needs interaction: interact.start must include "redirect"')
  }
  return request.interact
}

/**
 * A subject is a wallet address, so it takes the scheme a wallet address may have here: https, or http where the
 * settings allow it (docs/protocol.md §2.1, Subject requests).
 * @throws GnapError invalid_request
 */
function refuseSubjectSchemes(subject: string[] | undefined, allowHttp: boolean): void {
  subject?.forEach((id, i) => {
    if (!isAllowedWalletAddressUrl(id, allowHttp))
      throw new GnapError('invalid_request', `subject.sub_ids.${i}.id must be an https wallet address URL`)
  })
}

/**
 * A directed identity asks for non-interactive grants only (auth-server.yaml 1.3.2): the owner would have no wallet
 * address document to learn who asks. 400 invalid_request, since the client is well formed and the request is not
 * (docs/protocol.md §4.5).
 * @throws GnapError invalid_request
 */
function refuseInteractiveDirectedIdentity(directedIdentity: boolean, interactive: boolean): void {
  if (directedIdentity && interactive) {
    throw new GnapError(
      'invalid_request',
      'this grant needs interaction, which a client identified by its key (client.jwk) cannot ask for: identify the client by its wallet address',
    )
  }
}
