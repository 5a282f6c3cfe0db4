import { describe, expect, it } from 'vitest'
import { authAs, grantRequest, incomingAccess } from '../testing/deps'
import { approvedGrant, issueNonInteractiveGrant } from '../testing/grant-flows'
import { countingSql, type StatementCount } from '../testing/count-statements'
import { addWebhookEndpoint } from '../testing/webhook-delivery'
import { useTestDeps } from '../testing/use-test-deps'
import { WEBHOOK_EVENT_TYPES } from './events/event-types'
import { rotateAccessToken } from './access-token/rotate-access-token'
import { requestGrant } from './grant/request-grant'
import { continueGrant } from './grant/continue-grant'

// The statements and flushes of the three hot writes (docs/benchmark.md, "Statements per request"), counted through
// the SqlRunner, so that one more cannot slip in unnoticed. Counts, never timings. The requests' signatures are
// stubbed: a signature with a nonce adds one write of its own, and the grant route's per-IP rate limit another
// (docs/benchmark.md).

const t = useTestDeps()

async function counted(work: (deps: typeof t.deps) => Promise<unknown>): Promise<StatementCount> {
  const c = countingSql(t.sql)
  await work({ ...t.deps, sql: c.sql })
  return { ...c.count }
}

const rotation = async () => {
  const g = await issueNonInteractiveGrant(t)
  return counted((deps) => rotateAccessToken(deps, { managementId: g.managementId, auth: authAs(g.tokenValue) }))
}
const grant = () => counted((deps) => requestGrant(deps, grantRequest({ access: [incomingAccess()], interact: null }), authAs(null), null))
const continuation = async () => {
  const approved = await approvedGrant(t)
  t.clock.advance(t.deps.config.waitSeconds)
  return counted((deps) =>
    continueGrant(deps, { continueId: approved.continueId, interactRef: approved.interactRef, auth: authAs(approved.continueToken) }),
  )
}

describe('statements per request, no webhook endpoint', () => {
  it('rotation', async () => {
    expect(await rotation()).toEqual({ statements: 6, writes: 3, flushes: 1 })
  })
  it('grant request', async () => {
    expect(await grant()).toEqual({ statements: 8, writes: 5, flushes: 2 })
  })
  it('continuation', async () => {
    expect(await continuation()).toEqual({ statements: 8, writes: 3, flushes: 1 })
  })
})

describe('statements per request, one endpoint subscribed to every type', () => {
  const subscribe = () => addWebhookEndpoint(t, { eventTypes: WEBHOOK_EVENT_TYPES })
  it('rotation', async () => {
    await subscribe()
    expect(await rotation()).toEqual({ statements: 11, writes: 7, flushes: 1 })
  })
  it('grant request', async () => {
    await subscribe()
    expect(await grant()).toEqual({ statements: 12, writes: 8, flushes: 2 })
  })
  it('continuation', async () => {
    await subscribe()
    expect(await continuation()).toEqual({ statements: 12, writes: 6, flushes: 1 })
  })
})
