// The Admin API's signature (docs/admin-api.md, "Signing a request"): the canonical JSON byte for byte, the digest
// against fixed vectors, and every refusal, on the test database (SQLite, or PostgreSQL under TEST_DATABASE_URL).
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildTestDeps, type TestDeps } from '../../testing/deps'
import { createTenant, deleteTenant, ensureOperatorTenant } from '../../protocol/tenant/tenants'
import { canonicalJson } from './canonical-json'
import { adminApiDigest, adminApiSignatureHeader, authenticateAdminApiRequest, parseAdminApiSignature } from './admin-api-signature'

// The canonicalisation vectors of `json-canonicalize` (the serialisation Rafiki's Admin API clients sign), as data:
// each input as the JSON a request body would carry, and the text it must canonicalise to.
const CANONICAL_VECTORS: [name: string, input: string, expected: string][] = [
  [
    'primary types',
    '{"text":"你好","num":47734.12,"dt":"2018-12-17T01:08:19.719Z","arr":[56,"a","12",{"t":"455A","a":123}]}',
    '{"arr":[56,"a","12",{"a":123,"t":"455A"}],"dt":"2018-12-17T01:08:19.719Z","num":47734.12,"text":"你好"}',
  ],
  ['array items null', '{"arr":[null,null,56,"a","12",{"t":"455A","a":123}]}', '{"arr":[null,null,56,"a","12",{"a":123,"t":"455A"}]}'],
  ['the same sub-object twice', '{"a":{"key":"value"},"b":{"key":"value"}}', '{"a":{"key":"value"},"b":{"key":"value"}}'],
  ['the same sub-object twice in an array', '{"arr":[{"key":"value"},{"key":"value"}]}', '{"arr":[{"key":"value"},{"key":"value"}]}'],
  ['the same sub-array twice', '{"a":[1,2],"b":[1,2]}', '{"a":[1,2],"b":[1,2]}'],
  ['the same sub-array nested', '{"a":[[1,2]],"b":[1,2]}', '{"a":[[1,2]],"b":[1,2]}'],
  // JSON.parse then JSON.stringify: numbers in their shortest form, escapes as ECMAScript writes them.
  [
    'numbers and escapes',
    '{"z":1.0,"y":1e2,"x":-0.5E-3,"w":"\\u00e9\\n\\u2028\\"","v":true,"u":null}',
    '{"u":null,"v":true,"w":"é\\n\u2028\\"","x":-0.0005,"y":100,"z":1}',
  ],
  ['keys by UTF-16 code units', '{"b":1,"a":2,"B":3,"é":4,"aa":5}', '{"B":3,"a":2,"aa":5,"b":1,"é":4}'],
]

// HMAC-SHA256 vectors, computed apart from this code (`printf '%s' "<t>.<canonical JSON>" | openssl dgst -sha256
// -hmac <secret>`): the body of Rafiki's own signature tests, a GraphQL request as the test wallet signs it, a wrong
// secret, and the canonicalisation vector above under the Rafiki kit's operator secret.
const DIGEST_VECTORS: [secret: string, timestamp: string, body: string, digest: string][] = [
  ['tenant-api-secret', '1700000000000', '{"test":"value"}', '8bd2c2f835bda6ca17db7dbb404624e94a6b2316e778900277f59a2e194d8004'],
  [
    'operator-admin-api-secret-0123456789abcdef',
    '1735689600000',
    '{"variables":{"grantId":"6d2f4b1e-8c3a-4f5e-9b7d-1a2c3e4f5a6b"},"query":"query GetGrantQuery($grantId: ID!) { grant(id: $grantId) { id state } }","operationName":"GetGrantQuery"}',
    'c62e041b20041c5cc86afbe48dc8d84a1fdf45252e184ed64c3b6fe8f9a1260b',
  ],
  ['wrongsecret', '1700000000000', '{"test":"value"}', '9764f1798a639559f84f7f93a80841e2459c510d264e0b43eedce5de275f040b'],
  [
    'kit-admin-api-secret-0123456789abcdef',
    '1755400000000',
    '{"text":"你好","num":47734.12,"dt":"2018-12-17T01:08:19.719Z","arr":[56,"a","12",{"t":"455A","a":123}]}',
    '7cb50c926933f24497237fd0821c4dfdfa212a84819b82d73631c7e2610f3a8f',
  ],
]

describe('canonical JSON', () => {
  it.each(CANONICAL_VECTORS)('%s', (_name, input, expected) => {
    expect(canonicalJson(JSON.parse(input))).toBe(expected)
  })
})

describe('the signature digest', () => {
  it.each(DIGEST_VECTORS)('HMAC-SHA256 with %s at %s', (secret, timestamp, body, digest) => {
    expect(adminApiDigest(secret, timestamp, JSON.parse(body))).toBe(digest)
  })

  it('reads the header as clients write it, and nothing else', () => {
    const digest = DIGEST_VECTORS[0]![3]
    expect(parseAdminApiSignature(`t=1700000000000, v1=${digest}`)).toEqual({ timestamp: '1700000000000', version: 1, digest })
    for (const bad of [
      `t=1700000000000,v1=${digest}`,
      `v1=${digest}, t=1700000000000`,
      `t=1700000000000, v1=${digest.toUpperCase()}`,
      `t=x, v1=${digest}`,
      't=1, v1=ab',
    ])
      expect(parseAdminApiSignature(bad), bad).toBeNull()
  })
})

const OPERATOR = '438fa74a-fa7d-4317-9ced-dde32ece1787'
const OPERATOR_SECRET = 'operator-admin-api-secret-0123456789abcdef'
const B = '6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
const B_SECRET = 'tenant-b-api-secret-0123456789'
const SETTINGS = { signatureVersion: 1, signatureTtlSeconds: 30 }
const BODY = { query: 'query { grants { edges { cursor } } }', variables: {} }

describe('authenticateAdminApiRequest', () => {
  let t: TestDeps
  beforeEach(async () => {
    t = await buildTestDeps({ config: { operatorTenant: { id: OPERATOR, apiSecret: OPERATOR_SECRET } } })
    await ensureOperatorTenant(t.deps)
    await createTenant(t.deps, { id: B, apiSecret: B_SECRET })
  })
  afterEach(() => t.cleanup())

  const now = () => t.clock.now.getTime()
  const signed = (secret: string, tenantId: string, body: unknown = BODY, at = now()) => ({
    signature: adminApiSignatureHeader(secret, 1, body, at),
    'tenant-id': tenantId,
  })
  const check = (headers: Record<string, string | undefined>, body: unknown = BODY) => authenticateAdminApiRequest(t.deps, headers, body, SETTINGS)

  it('accepts the operator tenant (every tenant) and another tenant (its own)', async () => {
    expect(await check(signed(OPERATOR_SECRET, OPERATOR))).toEqual({ ok: true, caller: { tenantId: OPERATOR, isOperator: true } })
    expect(await check(signed(B_SECRET, B.toUpperCase()))).toEqual({ ok: true, caller: { tenantId: B, isOperator: false } })
  })

  it('accepts a body whose members come in another order: the signature covers its canonical form', async () => {
    const headers = signed(B_SECRET, B, { variables: {}, query: BODY.query })
    expect(await check(headers, { query: BODY.query, variables: {} })).toMatchObject({ ok: true })
  })

  it.each([
    ['a wrong secret', () => signed('wrongsecret-0123456789', B), 'signature'],
    ["another tenant's id", () => signed(B_SECRET, OPERATOR), 'signature'],
    ['an unknown tenant', () => signed(B_SECRET, '11111111-2222-4333-8444-555555555555'), 'tenant'],
    ['no signature header', () => ({ 'tenant-id': B }), 'missing'],
    ['no tenant-id header', () => ({ signature: signed(B_SECRET, B).signature }), 'missing'],
    ['another signature version', () => ({ signature: signed(B_SECRET, B).signature.replace(', v1=', ', v2='), 'tenant-id': B }), 'version'],
    ['a malformed header', () => ({ signature: 'v1=abc', 'tenant-id': B }), 'malformed'],
    ['a timestamp older than the TTL', () => signed(B_SECRET, B, BODY, now() - 31_000), 'time'],
    ['a timestamp further ahead than the TTL', () => signed(B_SECRET, B, BODY, now() + 31_000), 'time'],
  ] as const)('refuses %s', async (_name, headers, refusal) => {
    expect(await check(headers())).toEqual({ ok: false, refusal })
  })

  it('refuses a body changed after signing', async () => {
    const headers = signed(B_SECRET, B)
    expect(await check(headers, { ...BODY, variables: { tenantId: OPERATOR } })).toEqual({ ok: false, refusal: 'signature' })
  })

  it('accepts a signature once: a replay is refused, within the TTL and after it', async () => {
    const headers = signed(B_SECRET, B)
    expect(await check(headers)).toMatchObject({ ok: true })
    expect(await check(headers)).toEqual({ ok: false, refusal: 'replay' })
    t.clock.advance(20)
    expect(await check(headers)).toEqual({ ok: false, refusal: 'replay' })
    t.clock.advance(20)
    expect(await check(headers)).toEqual({ ok: false, refusal: 'time' })
  })

  it('remembers an accepted signature until it expires: then the retention job deletes it', async () => {
    const { deleteExpiredRecords } = await import('../retention/retention')
    expect(await check(signed(B_SECRET, B))).toMatchObject({ ok: true })
    const remembered = () => t.db.signatureNonce.count({ where: { keyRef: `admin-api:${B}` } })
    expect(await remembered()).toBe(1)
    await deleteExpiredRecords(t.deps)
    expect(await remembered()).toBe(1)
    t.clock.advance(31)
    await deleteExpiredRecords(t.deps)
    expect(await remembered()).toBe(0)
  })

  it('refuses a deleted tenant, even with its right secret', async () => {
    await deleteTenant(t.deps, B, t.clock.now)
    expect(await check(signed(B_SECRET, B))).toEqual({ ok: false, refusal: 'tenant' })
  })

  it('follows a rotated API secret at once', async () => {
    const { updateTenant } = await import('../../protocol/tenant/tenants')
    await updateTenant(t.deps, B, { apiSecret: 'tenant-b-api-secret-rotated-0123' })
    expect(await check(signed(B_SECRET, B))).toEqual({ ok: false, refusal: 'signature' })
    expect(await check(signed('tenant-b-api-secret-rotated-0123', B))).toMatchObject({ ok: true })
  })
})
