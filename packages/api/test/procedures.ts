import type { createCaller } from '../src/root'
import { appRouter } from '../src/root'

type Caller = ReturnType<typeof createCaller>

/** Every procedure of the router, called with valid input (ids of real rows where it takes ids). */
export function everyProcedure(ids: {
  grantId: string
  managementId: string
  ownerId: string
  apiKeyId: string
}): [path: string, call: (c: Caller) => Promise<unknown>][] {
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
  ]
}

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
  'account.startTotp',
  'account.confirmTotp',
  'account.disableTotp',
  'account.renewRecoveryCodes',
  'account.changePassword',
  'account.endSession',
  'account.endOtherSessions',
  'apiKeys.create',
  'apiKeys.revoke',
] as const
