import type { inferRouterOutputs } from '@trpc/server'
import type { AppRouter } from '@gnap/api'

// What the administrator page's parts share.

export type Admin = inferRouterOutputs<AppRouter>['admins']['list'][number]

/** What every action that ends sessions reports back. */
export interface AdminActionProps {
  admin: Admin
  onDone(message: string): void
}

export const sessionsWord = (n: number) => `${n} session${n === 1 ? '' : 's'}`
export const keysWord = (n: number) => `${n} API key${n === 1 ? '' : 's'}`
