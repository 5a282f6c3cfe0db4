import { describe, expect, it } from 'vitest'
import { gnapError } from '../../testing/deps'
import { requestPendingGrant } from '../../testing/grant-flows'
import { authenticateResourceServer, introspectForResourceServer } from '../access-token/introspect-token'
import { issueNonInteractiveGrant } from '../../testing/grant-flows'
import { getGrantForConsent } from '../interaction/get-grant-for-consent'
import { recordConsent } from '../interaction/record-consent'
import { useTestDeps } from '../../testing/use-test-deps'
import { limitSecretFailures, SECRET_FAILURE_LIMITS } from './secret-failure-limit'

const t = useTestDeps()

const IDP_SECRET = 'idp-secret-123456'
const INTROSPECTION = 'Bearer introspection-secret-123456'
const A = '203.0.113.7'
const B = '198.51.100.9'

const bearer = (authorization: string, ip: string | null) =>
  limitSecretFailures(t.deps, 'introspection', ip, () => authenticateResourceServer(t.deps, authorization))

async function failTimes(n: number, ip: string | null) {
  for (let i = 0; i < n; i++) await expect(bearer('Bearer wrong-secret', ip)).rejects.toMatchObject(gnapError('invalid_client', 401))
}

describe('failed introspection bearer secrets (docs/protocol.md §2.6)', () => {
  it('refuses an address with 429 and Retry-After once it used up its failures, even with the right secret', async () => {
    await failTimes(SECRET_FAILURE_LIMITS.failuresPerIp, A)
    for (const authorization of ['Bearer wrong-secret', INTROSPECTION]) {
      const refused = await bearer(authorization, A).catch((e: unknown) => e)
      expect(refused).toMatchObject({ ...gnapError('request_denied', 429), retryAfterSeconds: expect.any(Number) })
    }
  })

  it('lets the right secret through from another address while one address is refused', async () => {
    await failTimes(SECRET_FAILURE_LIMITS.failuresPerIp, A)
    await expect(bearer('Bearer wrong-secret', A)).rejects.toMatchObject(gnapError('request_denied', 429))
    await expect(bearer(INTROSPECTION, B)).resolves.toBeUndefined()
    await expect(bearer('Bearer wrong-secret', B)).rejects.toMatchObject(gnapError('invalid_client', 401))
  })

  it('counts failures of unknown addresses on one shared counter', async () => {
    await failTimes(SECRET_FAILURE_LIMITS.failuresWhenAddressUnknown, null)
    await expect(bearer(INTROSPECTION, null)).rejects.toMatchObject(gnapError('request_denied', 429))
    // A known address keeps its own allowance.
    await expect(bearer(INTROSPECTION, B)).resolves.toBeUndefined()
  })

  it('does not count the right secret, and opens again in the next window', async () => {
    for (let i = 0; i < 3 * SECRET_FAILURE_LIMITS.failuresPerIp; i++) await expect(bearer(INTROSPECTION, A)).resolves.toBeUndefined()
    await failTimes(SECRET_FAILURE_LIMITS.failuresPerIp, A)
    await expect(bearer(INTROSPECTION, A)).rejects.toMatchObject(gnapError('request_denied', 429))
    t.clock.advance(SECRET_FAILURE_LIMITS.windowSeconds)
    await expect(bearer(INTROSPECTION, A)).resolves.toBeUndefined()
  })
})

describe('introspection as resource servers call it (docs/protocol.md §2.6)', () => {
  const ask = (authorization: string, ip: string | null, body: unknown) => introspectForResourceServer(t.deps, { authorization, ip }, body)

  it('answers the right secret, counts wrong ones, and past the limit answers 429 whatever the secret and body', async () => {
    const g = await issueNonInteractiveGrant(t)
    for (let i = 0; i < 2 * SECRET_FAILURE_LIMITS.failuresPerIp; i++) {
      await expect(ask(INTROSPECTION, A, { access_token: g.tokenValue })).resolves.toMatchObject({ active: true })
    }
    for (let i = 0; i < SECRET_FAILURE_LIMITS.failuresPerIp; i++) {
      await expect(ask('Bearer wrong-secret', A, { access_token: g.tokenValue })).rejects.toMatchObject(gnapError('invalid_client', 401))
    }
    for (const [authorization, body] of [
      ['Bearer wrong-secret', { access_token: g.tokenValue }],
      [INTROSPECTION, { access_token: g.tokenValue }],
      [INTROSPECTION, { access_token: 'unknown' }],
      [INTROSPECTION, { token: 'not the contract' }],
      [INTROSPECTION, undefined],
    ] as const) {
      const refused = await ask(authorization, A, body).catch((e: unknown) => e)
      expect(refused).toMatchObject({ ...gnapError('request_denied', 429), retryAfterSeconds: expect.any(Number) })
    }
    // Another address has its own counter; the next window opens again.
    await expect(ask(INTROSPECTION, B, { access_token: g.tokenValue })).resolves.toMatchObject({ active: true })
    t.clock.advance(SECRET_FAILURE_LIMITS.windowSeconds)
    await expect(ask(INTROSPECTION, A, { access_token: g.tokenValue })).resolves.toMatchObject({ active: true })
  })

  it('answers a body of the wrong shape 400 to the right secret while the caller is under the limit', async () => {
    await expect(ask(INTROSPECTION, null, { token: 'x' })).rejects.toMatchObject(gnapError('invalid_request', 400))
    await expect(ask('Bearer wrong-secret', null, { token: 'x' })).rejects.toMatchObject(gnapError('invalid_client', 401))
  })
})

describe('failed x-idp-secret attempts (docs/protocol.md §2.9, §2.10)', () => {
  it('refuses the identity-provider API to an address after its failures, lookups and choices alike, but not another address', async () => {
    const g = await requestPendingGrant(t)
    const ids = { interactionId: g.interactionId, nonce: g.nonce }
    for (let i = 0; i < SECRET_FAILURE_LIMITS.failuresPerIp; i++) {
      const call =
        i % 2
          ? getGrantForConsent(t.deps, { ...ids, idpSecret: 'wrong', ip: A })
          : recordConsent(t.deps, { ...ids, choice: 'accept', idpSecret: null, ip: A })
      await expect(call).rejects.toMatchObject({ status: 401 })
    }
    await expect(getGrantForConsent(t.deps, { ...ids, idpSecret: IDP_SECRET, ip: A })).rejects.toMatchObject(gnapError('request_denied', 429))
    await expect(recordConsent(t.deps, { ...ids, choice: 'accept', idpSecret: IDP_SECRET, ip: A })).rejects.toMatchObject(
      gnapError('request_denied', 429),
    )
    await expect(getGrantForConsent(t.deps, { ...ids, idpSecret: IDP_SECRET, ip: B })).resolves.toMatchObject({ state: 'PENDING' })
    await expect(recordConsent(t.deps, { ...ids, choice: 'accept', idpSecret: IDP_SECRET, ip: B })).resolves.toBeUndefined()
  })

  it('does not count other refusals of the identity-provider API as wrong secrets', async () => {
    const g = await requestPendingGrant(t)
    for (let i = 0; i < SECRET_FAILURE_LIMITS.failuresPerIp + 2; i++) {
      await expect(
        recordConsent(t.deps, { interactionId: g.interactionId, nonce: g.nonce, choice: 'maybe', idpSecret: IDP_SECRET, ip: A }),
      ).rejects.toMatchObject(gnapError('invalid_request', 400))
    }
    await expect(getGrantForConsent(t.deps, { interactionId: g.interactionId, nonce: g.nonce, idpSecret: IDP_SECRET, ip: A })).resolves.toBeDefined()
  })
})
