import type { createCaller } from '../src/root'
import { appRouter } from '../src/root'

type Caller = ReturnType<typeof createCaller>

/** Every procedure of the router, called with valid input (ids of real rows where it takes ids). */
export function everyProcedure(ids: { grantId: string; managementId: string }): [path: string, call: (c: Caller) => Promise<unknown>][] {
  const now = new Date()
  return [
    ['auth.signIn', (c) => c.auth.signIn({ email: 'ops@example.com', password: 'correct horse battery staple' })],
    ['auth.session', (c) => c.auth.session()],
    ['auth.signOut', (c) => c.auth.signOut()],
    ['grants.list', (c) => c.grants.list({})],
    ['grants.byId', (c) => c.grants.byId({ id: ids.grantId })],
    ['grants.revoke', (c) => c.grants.revoke({ id: ids.grantId })],
    ['tokens.chain', (c) => c.tokens.chain({ grantId: ids.grantId })],
    ['tokens.byManagementId', (c) => c.tokens.byManagementId({ managementId: ids.managementId })],
    ['tokens.revoke', (c) => c.tokens.revoke({ managementId: ids.managementId })],
    ['clients.list', (c) => c.clients.list({})],
    ['stats.overview', (c) => c.stats.overview({ from: new Date(now.getTime() - 86_400_000), to: now })],
    ['audit.list', (c) => c.audit.list({})],
  ]
}

/** The router's procedure paths, to prove a list of procedures is complete. */
export const routerPaths = (): string[] => Object.keys(appRouter._def.procedures).sort()

export const MUTATIONS = ['auth.signOut', 'grants.revoke', 'tokens.revoke'] as const
