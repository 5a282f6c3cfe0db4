import type { inferRouterInputs } from '@trpc/server'
import { createAdmin, createOwner, newWebhookSecret, type AdminRole } from '@gnap/domain/operator'
import { issueNonInteractiveGrant, type TestDeps } from '@gnap/domain/testing'
import type { AppRouter, createCaller } from '../src/root'
import { appRouter } from '../src/root'

export type Caller = ReturnType<typeof createCaller>

type Inputs = inferRouterInputs<AppRouter>
/** `router.procedure` for every procedure of the app router, from its type: a new procedure is a new path. */
export type ProcedurePath = { [R in keyof Inputs & string]: `${R}.${keyof Inputs[R] & string}` }[keyof Inputs & string]

let invited = 0

export type ProcedureIds = Parameters<typeof everyProcedure>[0]

/** Rows for every procedure to act on: an issued grant and its token, an owner, an operator to manage, an API key, a webhook endpoint with a failed delivery. */
export async function seedProcedureIds(t: TestDeps): Promise<ProcedureIds> {
  const grant = await issueNonInteractiveGrant(t)
  const row = await t.db.grant.findUniqueOrThrow({ where: { continueId: grant.continueId } })
  const bob = await createOwner(t.sql, {
    email: 'bob@example.com',
    name: 'Bob',
    password: 'bob-password',
    walletAddresses: ['https://wallet.example/bob'],
  })
  const target = await createAdmin(t.sql, { email: 'target@example.com', password: 'target password for tests', role: 'operator' })
  // A key to revoke, written directly (the audit tests count entries).
  const apiKey = await t.db.apiKey.create({
    data: { id: '0123456789abcdef', name: 'existing', role: 'viewer', prefix: 'gnap_ak_0123456789abcdef', hash: '0'.repeat(64), createdBy: 'setup' },
  })
  // A webhook endpoint with one failed delivery to replay, written directly (no address check, no audit entry).
  const webhook = await t.db.webhookEndpoint.create({
    data: { id: crypto.randomUUID(), url: 'https://hooks.example.com/seed', secret: newWebhookSecret(), createdBy: 'setup', updatedAt: t.clock.now },
  })
  await t.db.webhookSubscription.create({ data: { endpointId: webhook.id, eventType: 'grant.revoked' } })
  const event = await t.db.webhookEvent.create({
    data: { id: 'evt_seeded', type: 'grant.revoked', grantId: row.id, payload: '{}', createdAt: t.clock.now },
  })
  const delivery = await t.db.webhookDelivery.create({
    data: {
      id: crypto.randomUUID(),
      eventId: event.id,
      endpointId: webhook.id,
      orderKey: `grant:${row.id}`,
      state: 'failed',
      attempts: 12,
      nextAttemptAt: t.clock.now,
      giveUpAt: t.clock.now,
      lastAttemptAt: t.clock.now,
      lastStatus: 503,
      lastError: 'the endpoint answered 503',
      createdAt: t.clock.now,
    },
  })
  return {
    grantId: row.id,
    managementId: grant.managementId,
    ownerId: bob.id,
    adminId: target.id,
    apiKeyId: apiKey.id,
    webhookId: webhook.id,
    deliveryId: delivery.id,
  }
}

/** Every procedure of the router, called with valid input (ids of real rows where it takes ids). */
export function everyProcedure(ids: {
  grantId: string
  managementId: string
  ownerId: string
  apiKeyId: string
  /** An administrator other than the caller. */
  adminId: string
  /** An enabled webhook endpoint, and a failed delivery of it. */
  webhookId: string
  deliveryId: string
}): [path: ProcedurePath, call: (c: Caller) => Promise<unknown>][] {
  const now = new Date()
  return [
    ['auth.signIn', (c) => c.auth.signIn({ email: 'ops@example.com', password: 'correct horse battery staple' })],
    ['auth.verifyCode', (c) => c.auth.verifyCode({ challenge: 'no-such-challenge', code: '123456' })],
    ['auth.session', (c) => c.auth.session()],
    ['auth.signOut', (c) => c.auth.signOut()],
    ['grants.list', (c) => c.grants.list({})],
    ['grants.byId', (c) => c.grants.byId({ id: ids.grantId })],
    ['grants.revoke', (c) => c.grants.revoke({ id: ids.grantId })],
    ['tokens.chain', (c) => c.tokens.chain({ grantId: ids.grantId })],
    ['tokens.byManagementId', (c) => c.tokens.byManagementId({ managementId: ids.managementId })],
    ['tokens.revoke', (c) => c.tokens.revoke({ managementId: ids.managementId })],
    ['clients.list', (c) => c.clients.list({})],
    ['clients.blocked', (c) => c.clients.blocked()],
    ['clients.byWalletAddress', (c) => c.clients.byWalletAddress({ walletAddress: 'https://wallet.example/test-app' })],
    ['clients.block', (c) => c.clients.block({ walletAddress: 'https://wallet.example/test-app', reason: 'its key leaked' })],
    ['clients.unblock', (c) => c.clients.unblock({ walletAddress: 'https://wallet.example/test-app' })],
    ['stats.overview', (c) => c.stats.overview({ from: new Date(now.getTime() - 86_400_000), to: now })],
    ['tenants.list', (c) => c.tenants.list()],
    ['audit.list', (c) => c.audit.list({})],
    ['owners.list', (c) => c.owners.list({})],
    ['owners.byId', (c) => c.owners.byId({ ownerId: ids.ownerId })],
    ['owners.create', (c) => c.owners.create({ email: 'carol@example.com', name: 'Carol', walletAddresses: ['https://wallet.example/carol'] })],
    ['owners.edit', (c) => c.owners.edit({ ownerId: ids.ownerId, email: 'bob@example.com', name: 'Bob B' })],
    ['owners.addWalletAddress', (c) => c.owners.addWalletAddress({ ownerId: ids.ownerId, walletAddress: 'https://wallet.example/bob2' })],
    [
      'owners.removeWalletAddress',
      (c) => c.owners.removeWalletAddress({ ownerId: ids.ownerId, walletAddress: 'https://wallet.example/bob', revokeGrants: true }),
    ],
    ['owners.disable', (c) => c.owners.disable({ ownerId: ids.ownerId, revokeGrants: true })],
    ['owners.enable', (c) => c.owners.enable({ ownerId: ids.ownerId })],
    ['owners.delete', (c) => c.owners.delete({ ownerId: ids.ownerId })],
    ['owners.issueLink', (c) => c.owners.issueLink({ ownerId: ids.ownerId, kind: 'invitation' })],
    ['admins.list', (c) => c.admins.list()],
    ['admins.invite', (c) => c.admins.invite({ email: `invited-${++invited}@example.com`, role: 'viewer' })],
    ['admins.changeRole', (c) => c.admins.changeRole({ adminId: ids.adminId, role: 'viewer' })],
    ['admins.disable', (c) => c.admins.disable({ adminId: ids.adminId })],
    ['admins.enable', (c) => c.admins.enable({ adminId: ids.adminId })],
    ['admins.resetPassword', (c) => c.admins.resetPassword({ adminId: ids.adminId })],
    ['admins.signOutEverywhere', (c) => c.admins.signOutEverywhere({ adminId: ids.adminId })],
    ['admins.resetTwoStep', (c) => c.admins.resetTwoStep({ adminId: ids.adminId })],
    ['account.twoStep', (c) => c.account.twoStep()],
    ['account.startTotp', (c) => c.account.startTotp()],
    ['account.confirmTotp', (c) => c.account.confirmTotp({ code: '123456' })],
    ['account.disableTotp', (c) => c.account.disableTotp({ code: '123456' })],
    ['account.renewRecoveryCodes', (c) => c.account.renewRecoveryCodes({ code: '123456' })],
    [
      'account.changePassword',
      (c) => c.account.changePassword({ currentPassword: 'x', newPassword: 'a brand new password', confirmPassword: 'a brand new password' }),
    ],
    ['account.sessions', (c) => c.account.sessions()],
    ['account.endSession', (c) => c.account.endSession({ sessionId: '0'.repeat(64) })],
    ['account.endOtherSessions', (c) => c.account.endOtherSessions()],
    ['apiKeys.list', (c) => c.apiKeys.list()],
    ['apiKeys.create', (c) => c.apiKeys.create({ name: 'sync', role: 'operator' })],
    ['apiKeys.revoke', (c) => c.apiKeys.revoke({ id: ids.apiKeyId })],
    ['webhooks.list', (c) => c.webhooks.list()],
    ['webhooks.byId', (c) => c.webhooks.byId({ id: ids.webhookId })],
    // An address literal: the router resolves names through the network, which tests never use.
    ['webhooks.create', (c) => c.webhooks.create({ url: 'https://93.184.215.14/gnap', eventTypes: ['grant.revoked'] })],
    ['webhooks.update', (c) => c.webhooks.update({ id: ids.webhookId, description: 'changed by the procedure list' })],
    [
      'webhooks.setEnabled',
      // Both ways, so both audit actions are reached; the endpoint ends enabled for the test event.
      async (c) => {
        await c.webhooks.setEnabled({ id: ids.webhookId, enabled: false })
        return c.webhooks.setEnabled({ id: ids.webhookId, enabled: true })
      },
    ],
    ['webhooks.rotateSecret', (c) => c.webhooks.rotateSecret({ id: ids.webhookId, overlapHours: 1 })],
    ['webhooks.sendTest', (c) => c.webhooks.sendTest({ id: ids.webhookId })],
    ['webhooks.deliveries', (c) => c.webhooks.deliveries({ endpointId: ids.webhookId })],
    ['webhooks.replay', (c) => c.webhooks.replay({ deliveryId: ids.deliveryId })],
    // Last of the webhooks: the others act on the endpoint it deletes.
    ['webhooks.delete', (c) => c.webhooks.delete({ id: ids.webhookId })],
  ]
}

/**
 * Who may call each procedure (docs/protocol.md §2.14): `public` (sign-in), `signed-in` (one's own session, any
 * role), or the lowest role that may. Typed by the router, so a new procedure does not compile until it is listed
 * here; the role matrix (role-matrix.test.ts) checks every entry against every role.
 */
export const MINIMUM_ROLE: Record<ProcedurePath, 'public' | 'signed-in' | AdminRole> = {
  'auth.signIn': 'public',
  'auth.verifyCode': 'public',
  'auth.session': 'signed-in',
  'auth.signOut': 'signed-in',
  'grants.list': 'viewer',
  'grants.byId': 'viewer',
  'grants.revoke': 'operator',
  'tokens.chain': 'viewer',
  'tokens.byManagementId': 'viewer',
  'tokens.revoke': 'operator',
  'clients.list': 'viewer',
  'clients.blocked': 'viewer',
  'clients.byWalletAddress': 'viewer',
  'clients.block': 'operator',
  'clients.unblock': 'operator',
  'stats.overview': 'viewer',
  'tenants.list': 'viewer',
  'audit.list': 'viewer',
  'owners.list': 'viewer',
  'owners.byId': 'viewer',
  'owners.create': 'admin',
  'owners.edit': 'admin',
  'owners.addWalletAddress': 'admin',
  'owners.removeWalletAddress': 'admin',
  'owners.disable': 'admin',
  'owners.enable': 'admin',
  'owners.delete': 'admin',
  'owners.issueLink': 'admin',
  'admins.list': 'viewer',
  'admins.invite': 'admin',
  'admins.changeRole': 'admin',
  'admins.disable': 'admin',
  'admins.enable': 'admin',
  'admins.resetPassword': 'admin',
  'admins.signOutEverywhere': 'admin',
  'admins.resetTwoStep': 'admin',
  'account.twoStep': 'signed-in',
  'account.startTotp': 'signed-in',
  'account.confirmTotp': 'signed-in',
  'account.disableTotp': 'signed-in',
  'account.renewRecoveryCodes': 'signed-in',
  'account.changePassword': 'signed-in',
  'account.sessions': 'signed-in',
  'account.endSession': 'signed-in',
  'account.endOtherSessions': 'signed-in',
  'apiKeys.list': 'admin',
  'apiKeys.create': 'admin',
  'apiKeys.revoke': 'admin',
  'webhooks.list': 'viewer',
  'webhooks.byId': 'viewer',
  'webhooks.create': 'admin',
  'webhooks.update': 'admin',
  'webhooks.setEnabled': 'admin',
  'webhooks.rotateSecret': 'admin',
  'webhooks.sendTest': 'admin',
  'webhooks.deliveries': 'viewer',
  'webhooks.replay': 'admin',
  'webhooks.delete': 'admin',
}

/**
 * What only a person signed in to the console may call, never an API key of any role (docs/protocol.md §2.18):
 * signing in, one's own session and account, and managing API keys and administrators (a key that could make keys
 * or invite people would outlive its own revocation).
 */
export const PEOPLE_ONLY = (path: ProcedurePath): boolean =>
  MINIMUM_ROLE[path] === 'public' ||
  MINIMUM_ROLE[path] === 'signed-in' ||
  path.startsWith('apiKeys.') ||
  (path.startsWith('admins.') && path !== 'admins.list')

/** The router's procedure paths, to prove a list of procedures is complete. */
export const routerPaths = (): string[] => Object.keys(appRouter._def.procedures).sort()

export const MUTATIONS = [
  'auth.signOut',
  'grants.revoke',
  'tokens.revoke',
  'clients.block',
  'clients.unblock',
  'owners.create',
  'owners.edit',
  'owners.addWalletAddress',
  'owners.removeWalletAddress',
  'owners.disable',
  'owners.enable',
  'owners.delete',
  'owners.issueLink',
  'admins.invite',
  'admins.changeRole',
  'admins.disable',
  'admins.enable',
  'admins.resetPassword',
  'admins.signOutEverywhere',
  'admins.resetTwoStep',
  'account.startTotp',
  'account.confirmTotp',
  'account.disableTotp',
  'account.renewRecoveryCodes',
  'account.changePassword',
  'account.endSession',
  'account.endOtherSessions',
  'apiKeys.create',
  'apiKeys.revoke',
  'webhooks.create',
  'webhooks.update',
  'webhooks.setEnabled',
  'webhooks.rotateSecret',
  'webhooks.sendTest',
  'webhooks.replay',
  'webhooks.delete',
] as const
