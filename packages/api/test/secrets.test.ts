import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import superjson from 'superjson'
import { hashSecret } from '@gnap/domain/kernel'
import { rotateAccessToken } from '@gnap/domain/protocol'
import {
  authAs,
  interact,
  issueInteractiveGrant,
  issueNonInteractiveGrant,
  lastSegment,
  requestPendingGrant,
  type TestDeps,
} from '@gnap/domain/testing'
import { ADMIN, apiTestDeps, callerWith, ownerSessionValue, recordingJar, signedInAdmin } from './support'
import { createAdmin } from '@gnap/domain/operator'

// The console must never receive a token value, a hash, a password (hash), a session value or id, or any other
// secret. Every procedure is called on data holding each kind of secret, every output is
// serialised as the HTTP adapter would (superjson), and searched for every secret the test knows or the database
// stores.

let t: TestDeps
beforeEach(async () => {
  t = await apiTestDeps()
})
afterEach(async () => {
  await t.cleanup()
})

describe('no output carries a secret', () => {
  it('holds for every procedure, on grants of every state with rotated and revoked tokens', async () => {
    const secrets = new Set<string>([ADMIN.password])
    const known = (value: string) => {
      secrets.add(value)
      secrets.add(hashSecret(value))
    }

    // Grants of every state; each value the client received is a secret, and so is its hash.
    const interactive = await issueInteractiveGrant(t)
    known(interactive.tokenValue)
    known(interactive.continueToken)
    t.clock.advance(600)
    const rotated = await rotateAccessToken(t.deps, { managementId: interactive.managementId, auth: authAs(interactive.tokenValue) })
    known(rotated.access_token.value)
    const plain = await issueNonInteractiveGrant(t)
    known(plain.tokenValue)
    known(plain.continueToken)
    const pending = await requestPendingGrant(t)
    known(pending.continueToken)
    const denied = await interact(t, await requestPendingGrant(t), 'reject')
    known(denied.continueToken)
    known(denied.session)
    known(await ownerSessionValue(t))

    const session = await signedInAdmin(t)
    known(session.value)

    // Sign-in output (with its own new session) and every other procedure.
    await createAdmin(t.sql, { email: 'second@example.com', password: 'second admin password' })
    secrets.add('second admin password')
    const jar = recordingJar()
    const outputs: [string, unknown][] = []
    const signIn = await (await callerWith(t, { jar })).auth.signIn({ email: 'second@example.com', password: 'second admin password' })
    outputs.push(['auth.signIn', signIn])
    for (const e of jar.events) if (e.kind === 'set') known(e.value)

    const caller = await callerWith(t, { session: session.value, csrf: session.csrf })
    const grantIds = (await t.db.grant.findMany({ select: { id: true } })).map((g) => g.id)
    const managementIds = (await t.db.accessToken.findMany({ select: { managementId: true } })).map((k) => k.managementId)
    outputs.push(['auth.session', await caller.auth.session()])
    outputs.push(['grants.list', await caller.grants.list({ limit: 100 })])
    outputs.push(['clients.list', await caller.clients.list({})])
    const clients = [...new Set((await t.db.grant.findMany({ select: { client: true } })).map((g) => g.client))]
    for (const walletAddress of clients) outputs.push(['clients.byWalletAddress', await caller.clients.byWalletAddress({ walletAddress })])
    outputs.push([
      'stats.overview',
      await caller.stats.overview({ from: new Date(t.clock.now.getTime() - 86_400_000), to: new Date(t.clock.now.getTime() + 1) }),
    ])
    for (const id of grantIds) {
      outputs.push(['grants.byId', await caller.grants.byId({ id })])
      outputs.push(['tokens.chain', await caller.tokens.chain({ grantId: id })])
    }
    for (const managementId of managementIds) outputs.push(['tokens.byManagementId', await caller.tokens.byManagementId({ managementId })])
    outputs.push(['tokens.revoke', await caller.tokens.revoke({ managementId: lastSegment(rotated.access_token.manage) })])
    outputs.push([
      'grants.revoke',
      await caller.grants.revoke({ id: (await t.db.grant.findUniqueOrThrow({ where: { continueId: plain.continueId } })).id }),
    ])
    outputs.push(['clients.block', await caller.clients.block({ walletAddress: clients[0]!, reason: 'the secrets test blocks it' })])
    outputs.push(['clients.blocked', await caller.clients.blocked()])
    outputs.push(['clients.unblock', await caller.clients.unblock({ walletAddress: clients[0]! })])
    outputs.push(['audit.list', await caller.audit.list({})])
    outputs.push(['auth.signOut', await caller.auth.signOut()])
    expect(new Set(outputs.map(([p]) => p)).size).toBe(16)

    // Everything secret the database stores, whether or not the test saw it (hashes, interact_ref, nonces).
    const [tokens, grants, interactions, sessions, admins, owners] = await Promise.all([
      t.db.accessToken.findMany({ select: { valueHash: true } }),
      t.db.grant.findMany({ select: { continueTokenHash: true, clientNonce: true } }),
      t.db.interaction.findMany({ select: { interactRef: true, nonce: true, sessionHash: true } }),
      t.db.session.findMany({ select: { id: true, csrfHash: true } }),
      t.db.admin.findMany({ select: { passwordHash: true } }),
      t.db.owner.findMany({ select: { passwordHash: true } }),
    ])
    for (const v of [
      ...tokens.map((r) => r.valueHash),
      ...grants.flatMap((r) => [r.continueTokenHash, r.clientNonce]),
      ...interactions.flatMap((r) => [r.interactRef, r.nonce, r.sessionHash]),
      ...sessions.flatMap((r) => [r.id, r.csrfHash]),
      ...admins.map((r) => r.passwordHash),
      ...owners.map((r) => r.passwordHash),
    ]) {
      if (v) secrets.add(v)
    }
    expect(secrets.size).toBeGreaterThan(30)

    for (const [path, output] of outputs) {
      const text = superjson.stringify(output)
      for (const secret of secrets) expect(text.includes(secret), `${path} carries a secret`).toBe(false)
      // Nothing of the shape of a token value (48 upper-case hex) or a SHA-256 hex hash either.
      expect(text, path).not.toMatch(/[0-9A-F]{48}|[0-9a-f]{64}/)
    }
  })
})
