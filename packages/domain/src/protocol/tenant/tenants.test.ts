import { describe, expect, it } from 'vitest'
import { hashSecret } from '../../kernel/secrets'
import { authAs, gnapError, grantRequest, incomingAccess, introspect, TEST_CLIENT, TEST_CLIENT_NONCE, TEST_IDP_SECRET } from '../../testing/deps'
import { lastSegment } from '../../testing/grant-flows'
import { useTestDeps } from '../../testing/use-test-deps'
import { requestGrant } from '../grant/request-grant'
import { continueGrant } from '../grant/continue-grant'
import { rotateAccessToken } from '../access-token/rotate-access-token'
import { startInteraction } from '../interaction/start-interaction'
import { recordConsent } from '../interaction/record-consent'
import { getGrantForConsent } from '../interaction/get-grant-for-consent'
import { finishInteraction } from '../interaction/finish-interaction'
import { finishHash } from '../interaction/finish-hash'
import type { GrantRequest } from '../grant/grant.wire'
import { createTenant, deleteTenant, ensureOperatorTenant, updateTenant } from './tenants'
import { parseCreateTenant, parseDeleteTenant, parseUpdateTenant } from './tenant.wire'

// Tenants (docs/protocol.md §2.21): the service API's use cases, the operator tenant at start, and grants at
// `POST /{tenantId}` with their tenant's identity provider, on both databases.

const t = useTestDeps()

const A = '6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
const B = '0e2d4c6b-8a9f-4e1d-9c3b-5a7f9e1d3c5b'
const OPERATOR = '438fa74a-fa7d-4317-9ced-dde32ece1787'
const A_IDP = 'https://idp-a.example/consent'
const A_SECRET = 'tenant-a-idp-secret-0123456789'
const B_SECRET = 'tenant-b-idp-secret-0123456789'

const thrown = (fn: () => unknown): unknown => {
  try {
    fn()
  } catch (e) {
    return e
  }
  return null
}

const create = async (body: object) => createTenant(t.deps, parseCreateTenant(body))
const tenantRow = (id: string) => t.db.tenant.findUnique({ where: { id } })

async function tenants(): Promise<void> {
  await create({ id: A, apiSecret: 'api-secret-a-0123456789', idpConsentUrl: A_IDP, idpSecret: A_SECRET })
  await create({ id: B, apiSecret: 'api-secret-b-0123456789', idpConsentUrl: 'https://idp-b.example/consent', idpSecret: B_SECRET })
}

/** An interactive grant at `POST /{tenantId}` (null: `POST /`). */
async function pendingAt(tenantId: string | null, request: GrantRequest = grantRequest()) {
  const response = await requestGrant(t.deps, request, authAs(null), null, tenantId)
  const [, , interactionId, nonce] = new URL(response.interact!.redirect).pathname.split('/')
  return {
    response,
    interactionId: interactionId!,
    nonce: nonce!,
    continueId: lastSegment(response.continue.uri),
    continueToken: response.continue.access_token.value,
  }
}

describe('the service API use cases (docs/protocol.md §2.21)', () => {
  it('creates a tenant, keeping only the hash of its identity-provider secret', async () => {
    await create({ id: A.toUpperCase(), apiSecret: 'api-secret-a-0123456789', idpConsentUrl: A_IDP, idpSecret: A_SECRET })
    expect(await tenantRow(A)).toMatchObject({
      idpConsentUrl: A_IDP,
      idpSecretHash: hashSecret(A_SECRET),
      apiSecret: 'api-secret-a-0123456789',
      deletedAt: null,
    })
    expect(JSON.stringify(await tenantRow(A))).not.toContain(A_SECRET)
  })

  it('a repeated create of a live tenant sets its fields; of a deleted one answers 409 and changes nothing', async () => {
    await tenants()
    expect(await create({ id: A, apiSecret: 'api-secret-a-second-0123' })).toEqual({ created: false })
    expect(await tenantRow(A)).toMatchObject({ apiSecret: 'api-secret-a-second-0123', idpConsentUrl: null, idpSecretHash: null })
    await deleteTenant(t.deps, B, new Date())
    await expect(create({ id: B, apiSecret: 'api-secret-b-other-0123' })).rejects.toMatchObject(gnapError('invalid_request', 409))
    expect(await tenantRow(B)).toMatchObject({ apiSecret: 'api-secret-b-0123456789' })
  })

  it.each([
    ['no id', { apiSecret: 'x-0123456789' }],
    ['an id that is no UUID', { id: 'tenant-a', apiSecret: 'x-0123456789' }],
    ['no apiSecret', { id: A }],
    ['an empty apiSecret', { id: A, apiSecret: '' }],
    ['a consent URL that is no http(s) URL', { id: A, apiSecret: 'x-0123456789', idpConsentUrl: 'javascript:alert(1)' }],
  ])('refuses a create with %s: 400, nothing written', async (_name, body) => {
    await expect(create(body)).rejects.toMatchObject(gnapError('invalid_request', 400))
    expect(await t.db.tenant.count()).toBe(0)
  })

  it('updates the fields given; null clears the identity provider; unknown and deleted tenants are 404', async () => {
    await tenants()
    await updateTenant(t.deps, A, parseUpdateTenant({ idpSecret: 'tenant-a-new-secret-0123456789' }))
    expect(await tenantRow(A)).toMatchObject({ idpConsentUrl: A_IDP, idpSecretHash: hashSecret('tenant-a-new-secret-0123456789') })
    await updateTenant(t.deps, A, parseUpdateTenant({ idpConsentUrl: null, idpSecret: null }))
    expect(await tenantRow(A)).toMatchObject({ idpConsentUrl: null, idpSecretHash: null, apiSecret: 'api-secret-a-0123456789' })
    await expect(
      updateTenant(t.deps, '11111111-2222-4333-8444-555555555555', parseUpdateTenant({ apiSecret: 'x-0123456789' })),
    ).rejects.toMatchObject(gnapError('invalid_request', 404))
    await deleteTenant(t.deps, B, new Date())
    await expect(updateTenant(t.deps, B, parseUpdateTenant({ apiSecret: 'x-0123456789' }))).rejects.toMatchObject(gnapError('invalid_request', 404))
  })

  it('deletes once: a repeat and an unknown id are 404; a body without a date-time is 400', async () => {
    await tenants()
    const deletedAt = parseDeleteTenant({ deletedAt: '2025-01-15T11:00:00.000Z' })
    await deleteTenant(t.deps, A, deletedAt)
    expect((await tenantRow(A))?.deletedAt?.toISOString()).toBe('2025-01-15T11:00:00.000Z')
    await expect(deleteTenant(t.deps, A, new Date())).rejects.toMatchObject(gnapError('invalid_request', 404))
    await expect(deleteTenant(t.deps, 'no-tenant', new Date())).rejects.toMatchObject(gnapError('invalid_request', 404))
    for (const body of [{}, null, { deletedAt: 'yesterday' }, { deletedAt: 42 }, { deletedAt: '2025-01-15' }]) {
      expect(thrown(() => parseDeleteTenant(body))).toMatchObject(gnapError('invalid_request', 400))
    }
  })
})

describe('the operator tenant at start (docs/protocol.md §2.21)', () => {
  it('writes nothing without OPERATOR_TENANT_ID', async () => {
    expect(await ensureOperatorTenant(t.deps)).toBe('none')
    expect(await t.db.tenant.count()).toBe(0)
  })

  it('is created once, and its API secret follows ADMIN_API_SECRET at every start', async () => {
    const deps = (await t.reset({ config: { operatorTenant: { id: OPERATOR, apiSecret: 'admin-api-secret-0123456789' } } })).deps
    expect(await ensureOperatorTenant(deps)).toBe('created')
    const next = { ...deps, config: { ...deps.config, operatorTenant: { id: OPERATOR, apiSecret: 'admin-api-secret-rotated-01' } } }
    expect(await ensureOperatorTenant(next)).toBe('synced')
    expect(await tenantRow(OPERATOR)).toMatchObject({ apiSecret: 'admin-api-secret-rotated-01', deletedAt: null })
    // The service API cannot delete it; were it deleted anyway (the setting changed), the server would not start.
    await expect(deleteTenant(deps, OPERATOR, new Date())).rejects.toMatchObject(gnapError('invalid_request', 409))
    await deleteTenant({ ...deps, config: { ...deps.config, operatorTenant: null } }, OPERATOR, new Date())
    await expect(ensureOperatorTenant(next)).rejects.toThrow(/OPERATOR_TENANT_ID/)
  })
})

describe('grants at POST /{tenantId} (docs/protocol.md §2.21)', () => {
  it('an unknown or deleted tenant gets 404 invalid_request, and nothing is written', async () => {
    await tenants()
    await deleteTenant(t.deps, B, new Date())
    for (const id of ['11111111-2222-4333-8444-555555555555', B, 'not-a-uuid']) {
      await expect(requestGrant(t.deps, grantRequest(), authAs(null), null, id)).rejects.toMatchObject(gnapError('invalid_request', 404))
    }
    expect(await t.db.grant.count()).toBe(0)
    expect(t.walletAddresses).toMatchObject({ fetched: [] })
  })

  it('sends the owner to the tenant identity provider, which alone may decide, and the hash is over AUTH_SERVER_URL/{tenantId}', async () => {
    await tenants()
    const g = await pendingAt(A)
    expect(await t.db.grant.findUnique({ where: { continueId: g.continueId } })).toMatchObject({ tenantId: A })
    const started = await startInteraction(t.deps, { interactionId: g.interactionId, nonce: g.nonce })
    expect(started.kind).toBe('redirect')
    const location = new URL((started as { location: string }).location)
    expect(location.origin + location.pathname).toBe(A_IDP)
    expect(Object.fromEntries(location.searchParams)).toEqual({
      interactId: g.interactionId,
      nonce: g.nonce,
      clientName: 'Test App',
      clientUri: TEST_CLIENT,
    })
    const ask = (idpSecret: string) => getGrantForConsent(t.deps, { interactionId: g.interactionId, nonce: g.nonce, idpSecret })
    // Another tenant's secret, and the operator's, are refused.
    await expect(ask(B_SECRET)).rejects.toMatchObject(gnapError('invalid_request', 401))
    await expect(ask(TEST_IDP_SECRET)).rejects.toMatchObject(gnapError('invalid_request', 401))
    const decide = (idpSecret: string) => recordConsent(t.deps, { interactionId: g.interactionId, nonce: g.nonce, choice: 'accept', idpSecret })
    await expect(decide(B_SECRET)).rejects.toMatchObject(gnapError('invalid_interaction', 401))
    expect(await ask(A_SECRET)).toMatchObject({ state: 'PENDING' })
    await decide(A_SECRET)
    const session = (started as { session: { value: string } }).session.value
    const finished = await finishInteraction(t.deps, { interactionId: g.interactionId, nonce: g.nonce, session })
    const query = new URL((finished as { location: string }).location).searchParams
    const interaction = await t.db.interaction.findUniqueOrThrow({ where: { id: g.interactionId } })
    const expected = finishHash({
      clientNonce: TEST_CLIENT_NONCE,
      asNonce: g.nonce,
      interactRef: interaction.interactRef,
      grantEndpoint: `https://auth.example/${A}`,
    })
    expect(query.get('hash')).toBe(expected)
  })

  it('a tenant without an identity provider gets the built-in consent screen', async () => {
    await create({ id: A, apiSecret: 'api-secret-a-0123456789' })
    const g = await pendingAt(A)
    const started = await startInteraction(t.deps, { interactionId: g.interactionId, nonce: g.nonce })
    expect(started).toMatchObject({ kind: 'redirect', location: `https://auth.example/interact/${g.interactionId}/${g.nonce}/consent` })
  })

  it('POST / keeps the operator identity provider and the hash over AUTH_SERVER_URL/', async () => {
    await tenants()
    const g = await pendingAt(null)
    const started = await startInteraction(t.deps, { interactionId: g.interactionId, nonce: g.nonce })
    expect((started as { location: string }).location).toMatch(/^https:\/\/idp\.example\/consent\?/)
    await expect(getGrantForConsent(t.deps, { interactionId: g.interactionId, nonce: g.nonce, idpSecret: A_SECRET })).rejects.toMatchObject(
      gnapError('invalid_request', 401),
    )
    await recordConsent(t.deps, { interactionId: g.interactionId, nonce: g.nonce, choice: 'accept', idpSecret: TEST_IDP_SECRET })
  })
})

describe('a deleted tenant (docs/protocol.md §2.21)', () => {
  it('its tokens introspect inactive at once, its grants cannot be continued or rotated, its identity provider gets 404', async () => {
    await tenants()
    const issued = await requestGrant(t.deps, grantRequest({ access: [incomingAccess()], interact: null }), authAs(null), null, A)
    const token = issued.access_token!
    const pending = await pendingAt(A)
    const other = await requestGrant(t.deps, grantRequest({ access: [incomingAccess()], interact: null }), authAs(null), null, B)
    expect(await introspect(t.deps, { access_token: token.value })).toMatchObject({ active: true })
    await deleteTenant(t.deps, A, new Date('2030-01-01T00:00:00Z'))
    expect(await introspect(t.deps, { access_token: token.value })).toEqual({ active: false })
    expect(await introspect(t.deps, { access_token: other.access_token!.value })).toMatchObject({ active: true })
    await expect(rotateAccessToken(t.deps, { managementId: lastSegment(token.manage), auth: authAs(token.value) })).rejects.toMatchObject(
      gnapError('invalid_rotation', 404),
    )
    t.clock.advance(t.deps.config.waitSeconds)
    await expect(
      continueGrant(t.deps, { continueId: pending.continueId, interactRef: null, auth: authAs(pending.continueToken) }),
    ).rejects.toMatchObject(gnapError('invalid_continuation', 404))
    await expect(
      getGrantForConsent(t.deps, { interactionId: pending.interactionId, nonce: pending.nonce, idpSecret: A_SECRET }),
    ).rejects.toMatchObject(gnapError('unknown_interaction', 404))
  })
})
