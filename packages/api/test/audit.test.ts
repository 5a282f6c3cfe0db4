import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AUDIT_ACTIONS } from '@gnap/domain/operator'
import { issueNonInteractiveGrant, type TestDeps } from '@gnap/domain/testing'
import { adminCaller, apiTestDeps, callerWith, expectTrpcError } from './support'
import { everyProcedure, routerPaths, seedProcedureIds } from './procedures'

// The audit log's procedure (docs/protocol.md §2.15): filters for every role, input refused with a readable
// BAD_REQUEST, and no procedure of the router changing or removing an entry.
let t: TestDeps
beforeEach(async () => {
  t = await apiTestDeps()
})
afterEach(async () => {
  await t.cleanup()
})

describe('audit.list', () => {
  it('filters by actor, action, target and time for a viewer, across pages', async () => {
    await issueNonInteractiveGrant(t)
    const { caller: admin } = await adminCaller(t, 'admin')
    const { caller: operator } = await adminCaller(t, 'operator')
    const grantId = (await t.db.grant.findFirstOrThrow()).id
    await operator.grants.revoke({ id: grantId })
    await admin.owners.create({ email: 'carol@example.com', name: 'Carol', walletAddresses: ['https://wallet.example/carol'] })
    const { caller: viewer } = await adminCaller(t, 'viewer')

    const revokes = await viewer.audit.list({ filters: { actor: { value: 'operator@', match: 'prefix' }, action: { value: 'grant.revoke' } } })
    expect(revokes.items.map((e) => [e.actor, e.action, e.target])).toEqual([['operator@example.com', 'grant.revoke', `grant:${grantId}`]])

    // Three sign-ins at the same instant (the test clock stands still): pages split them by id, none lost.
    const signIns = await viewer.audit.list({ filters: { action: { value: 'admin.', match: 'prefix' } }, limit: 2 })
    expect(signIns.items.map((e) => e.action)).toEqual(['admin.sign-in', 'admin.sign-in'])
    const rest = await viewer.audit.list({ filters: { action: { value: 'admin.', match: 'prefix' } }, limit: 2, cursor: signIns.nextCursor })
    expect(rest.nextCursor).toBeNull()
    expect([...signIns.items, ...rest.items].map((e) => e.actor).sort()).toEqual(['operator@example.com', 'ops@example.com', 'viewer@example.com'])

    const owners = await viewer.audit.list({ filters: { target: { value: 'owner:', match: 'prefix' } } })
    expect(owners.items.map((e) => e.action)).toEqual(['owner.create'])

    const now = t.clock.now
    expect((await viewer.audit.list({ filters: { createdTo: now } })).items).toEqual([])
    expect((await viewer.audit.list({ filters: { createdFrom: now.toISOString() } })).items).toHaveLength(5)
  })

  it.each([
    ['an unknown action', { filters: { action: { value: 'grant.explode' } } }, /unknown action/],
    ['a reversed range', { filters: { createdFrom: new Date(2026, 1, 2), createdTo: new Date(2026, 1, 1) } }, /createdFrom must be before createdTo/],
    ['a date without a zone', { filters: { createdFrom: '2026-02-01T00:00:00' } }, /createdFrom/],
    ['an unknown filter', { filters: { detail: 'x' } }, /filters/],
  ])('refuses %s with BAD_REQUEST', async (_name, input, message) => {
    const { caller } = await adminCaller(t, 'viewer')
    const error = await expectTrpcError(caller.audit.list(input as never), 'BAD_REQUEST')
    expect(error.message).toMatch(message)
  })

  it('refuses a cursor with other filters than those it was made for', async () => {
    const { caller } = await adminCaller(t, 'admin')
    await adminCaller(t, 'viewer')
    const page = await caller.audit.list({ limit: 1, filters: { action: { value: 'admin.sign-in' } } })
    expect(page.nextCursor).not.toBeNull()
    const error = await expectTrpcError(
      caller.audit.list({ limit: 1, cursor: page.nextCursor, filters: { action: { value: 'admin.', match: 'prefix' } } }),
      'BAD_REQUEST',
    )
    expect(error.message).toMatch(/other filters/)
  })

  it('needs a session', async () => {
    await expectTrpcError((await callerWith(t)).audit.list({ filters: { action: { value: 'owner.', match: 'prefix' } } }), 'UNAUTHORIZED')
  })
})

describe('the audit log is append-only', () => {
  it('no procedure of the router changes or removes an entry: after calling each, every earlier entry is still there as it was', async () => {
    const ids = await seedProcedureIds(t)
    const { caller } = await adminCaller(t, 'admin')
    // Deleting the owner and signing out last, so every other procedure runs with the owner and the session.
    const last = ['owners.delete', 'auth.signOut']
    const procedures = everyProcedure(ids).sort(([a], [b]) => last.indexOf(a) - last.indexOf(b))
    expect(procedures.map(([p]) => p).sort()).toEqual(routerPaths())
    const snapshot = () => t.db.auditLog.findMany({ orderBy: { id: 'asc' } })
    let before = await snapshot()
    for (const [path, call] of procedures) {
      await call(caller).catch(() => undefined)
      const after = await snapshot()
      const kept = after.filter((e) => before.some((b) => b.id === e.id))
      expect(kept, path).toEqual(before)
      before = after
    }
    // The procedures that change something did run, and wrote their entries.
    // (Every action but a token's revocation, after its grant's, and an owner's or administrator's own password set
    // with a link and the import, which are not console procedures; and My account's changes, which need the right
    // password or a code from the authenticator app, and whose entries the domain's two-step tests check; and turning
    // off another administrator's two-step sign-in, which the seeded administrator does not have on.)
    const unreachable: string[] = [
      'token.revoke',
      'owner.set-password',
      'admin.set-password',
      'owner.import',
      'admin.password-change',
      'admin.totp-enable',
      'admin.totp-disable',
      'admin.recovery-codes-renew',
      'admin.reset-two-step',
    ]
    expect(new Set(before.map((e) => e.action))).toEqual(new Set(AUDIT_ACTIONS.filter((a) => !unreachable.includes(a))))
  })
})
