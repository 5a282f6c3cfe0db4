// Introspection as Rafiki's backend asks (docs/protocol.md §2.6): one item of one action, the wallet address as
// `identifier` on every item (a quote's too), none when it checks an outgoing-payment grant itself; no credentials on
// the listener with INTROSPECTION_PORT_AUTH=none; `client` as an object, or as a string for backends up to v2.3.
import { describe, expect, it } from 'vitest'
import { TEST_CLIENT, TEST_OWNER, gnapError, grantRequest, incomingAccess, outgoingAccess, quoteAccess } from '../../testing/deps'
import { issueInteractiveGrant, issueNonInteractiveGrant } from '../../testing/grant-flows'
import { useTestDeps } from '../../testing/use-test-deps'
import { assertMatchesSpec } from '../../testing/spec-validator'
import { parseGrantRequest } from '../grant/grant.wire'
import { parseIntrospectRequest } from './access-token.wire'
import { introspectForResourceServer, introspectWithoutCredentials } from './introspect-token'

const t = useTestDeps()

/** The body the backend's token-introspection client posts: one item, one action, `identifier` when it has one. */
const asTheBackendAsks = (token: string, type: string, action: string, identifier?: string) =>
  JSON.parse(JSON.stringify({ access_token: token, access: [{ type, actions: [action], identifier }] })) as unknown

describe('the access items as the backend sends them', () => {
  it('accepts a quote with the wallet address as identifier, and drops it', () => {
    expect(parseIntrospectRequest(asTheBackendAsks('x', 'quote', 'create', TEST_OWNER)).access).toEqual([{ type: 'quote', actions: ['create'] }])
  })

  it('accepts an outgoing payment without identifier', () => {
    expect(parseIntrospectRequest(asTheBackendAsks('x', 'outgoing-payment', 'create')).access).toEqual([
      { type: 'outgoing-payment', actions: ['create'] },
    ])
  })

  it.each<[string, unknown]>([
    ['a quote identifier that is not a URL', asTheBackendAsks('x', 'quote', 'create', 'alice')],
    ['a quote with another unknown field', { access_token: 'x', access: [{ type: 'quote', actions: ['create'], receiver: TEST_OWNER }] }],
    ['a quote action the contract does not list', asTheBackendAsks('x', 'quote', 'list', TEST_OWNER)],
    ['an outgoing payment without actions', { access_token: 'x', access: [{ type: 'outgoing-payment' }] }],
  ])('still refuses %s with 400 invalid_request', (_name, body) => {
    expect(() => parseIntrospectRequest(body)).toThrow(expect.objectContaining(gnapError('invalid_request', 400)))
  })

  it('leaves the grant request strict: a quote with an identifier is still refused there', () => {
    const request = { access_token: { access: [{ type: 'quote', actions: ['create'], identifier: TEST_OWNER }] }, client: TEST_CLIENT }
    expect(() => parseGrantRequest(request)).toThrow(expect.objectContaining(gnapError('invalid_request', 400)))
    const outgoing = {
      access_token: { access: [{ type: 'outgoing-payment', actions: ['create'] }] },
      client: TEST_CLIENT,
      interact: { start: ['redirect'] },
    }
    expect(() => parseGrantRequest(outgoing)).toThrow(expect.objectContaining(gnapError('invalid_request', 400)))
  })
})

describe('the answers the backend reads', () => {
  it('answers a quote asked about with its identifier: the one granted quote item, as the contract has it', async () => {
    const g = await issueNonInteractiveGrant(t, { access: [quoteAccess({ actions: ['create', 'read'] })] })
    const answer = await introspectWithoutCredentials(t.deps, asTheBackendAsks(g.tokenValue, 'quote', 'create', TEST_OWNER))
    expect(answer).toMatchObject({ active: true, access: [{ type: 'quote', actions: ['create', 'read'] }], client: { walletAddress: TEST_CLIENT } })
    assertMatchesSpec('token-introspection', '/', 'POST', 200, answer)
  })

  it('answers an outgoing-payment grant check (no identifier) with exactly the granted item and its limits', async () => {
    const granted = outgoingAccess({ actions: ['create', 'read-all'] })
    const g = await issueInteractiveGrant(t, grantRequest({ access: [granted, quoteAccess({ actions: ['create'] })] }))
    for (const body of [
      asTheBackendAsks(g.tokenValue, 'outgoing-payment', 'create'),
      asTheBackendAsks(g.tokenValue, 'outgoing-payment', 'create', TEST_OWNER),
      asTheBackendAsks(g.tokenValue, 'outgoing-payment', 'read', TEST_OWNER),
    ]) {
      const answer = await introspectWithoutCredentials(t.deps, body)
      expect(answer).toMatchObject({ active: true, access: [granted] })
      expect((answer as { access: readonly unknown[] }).access).toHaveLength(1)
      assertMatchesSpec('token-introspection', '/', 'POST', 200, answer)
    }
    // Another owner's wallet address matches nothing: an empty list, which the backend answers 403.
    const other = await introspectWithoutCredentials(t.deps, asTheBackendAsks(g.tokenValue, 'outgoing-payment', 'read', 'https://wallet.example/bob'))
    expect(other).toMatchObject({ active: true, access: [] })
    assertMatchesSpec('token-introspection', '/', 'POST', 200, other)
  })

  it('answers an incoming payment asked about with one action and its identifier', async () => {
    const g = await issueNonInteractiveGrant(t, { access: [incomingAccess({ identifier: TEST_OWNER })] })
    const answer = await introspectWithoutCredentials(t.deps, asTheBackendAsks(g.tokenValue, 'incoming-payment', 'list', TEST_OWNER))
    expect(answer).toMatchObject({ active: true, access: [incomingAccess({ identifier: TEST_OWNER })] })
    assertMatchesSpec('token-introspection', '/', 'POST', 200, answer)
  })
})

describe('credentials', () => {
  it('answers without any on the credential-free path, while the secret path still refuses a missing secret', async () => {
    const g = await issueNonInteractiveGrant(t)
    const body = asTheBackendAsks(g.tokenValue, 'incoming-payment', 'create')
    await expect(introspectWithoutCredentials(t.deps, body)).resolves.toMatchObject({ active: true })
    await expect(introspectForResourceServer(t.deps, { authorization: null, ip: '127.0.0.1' }, body)).rejects.toMatchObject(
      gnapError('invalid_client', 401),
    )
  })

  it('answers an unknown token inactive without credentials too', async () => {
    await expect(introspectWithoutCredentials(t.deps, asTheBackendAsks('NO-SUCH-TOKEN', 'quote', 'create', TEST_OWNER))).resolves.toEqual({
      active: false,
    })
  })
})

describe('INTROSPECTION_CLIENT_FORMAT', () => {
  it('answers the client as its wallet address string for backends up to v2.3, and as the object by default', async () => {
    const g = await issueNonInteractiveGrant(t)
    const body = asTheBackendAsks(g.tokenValue, 'incoming-payment', 'create')
    await expect(introspectWithoutCredentials(t.deps, body)).resolves.toMatchObject({ client: { walletAddress: TEST_CLIENT } })
    const v23 = { ...t.deps, config: { ...t.deps.config, introspectionClientFormat: 'string' as const } }
    await expect(introspectWithoutCredentials(v23, body)).resolves.toEqual({
      active: true,
      grant: expect.any(String),
      access: [incomingAccess()],
      client: TEST_CLIENT,
    })
  })
})
