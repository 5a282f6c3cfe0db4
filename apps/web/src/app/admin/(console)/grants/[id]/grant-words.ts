import type { inferRouterOutputs } from '@trpc/server'
import type { AppRouter } from '@gnap/api'

// What the grant page's parts share.

export type GrantDetail = inferRouterOutputs<AppRouter>['grants']['byId']
