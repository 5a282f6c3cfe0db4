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
  const past = 10 * SECRET_FAILURE_LIMITS.failuresWhenAddressUnknown
  const refusedWith429 = (p: Promise<unknown>) =>
    expect(p).rejects.toMatchObject({ ...gnapError('request_denied', 429), retryAfterSeconds: expect.any(Number) })

  it('refuses wrong secrets of an address with 429 once it used up its failures, and still takes its right one', async () => {
    await failTimes(SECRET_FAILURE_LIMITS.failuresPerIp, A)
    await refusedWith429(bearer('Bearer wrong-secret', A))
    await expect(bearer(INTROSPECTION, A)).resolves.toBeUndefined()
  })

  it('takes the right secret from the guessing address and from another after 1,000 wrong ones; only the guesser gets 429', async () => {
    for (let i = 0; i < past; i++) await bearer('Bearer wrong-secret', A).catch(() => undefined)
    await refusedWith429(bearer('Bearer wrong-secret', A))
    await expect(bearer(INTROSPECTION, A)).resolves.toBeUndefined()
    await expect(bearer(INTROSPECTION, B)).resolves.toBeUndefined()
    await expect(bearer('Bearer wrong-secret', B)).rejects.toMatchObject(gnapError('invalid_client', 401))
  })

  it('without a known address refuses only the wrong secrets: 401, then 429 on one shared counter; the right one passes', async () => {
    await failTimes(SECRET_FAILURE_LIMITS.failuresWhenAddressUnknown, null)
    await refusedWith429(bearer('Bearer wrong-secret', null))
    await expect(bearer(INTROSPECTION, null)).resolves.toBeUndefined()
    // A known address keeps its own allowance.
    await expect(bearer('Bearer wrong-secret', B)).rejects.toMatchObject(gnapError('invalid_client', 401))
  })

  it('does not count the right secret, and opens again in the next window', async () => {
    for (let i = 0; i < 3 * SECRET_FAILURE_LIMITS.failuresPerIp; i++) await expect(bearer(INTROSPECTION, A)).resolves.toBeUndefined()
    await failTimes(SECRET_FAILURE_LIMITS.failuresPerIp, A)
    await refusedWith429(bearer('Bearer wrong-secret', A))
    t.clock.advance(SECRET_FAILURE_LIMITS.windowSeconds)
    await expect(bearer('Bearer wrong-secret', A)).rejects.toMatchObject(gnapError('invalid_client', 401))
  })
})

describe('introspection as resource servers call it (docs/protocol.md §2.6)', () => {
  const ask = (authorization: string, ip: string | null, body: unknown) => introspectForResourceServer(t.deps, { authorization, ip }, body)

  it('answers the right secret from every address, whoever failed: wrong ones get 401, then 429 past their limit', async () => {
    const g = await issueNonInteractiveGrant(t)
    for (const ip of [A, null]) {
      for (let i = 0; i < SECRET_FAILURE_LIMITS.failuresWhenAddressUnknown + 5; i++) {
        await ask('Bearer wrong-secret', ip, { access_token: g.tokenValue }).catch(() => undefined)
      }
      const refused = await ask('Bearer wrong-secret', ip, { access_token: g.tokenValue }).catch((e: unknown) => e)
      expect(refused).toMatchObject({ ...gnapError('request_denied', 429), retryAfterSeconds: expect.any(Number) })
    }
    for (const ip of [A, B, null]) {
      await expect(ask(INTROSPECTION, ip, { access_token: g.tokenValue })).resolves.toMatchObject({ active: true })
      await expect(ask(INTROSPECTION, ip, { access_token: 'unknown' })).resolves.toEqual({ active: false })
      await expect(ask(INTROSPECTION, ip, { token: 'not the contract' })).rejects.toMatchObject(gnapError('invalid_request', 400))
    }
    await expect(ask('Bearer wrong-secret', B, { access_token: g.tokenValue })).rejects.toMatchObject(gnapError('invalid_client', 401))
  })

  it('answers a body of the wrong shape 400 to the right secret, 401 to a wrong one', async () => {
    await expect(ask(INTROSPECTION, null, { token: 'x' })).rejects.toMatchObject(gnapError('invalid_request', 400))
    await expect(ask('Bearer wrong-secret', null, { token: 'x' })).rejects.toMatchObject(gnapError('invalid_client', 401))
  })
})

describe('failed x-idp-secret attempts (docs/protocol.md §2.9, §2.10)', () => {
  it('refuses wrong secrets of an address after its failures, lookups and choices alike; the right one passes from every address', async () => {
    const g = await requestPendingGrant(t)
    const ids = { interactionId: g.interactionId, nonce: g.nonce }
    for (let i = 0; i < SECRET_FAILURE_LIMITS.failuresPerIp; i++) {
      const call =
        i % 2
          ? getGrantForConsent(t.deps, { ...ids, idpSecret: 'wrong', ip: A })
          : recordConsent(t.deps, { ...ids, choice: 'accept', idpSecret: null, ip: A })
      await expect(call).rejects.toMatchObject({ status: 401 })
    }
    await expect(getGrantForConsent(t.deps, { ...ids, idpSecret: 'wrong', ip: A })).rejects.toMatchObject(gnapError('request_denied', 429))
    await expect(recordConsent(t.deps, { ...ids, choice: 'accept', idpSecret: 'wrong', ip: A })).rejects.toMatchObject(
      gnapError('request_denied', 429),
    )
    await expect(getGrantForConsent(t.deps, { ...ids, idpSecret: 'wrong', ip: B })).rejects.toMatchObject({ status: 401 })
    await expect(getGrantForConsent(t.deps, { ...ids, idpSecret: IDP_SECRET, ip: A })).resolves.toMatchObject({ state: 'PENDING' })
    await expect(getGrantForConsent(t.deps, { ...ids, idpSecret: IDP_SECRET, ip: B })).resolves.toMatchObject({ state: 'PENDING' })
    await expect(getGrantForConsent(t.deps, { ...ids, idpSecret: IDP_SECRET, ip: null })).resolves.toMatchObject({ state: 'PENDING' })
    await expect(recordConsent(t.deps, { ...ids, choice: 'accept', idpSecret: IDP_SECRET, ip: A })).resolves.toBeUndefined()
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
