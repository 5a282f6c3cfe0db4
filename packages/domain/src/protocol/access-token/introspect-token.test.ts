import { describe, expect, it } from 'vitest'
import { TEST_CLIENT, TEST_OWNER, authAs, gnapError, grantRequest, incomingAccess, outgoingAccess, quoteAccess, introspect } from '../../testing/deps'
import { issueInteractiveGrant, issueNonInteractiveGrant, lastSegment } from '../../testing/grant-flows'
import { cancelGrant } from '../grant/cancel-grant'
import { authenticateResourceServer } from './introspect-token'
import { revokeAccessToken } from './revoke-access-token'
import { rotateAccessToken } from './rotate-access-token'
import { useTestDeps } from '../../testing/use-test-deps'
import { assertMatchesSpec } from '../../testing/spec-validator'

const t = useTestDeps()

describe('authenticateResourceServer (docs/protocol.md §2.6)', () => {
  it('accepts the introspection secret as a Bearer credential', () => {
    expect(() => authenticateResourceServer(t.deps, 'Bearer introspection-secret-123456')).not.toThrow()
  })

  it.each<[string, string | null]>([
    ['no Authorization header', null],
    ['an empty header', ''],
    ['another secret', 'Bearer introspection-secret-654321'],
    ['a secret of another length', 'Bearer x'],
    ['a longer secret with the right prefix', 'Bearer introspection-secret-1234567'],
    ['another scheme', 'Basic introspection-secret-123456'],
    ['a GNAP token', 'GNAP introspection-secret-123456'],
    ['the scheme alone', 'Bearer'],
  ])('returns invalid_client 401 for %s', (_name, authorization) => {
    expect(() => authenticateResourceServer(t.deps, authorization)).toThrow(expect.objectContaining(gnapError('invalid_client', 401)))
  })
})

describe('introspectToken (docs/protocol.md §2.6)', () => {
  it.each<[string, unknown]>([
    ['no body', undefined],
    ['null', null],
    ['an empty object', {}],
    ['a numeric token', { access_token: 42 }],
    ['an empty token', { access_token: '' }],
    ['an unknown field', { access_token: 'abc', client: TEST_CLIENT }],
    ['an access list that is not a list', { access_token: 'abc', access: { type: 'quote' } }],
    ['an invalid access item', { access_token: 'abc', access: [{ type: 'quote', actions: ['complete'] }] }],
  ])('returns invalid_request 400 for %s', async (_name, body) => {
    await expect(introspect(t.deps, body)).rejects.toMatchObject(gnapError('invalid_request', 400))
  })

  it('answers inactive for an unknown token', async () => {
    await expect(introspect(t.deps, { access_token: 'NOT-A-TOKEN' })).resolves.toEqual({ active: false })
  })

  it('answers inactive for a continuation token', async () => {
    const g = await issueNonInteractiveGrant(t)
    await expect(introspect(t.deps, { access_token: g.continueToken })).resolves.toEqual({ active: false })
  })

  it('answers a live token with its grant, its client and every granted item when no access is asked for', async () => {
    const g = await issueNonInteractiveGrant(t)
    const grant = await t.db.grant.findUniqueOrThrow({ where: { continueId: g.continueId } })
    const answer = await introspect(t.deps, { access_token: g.tokenValue })
    expect(answer).toEqual({
      active: true,
      grant: grant.id,
      access: [incomingAccess()],
      client: { walletAddress: TEST_CLIENT },
    })
    assertMatchesSpec('token-introspection', '/', 'POST', 200, answer)
  })

  it('answers all the items of an interactive grant, in request order and as granted, when no access is asked for', async () => {
    const granted = [
      outgoingAccess({ actions: ['create', 'read-all'] }),
      incomingAccess({ identifier: TEST_OWNER, actions: ['read', 'list'] }),
      quoteAccess({ actions: ['create', 'read'] }),
    ]
    const g = await issueInteractiveGrant(t, grantRequest({ access: granted }))
    const answer = await introspect(t.deps, { access_token: g.tokenValue })
    expect(answer).toMatchObject({ active: true, access: granted })
    assertMatchesSpec('token-introspection', '/', 'POST', 200, answer)
    // With `access`, only what matches, as before; then without it, all again.
    await expect(introspect(t.deps, { access_token: g.tokenValue, access: [quoteAccess({ actions: ['read'] })] })).resolves.toMatchObject({
      access: [granted[2]],
    })
    await expect(introspect(t.deps, { access_token: g.tokenValue })).resolves.toMatchObject({ access: granted })
  })

  it('hands out answers that cannot change what the next introspection of the grant says', async () => {
    const g = await issueInteractiveGrant(t, grantRequest({ access: [outgoingAccess()] }))
    const first = (await introspect(t.deps, { access_token: g.tokenValue })) as unknown as { access: { actions: string[]; limits?: unknown }[] }
    expect(() => first.access.push({ actions: [] })).toThrow(TypeError)
    expect(() => first.access[0]!.actions.push('read-all')).toThrow(TypeError)
    expect(() => ((first.access[0] as { limits: { debitAmount: { value: string } } }).limits.debitAmount.value = '1')).toThrow(TypeError)
    await expect(introspect(t.deps, { access_token: g.tokenValue })).resolves.toMatchObject({ access: [outgoingAccess()] })
  })

  it('returns the granted items that match the requested ones and omits the rest', async () => {
    const granted = [outgoingAccess({ actions: ['create', 'read-all'] }), incomingAccess({ identifier: TEST_OWNER })]
    const g = await issueInteractiveGrant(t, grantRequest({ access: granted }))
    const result = await introspect(t.deps, {
      access_token: g.tokenValue,
      access: [
        { type: 'outgoing-payment', actions: ['read'], identifier: TEST_OWNER },
        { type: 'quote', actions: ['create'] },
      ],
    })
    expect(result).toMatchObject({ active: true, access: [granted[0]] })
  })

  it('stays active with an empty access list when nothing requested matches', async () => {
    const g = await issueNonInteractiveGrant(t, { access: [quoteAccess({ actions: ['read'] })] })
    await expect(introspect(t.deps, { access_token: g.tokenValue, access: [quoteAccess({ actions: ['create'] })] })).resolves.toMatchObject({
      active: true,
      access: [],
    })
  })

  it('answers active until the token expires and inactive after', async () => {
    const g = await issueNonInteractiveGrant(t)
    t.clock.advance(599)
    await expect(introspect(t.deps, { access_token: g.tokenValue })).resolves.toMatchObject({ active: true })
    t.clock.advance(2)
    await expect(introspect(t.deps, { access_token: g.tokenValue })).resolves.toEqual({ active: false })
  })

  it('answers inactive for the old value of a rotated token and active for its successor', async () => {
    const g = await issueNonInteractiveGrant(t)
    const { access_token } = await rotateAccessToken(t.deps, { managementId: g.managementId, auth: authAs(g.tokenValue) })
    await expect(introspect(t.deps, { access_token: g.tokenValue })).resolves.toEqual({ active: false })
    await expect(introspect(t.deps, { access_token: access_token.value })).resolves.toMatchObject({ active: true })
    expect(lastSegment(access_token.manage)).not.toBe(g.managementId)
  })

  it('answers inactive for a revoked token', async () => {
    const g = await issueNonInteractiveGrant(t)
    await revokeAccessToken(t.deps, { managementId: g.managementId, auth: authAs(g.tokenValue) })
    await expect(introspect(t.deps, { access_token: g.tokenValue })).resolves.toEqual({ active: false })
  })

  it('answers inactive for a token of a revoked grant', async () => {
    const g = await issueNonInteractiveGrant(t)
    await cancelGrant(t.deps, { continueId: g.continueId, auth: authAs(g.continueToken) })
    await expect(introspect(t.deps, { access_token: g.tokenValue })).resolves.toEqual({ active: false })
  })

  it('answers inactive for a live token whose grant row says revoked', async () => {
    const g = await issueNonInteractiveGrant(t)
    // A grant revoked by an administrator path that left a token live must still not be usable.
    await t.db.grant.update({ where: { continueId: g.continueId }, data: { finalizedReason: 'revoked' } })
    await expect(introspect(t.deps, { access_token: g.tokenValue })).resolves.toEqual({ active: false })
  })
})
