// Rafiki's auth Admin API (docs/admin-api.md) called as the Interledger test wallet's back end calls it: the GraphQL
// documents of its Grants page (list by identifier, get one, revoke) and of a paging client, each POSTed with the
// `signature` and `tenant-id` headers it computes (HMAC-SHA256 of `<t>.<canonical JSON of the body>`). The
// listener's handler runs in this process on a loopback port, over a test database of its own (SQLite, or PostgreSQL
// under TEST_DATABASE_URL); no build is needed.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { authAs, buildTestDeps, grantRequest, incomingAccess, outgoingAccess, lastSegment, type TestDeps } from '@gnap/domain/testing'
import { createTenant, deleteTenant, ensureOperatorTenant, introspectWithoutCredentials, requestGrant } from '@gnap/domain/protocol'
import { adminApiSignatureHeader } from '@gnap/domain/operator'
import type { AdminApiOperation, AdminApiOutcome, Metrics } from '@gnap/domain/kernel'
import { noMetrics } from '@gnap/domain/kernel'
import { adminApiHandler } from '../src/server/edge/admin-api-listener'

const OPERATOR = '438fa74a-fa7d-4317-9ced-dde32ece1787'
const OPERATOR_SECRET = 'operator-admin-api-secret-0123456789abcdef'
const B = '6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
const B_SECRET = 'tenant-b-api-secret-0123456789'
const ALICE = 'https://wallet.example/alice'
const BOB = 'https://wallet.example/bob'
const CAROL = 'https://wallet.example/carol'

// The test wallet's documents (packages/wallet/backend/src/rafiki/auth/request/grant.request.ts), field for field.
const LIMITS = 'limits { receiver debitAmount { value assetCode assetScale } receiveAmount { value assetCode assetScale } interval }'
const GRANT_FIELDS = `id client state access { id identifier createdAt actions type ${LIMITS} } createdAt`
const GET_GRANTS = `query GetGrantsQuery($after: String, $before: String, $first: Int, $last: Int, $filter: GrantFilter) {
  grants(after: $after, before: $before, first: $first, last: $last, filter: $filter) {
    edges { cursor node { ${GRANT_FIELDS} } }
    pageInfo { endCursor hasNextPage hasPreviousPage startCursor }
  }
}`
const GET_GRANT = `query GetGrantQuery($grantId: ID!) { grant(id: $grantId) { ${GRANT_FIELDS} } }`
const REVOKE_GRANT = `mutation RevokeGrantMutation($grantId: String!) { revokeGrant(input: { grantId: $grantId }) { id } }`
// An operator's tool: every argument of `grants`, and the fields the wallet does not ask for.
const GRANTS_FULL = `query Grants($after: String, $before: String, $first: Int, $last: Int, $filter: GrantFilter, $sortOrder: SortOrder, $tenantId: ID) {
  grants(after: $after, before: $before, first: $first, last: $last, filter: $filter, sortOrder: $sortOrder, tenantId: $tenantId) {
    edges { cursor node { id state finalizationReason tenantId subject { sub_ids { subId subIdFormat } } } }
    pageInfo { endCursor hasNextPage hasPreviousPage startCursor }
  }
}`

let t: TestDeps
let server: http.Server
let base: string
const calls: [AdminApiOperation, AdminApiOutcome][] = []

beforeEach(async () => {
  calls.length = 0
  const metrics: Metrics = { ...noMetrics, adminApiCall: (operation, outcome) => void calls.push([operation, outcome]) }
  t = await buildTestDeps({
    metrics,
    config: {
      operatorTenant: { id: OPERATOR, apiSecret: OPERATOR_SECRET },
      adminApi: { port: 0, host: '127.0.0.1', signatureVersion: 1, signatureTtlSeconds: 30 },
    },
  })
  await ensureOperatorTenant(t.deps)
  await createTenant(t.deps, { id: B, apiSecret: B_SECRET })
  server = new http.Server(adminApiHandler(t.deps))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterEach(async () => {
  await new Promise((resolve) => server.close(resolve))
  await t.cleanup()
})

interface Signer {
  secret: string
  tenantId: string
}
const asOperator: Signer = { secret: OPERATOR_SECRET, tenantId: OPERATOR }
const asB: Signer = { secret: B_SECRET, tenantId: B }

/** The signed request as the wallet's client sends it: the body's JSON, signed over its canonical form. */
function signedRequest(query: string, variables: Record<string, unknown>, who: Signer, at = t.clock.now.getTime()) {
  const operationName = /^(?:query|mutation) (\w+)/.exec(query)?.[1]
  const body = { query, variables, ...(operationName ? { operationName } : {}) }
  return {
    body: JSON.stringify(body),
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/graphql-response+json, application/json',
      signature: adminApiSignatureHeader(who.secret, 1, body, at),
      'tenant-id': who.tenantId,
    } as Record<string, string>,
  }
}

async function post(request: { body: string; headers: Record<string, string> }): Promise<{ status: number; json: any }> {
  const response = await fetch(`${base}/graphql`, { method: 'POST', ...request })
  const text = await response.text()
  return { status: response.status, json: text === '' ? null : JSON.parse(text) }
}

const gql = (query: string, variables: Record<string, unknown>, who: Signer = asOperator) => post(signedRequest(query, variables, who))

/** A grant issued at once (incoming payments on `identifier`) at `tenant`'s endpoint (null: `POST /`); its id and token. */
async function issue(identifier: string, tenant: string | null = null): Promise<{ id: string; token: string }> {
  t.clock.advance(1)
  const response = await requestGrant(t.deps, grantRequest({ access: [incomingAccess({ identifier })], interact: null }), authAs(null), null, tenant)
  const grant = await t.db.grant.findUniqueOrThrow({ where: { continueId: lastSegment(response.continue.uri) } })
  return { id: grant.id, token: response.access_token!.value }
}

/** A grant waiting for its owner (an outgoing payment with limits on `identifier`). */
async function pending(identifier: string, tenant: string | null = null): Promise<string> {
  t.clock.advance(1)
  const response = await requestGrant(t.deps, grantRequest({ access: [outgoingAccess({ identifier })] }), authAs(null), null, tenant)
  return (await t.db.grant.findUniqueOrThrow({ where: { continueId: lastSegment(response.continue.uri) } })).id
}

const ids = (json: any): string[] => json.data.grants.edges.map((e: { node: { id: string } }) => e.node.id)
const errorCode = (json: any): string => json.errors[0].extensions.code

describe('the listener', () => {
  it('answers GET /healthz without a signature', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200)
  })

  it('answers 404 off /graphql and 405 to GET /graphql', async () => {
    expect((await fetch(`${base}/other`, { method: 'POST' })).status).toBe(404)
    expect((await fetch(`${base}/graphql`)).status).toBe(405)
  })
})

describe('requests GraphQL cannot run', () => {
  it('answers 400 with the error and its code: a field the schema lacks, a variable of the wrong type, no query', async () => {
    const unknownField = await gql('query { grants { edges { node { id secret } } } }', {})
    expect(unknownField.status).toBe(400)
    expect(errorCode(unknownField.json)).toBe('GRAPHQL_VALIDATION_FAILED')
    t.clock.advance(1)
    const badVariable = await gql(GET_GRANTS, { first: 'ten' })
    expect(badVariable.status).toBe(400)
    expect(errorCode(badVariable.json)).toBe('BAD_USER_INPUT')
    t.clock.advance(1)
    const body = { variables: {} }
    const headers = {
      'Content-Type': 'application/json',
      signature: adminApiSignatureHeader(OPERATOR_SECRET, 1, body, t.clock.now.getTime()),
      'tenant-id': OPERATOR,
    }
    const noQuery = await post({ body: JSON.stringify(body), headers })
    expect(noQuery.status).toBe(400)
    expect(errorCode(noQuery.json)).toBe('BAD_REQUEST')
    expect(calls.map(([, outcome]) => outcome)).toEqual(['invalid', 'invalid', 'invalid'])
  })
})

describe("the test wallet's Grants page, for the operator tenant", () => {
  it('lists the grants on its wallet addresses, with their access as the page shows it', async () => {
    const a = await pending(ALICE)
    const b = await issue(BOB)
    await issue(CAROL)
    const { status, json } = await gql(GET_GRANTS, { filter: { identifier: { in: [ALICE, BOB] } } })
    expect(status).toBe(200)
    expect(ids(json)).toEqual([b.id, a])
    const alice = json.data.grants.edges[1]
    expect(alice).toEqual({
      cursor: a,
      node: {
        id: a,
        client: 'https://wallet.example/test-app',
        state: 'PENDING',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
        access: [
          {
            id: expect.any(String),
            identifier: ALICE,
            createdAt: expect.any(String),
            actions: ['create', 'read'],
            type: 'outgoing-payment',
            limits: {
              receiver: null,
              debitAmount: { value: '1000', assetCode: 'USD', assetScale: 2 },
              receiveAmount: null,
              interval: 'R12/2025-01-01T00:00:00Z/P1M',
            },
          },
        ],
      },
    })
    expect(json.data.grants.pageInfo).toEqual({ startCursor: b.id, endCursor: a, hasNextPage: false, hasPreviousPage: false })
    expect(calls).toEqual([['grants', 'ok']])
  })

  it('gets one grant; an unknown id is NOT_FOUND', async () => {
    const b = await issue(BOB)
    const { json } = await gql(GET_GRANT, { grantId: b.id })
    expect(json.data.grant).toMatchObject({ id: b.id, state: 'FINALIZED', access: [{ type: 'incoming-payment', identifier: BOB, limits: null }] })
    t.clock.advance(1)
    const unknown = await gql(GET_GRANT, { grantId: '00000000-0000-4000-8000-000000000000' })
    expect(errorCode(unknown.json)).toBe('NOT_FOUND')
    expect(calls).toEqual([
      ['grant', 'ok'],
      ['grant', 'not_found'],
    ])
  })

  it('revokes: audited and its event sent naming the tenant, and its token introspects inactive at once', async () => {
    // An event is written only when an endpoint would receive it (docs/webhooks.md).
    await t.sql.run(
      `INSERT INTO "WebhookEndpoint" ("id", "url", "secret", "createdBy", "createdAt", "updatedAt") VALUES ('hooks', 'https://hooks.example/', 'whsec_dGVzdA==', 'admin-1', $1, $1)`,
      [t.clock.now],
    )
    await t.sql.run(`INSERT INTO "WebhookSubscription" ("endpointId", "eventType") VALUES ('hooks', 'grant.revoked')`)
    const b = await issue(BOB)
    expect((await introspectWithoutCredentials(t.deps, { access_token: b.token })).active).toBe(true)
    const { json } = await gql(REVOKE_GRANT, { grantId: b.id })
    expect(json).toEqual({ data: { revokeGrant: { id: b.id } } })
    expect((await introspectWithoutCredentials(t.deps, { access_token: b.token })).active).toBe(false)
    const audit = await t.db.auditLog.findMany({ where: { target: `grant:${b.id}` } })
    expect(audit).toEqual([expect.objectContaining({ actor: `admin API (tenant ${OPERATOR})`, action: 'grant.revoke' })])
    const [event] = await t.db.webhookEvent.findMany({ where: { grantId: b.id, type: 'grant.revoked' } })
    expect(JSON.parse(event!.payload).data.actor).toEqual({ type: 'admin_api', id: OPERATOR })
    expect(JSON.stringify(audit) + event!.payload).not.toContain(OPERATOR_SECRET)
    t.clock.advance(1)
    const again = await gql(GET_GRANT, { grantId: b.id })
    expect(again.json.data.grant.state).toBe('FINALIZED')
    t.clock.advance(1)
    // Revoked already: answered as revoked again, as Rafiki does; nothing more written.
    expect((await gql(REVOKE_GRANT, { grantId: b.id })).json).toEqual({ data: { revokeGrant: { id: b.id } } })
    expect(await t.db.auditLog.count({ where: { target: `grant:${b.id}` } })).toBe(1)
    const missing = await gql(REVOKE_GRANT, { grantId: '00000000-0000-4000-8000-000000000000' })
    expect(errorCode(missing.json)).toBe('NOT_FOUND')
  })
})

describe('paging, filters and order as the reference schema has them', () => {
  it('pages forward and back with grant ids as cursors', async () => {
    const made: string[] = []
    for (let i = 0; i < 5; i++) made.push((await issue(ALICE)).id)
    const newest = [...made].reverse()
    const one = await gql(GRANTS_FULL, { first: 2 })
    expect(ids(one.json)).toEqual(newest.slice(0, 2))
    expect(one.json.data.grants.pageInfo).toEqual({ startCursor: newest[0], endCursor: newest[1], hasNextPage: true, hasPreviousPage: false })
    t.clock.advance(1)
    const two = await gql(GRANTS_FULL, { first: 2, after: newest[1] })
    expect(ids(two.json)).toEqual(newest.slice(2, 4))
    expect(two.json.data.grants.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true })
    t.clock.advance(1)
    const three = await gql(GRANTS_FULL, { first: 2, after: newest[3] })
    expect(ids(three.json)).toEqual(newest.slice(4))
    expect(three.json.data.grants.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true })
    t.clock.advance(1)
    const back = await gql(GRANTS_FULL, { last: 2, before: newest[4] })
    expect(ids(back.json)).toEqual(newest.slice(2, 4))
    expect(back.json.data.grants.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true })
    t.clock.advance(1)
    const asc = await gql(GRANTS_FULL, { first: 3, sortOrder: 'ASC' })
    expect(ids(asc.json)).toEqual(made.slice(0, 3))
    t.clock.advance(1)
    const fromStart = await gql(GRANTS_FULL, { last: 2 })
    expect(errorCode(fromStart.json)).toBe('BAD_USER_INPUT')
    t.clock.advance(1)
    expect(errorCode((await gql(GRANTS_FULL, { first: 101 })).json)).toBe('BAD_USER_INPUT')
  })

  it('filters by state and finalization reason, in and notIn', async () => {
    const waiting = await pending(ALICE)
    const issued = await issue(ALICE)
    const revoked = await issue(ALICE)
    await gql(REVOKE_GRANT, { grantId: revoked.id })
    const cases: [Record<string, unknown>, string[]][] = [
      [{ state: { in: ['PENDING'] } }, [waiting]],
      [{ state: { notIn: ['PENDING'] } }, [revoked.id, issued.id]],
      [{ finalizationReason: { in: ['REVOKED'] } }, [revoked.id]],
      [{ finalizationReason: { notIn: ['REVOKED'] } }, [issued.id, waiting]],
      [{ state: { in: ['FINALIZED'] }, finalizationReason: { in: ['ISSUED'] } }, [issued.id]],
      [{ state: { in: ['PROCESSING'] } }, []],
    ]
    for (const [filter, expected] of cases) {
      t.clock.advance(1)
      const { json } = await gql(GRANTS_FULL, { filter })
      expect(ids(json), JSON.stringify(filter)).toEqual(expected)
    }
  })
})

describe('the signature', () => {
  const list = { filter: { identifier: { in: [ALICE] } } }

  it.each([
    ['a wrong secret', () => signedRequest(GET_GRANTS, list, { secret: 'wrong-secret-0123456789', tenantId: OPERATOR })],
    ["another tenant's id", () => signedRequest(GET_GRANTS, list, { secret: B_SECRET, tenantId: OPERATOR })],
    ['an old timestamp', () => signedRequest(GET_GRANTS, list, asOperator, t.clock.now.getTime() - 31_000)],
    [
      'a body changed after signing',
      () => {
        const r = signedRequest(GET_GRANTS, list, asB)
        return { ...r, body: r.body.replace(ALICE, BOB) }
      },
    ],
    [
      'no signature header',
      () => {
        const r = signedRequest(GET_GRANTS, list, asOperator)
        delete r.headers['signature']
        return r
      },
    ],
    [
      'no tenant-id header',
      () => {
        const r = signedRequest(GET_GRANTS, list, asOperator)
        delete r.headers['tenant-id']
        return r
      },
    ],
  ])('refuses %s: 401, nothing read', async (_name, request) => {
    await issue(ALICE)
    const { status, json } = await post(request())
    expect(status).toBe(401)
    expect(json).toEqual({ errors: [{ message: 'Unauthorized', extensions: { code: 'UNAUTHENTICATED' } }] })
    expect(calls).toEqual([['grants', 'unauthorized']])
  })

  it('refuses a replay of a signed revocation: the grant is revoked once', async () => {
    const b = await issue(BOB)
    const request = signedRequest(REVOKE_GRANT, { grantId: b.id }, asOperator)
    expect((await post(request)).status).toBe(200)
    expect((await post(request)).status).toBe(401)
    expect(await t.db.auditLog.count({ where: { target: `grant:${b.id}` } })).toBe(1)
  })

  it('refuses a deleted tenant', async () => {
    await deleteTenant(t.deps, B, t.clock.now)
    expect((await gql(GET_GRANTS, list, asB)).status).toBe(401)
  })
})

// Tenant boundaries (docs/protocol.md §2.21): these rely on the console use cases' tenant scoping (a ConsoleActor's
// `tenantId`, and listGrants' `filters.tenantId`).
describe('tenant boundaries', () => {
  let ofOperator: { id: string; token: string }
  let ofB: { id: string; token: string }
  beforeEach(async () => {
    ofOperator = await issue(ALICE)
    ofB = await issue(ALICE, B)
  })

  it("lists: the operator tenant sees every tenant's, and one tenant's with tenantId; another tenant only its own", async () => {
    expect(ids((await gql(GRANTS_FULL, {})).json)).toEqual([ofB.id, ofOperator.id])
    t.clock.advance(1)
    const narrowed = await gql(GRANTS_FULL, { tenantId: B })
    expect(narrowed.json.data.grants.edges).toEqual([expect.objectContaining({ node: expect.objectContaining({ id: ofB.id, tenantId: B }) })])
    t.clock.advance(1)
    expect(ids((await gql(GET_GRANTS, { filter: { identifier: { in: [ALICE] } } }, asB)).json)).toEqual([ofB.id])
    t.clock.advance(1)
    expect(ids((await gql(GRANTS_FULL, { tenantId: OPERATOR }, asB)).json)).toEqual([ofB.id])
    t.clock.advance(1)
    // A cursor naming another tenant's grant is as an unknown one: an empty page.
    expect(ids((await gql(GRANTS_FULL, { after: ofOperator.id }, asB)).json)).toEqual([])
  })

  it("gets: another tenant's grant is NOT_FOUND; its own is found, naming its tenant", async () => {
    expect(errorCode((await gql(GET_GRANT, { grantId: ofOperator.id }, asB)).json)).toBe('NOT_FOUND')
    t.clock.advance(1)
    const own = await gql(`query { grant(id: "${ofB.id}") { id tenantId } }`, {}, asB)
    expect(own.json.data.grant).toEqual({ id: ofB.id, tenantId: B })
  })

  it("revokes: another tenant's grant is NOT_FOUND and stays live; its own is revoked, naming the tenant", async () => {
    expect(errorCode((await gql(REVOKE_GRANT, { grantId: ofOperator.id }, asB)).json)).toBe('NOT_FOUND')
    expect((await introspectWithoutCredentials(t.deps, { access_token: ofOperator.token })).active).toBe(true)
    t.clock.advance(1)
    expect((await gql(REVOKE_GRANT, { grantId: ofB.id }, asB)).json).toEqual({ data: { revokeGrant: { id: ofB.id } } })
    expect(await t.db.auditLog.findFirst({ where: { target: `grant:${ofB.id}` } })).toMatchObject({ actor: `admin API (tenant ${B})` })
  })
})
