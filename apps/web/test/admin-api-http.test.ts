// Rafiki's auth Admin API (docs/admin-api.md) against `next start` with ADMIN_PORT: the test wallet's Grants page
// (list by identifier, get one, revoke), signed as it signs, for the operator tenant and for a tenant the backend
// created through the service API, over grants the real Open Payments client requested at each tenant's endpoint.
// A revoked grant's token introspects inactive at once. On SQLite, and on PostgreSQL when TEST_DATABASE_URL names a
// server. The operator-and-tenant checks rely on the console use cases' tenant scoping (docs/protocol.md §2.21).
import { createHmac } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isFinalizedGrant } from '@interledger/open-payments'
import { freePort } from '@gnap/test-support'
import { freshDatabase, providers, type TestDatabase } from './support/databases'
import { introspect, startWorld, type World } from './support/world'

const OPERATOR = '438fa74a-fa7d-4317-9ced-dde32ece1787'
const OPERATOR_SECRET = 'operator-admin-api-secret-0123456789abcdef'
const TENANT = '6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
const TENANT_SECRET = 'tenant-api-secret-0123456789abcdef'
const ALICE = 'https://wallet.example/alice'

// The test wallet's documents, field for field (its `grant.request.ts`).
const GET_GRANTS = `query GetGrantsQuery($after: String, $before: String, $first: Int, $last: Int, $filter: GrantFilter) {
  grants(after: $after, before: $before, first: $first, last: $last, filter: $filter) {
    edges { cursor node { id client state access { id identifier createdAt actions type limits { receiver debitAmount { value assetCode assetScale } receiveAmount { value assetCode assetScale } interval } } createdAt } }
    pageInfo { endCursor hasNextPage hasPreviousPage startCursor }
  }
}`
const GET_GRANT = `query GetGrantQuery($grantId: ID!) { grant(id: $grantId) { id client state createdAt } }`
const REVOKE_GRANT = `mutation RevokeGrantMutation($grantId: String!) { revokeGrant(input: { grantId: $grantId }) { id } }`

/** JSON with object members sorted, as the wallet's `json-canonicalize` writes it (written here apart from the server's). */
const canonical = (v: unknown): string =>
  v === null || typeof v !== 'object'
    ? JSON.stringify(v)
    : Array.isArray(v)
      ? `[${v.map(canonical).join(',')}]`
      : `{${Object.keys(v)
          .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
          .join(',')}}`

describe.each(providers)("the test wallet's Grants page on the Admin API, on %s", (provider) => {
  let w: World
  let db: TestDatabase
  let adminApi: string
  let serviceApi: string

  beforeAll(async () => {
    db = await freshDatabase(provider, 'admin_api')
    const [adminPort, servicePort] = [await freePort(), await freePort()]
    w = await startWorld({
      DATABASE_URL: db.url,
      ADMIN_PORT: String(adminPort),
      SERVICE_API_PORT: String(servicePort),
      OPERATOR_TENANT_ID: OPERATOR,
      ADMIN_API_SECRET: OPERATOR_SECRET,
    })
    adminApi = `http://127.0.0.1:${adminPort}`
    serviceApi = `http://127.0.0.1:${servicePort}`
    const created = await fetch(`${serviceApi}/tenant`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: TENANT, apiSecret: TENANT_SECRET }),
    })
    expect(created.status).toBe(204)
  }, 90_000)

  afterAll(async () => {
    await w?.stop()
    await db?.drop()
  })

  /** One call as the wallet's signed GraphQL client makes it. */
  async function call(query: string, variables: Record<string, unknown>, tenantId: string, secret: string) {
    const operationName = /^(?:query|mutation) (\w+)/.exec(query)?.[1]
    const body = { query, variables, operationName }
    const t = Date.now()
    const digest = createHmac('sha256', secret)
      .update(`${t}.${canonical(body)}`)
      .digest('hex')
    const res = await fetch(`${adminApi}/graphql`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', signature: `t=${t}, v1=${digest}`, 'tenant-id': tenantId },
      body: JSON.stringify(body),
    })
    return { status: res.status, json: (await res.json()) as any }
  }
  const asOperator = (query: string, variables: Record<string, unknown>) => call(query, variables, OPERATOR, OPERATOR_SECRET)
  const asTenant = (query: string, variables: Record<string, unknown>) => call(query, variables, TENANT, TENANT_SECRET)

  /** An incoming-payment grant on Alice's wallet address at `authServer`, issued at once; its token. */
  async function grantAt(authServer: string): Promise<string> {
    const grant = await w.client.grant.request(
      { url: authServer },
      { access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'read'], identifier: ALICE }] } },
    )
    if (!isFinalizedGrant(grant) || !grant.access_token) throw new Error('expected an issued grant')
    return grant.access_token.value
  }

  it('answers GET /healthz', async () => {
    expect((await fetch(`${adminApi}/healthz`)).status).toBe(200)
  })

  let operatorToken: string
  let tenantToken: string
  let operatorGrant: string
  let tenantGrant: string

  it('lists, gets and revokes for the operator tenant, which sees every tenant', async () => {
    operatorToken = await grantAt(w.server.url)
    tenantToken = await grantAt(`${w.server.url}${TENANT}`)
    const all = await asOperator(GET_GRANTS, { filter: { identifier: { in: [ALICE] } } })
    expect(all.status).toBe(200)
    expect(all.json.data.grants.edges).toHaveLength(2)
    ;[tenantGrant, operatorGrant] = all.json.data.grants.edges.map((e: { node: { id: string } }) => e.node.id)
    expect(all.json.data.grants.edges[0].node).toMatchObject({
      client: w.walletAddress,
      state: 'FINALIZED',
      access: [{ identifier: ALICE, type: 'incoming-payment' }],
    })
    expect((await asOperator(GET_GRANT, { grantId: tenantGrant })).json.data.grant).toMatchObject({ id: tenantGrant, state: 'FINALIZED' })
  })

  it('lists, gets and revokes for another tenant, within its own; a revoked token introspects inactive at once', async () => {
    const own = await asTenant(GET_GRANTS, { filter: { identifier: { in: [ALICE] } } })
    expect(own.json.data.grants.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([tenantGrant])
    expect((await asTenant(GET_GRANT, { grantId: operatorGrant })).json.errors[0].extensions.code).toBe('NOT_FOUND')
    expect((await asTenant(GET_GRANT, { grantId: tenantGrant })).json.data.grant).toMatchObject({ id: tenantGrant, state: 'FINALIZED' })
    expect((await asTenant(REVOKE_GRANT, { grantId: operatorGrant })).json.errors[0].extensions.code).toBe('NOT_FOUND')
    expect((await introspect(w.server, operatorToken)).body.active).toBe(true)
    expect((await asTenant(REVOKE_GRANT, { grantId: tenantGrant })).json).toEqual({ data: { revokeGrant: { id: tenantGrant } } })
    expect((await introspect(w.server, tenantToken)).body.active).toBe(false)
    expect((await asOperator(REVOKE_GRANT, { grantId: operatorGrant })).json).toEqual({ data: { revokeGrant: { id: operatorGrant } } })
    expect((await introspect(w.server, operatorToken)).body.active).toBe(false)
  })

  it('refuses an unsigned request with 401', async () => {
    const res = await fetch(`${adminApi}/graphql`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'tenant-id': OPERATOR },
      body: JSON.stringify({ query: GET_GRANT, variables: { grantId: OPERATOR } }),
    })
    expect(res.status).toBe(401)
  })
})
