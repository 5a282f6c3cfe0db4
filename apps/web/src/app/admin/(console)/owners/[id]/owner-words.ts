import type { inferRouterOutputs } from '@trpc/server'
import type { AppRouter } from '@gnap/api'

// What the owner page's parts share.

export type OwnerDetail = inferRouterOutputs<AppRouter>['owners']['byId']

export const grantsWord = (n: number) => `${n} grant${n === 1 ? '' : 's'}`
