import { createCallerFactory, router } from './trpc'
import { authRouter } from './routers/auth'
import { grantsRouter } from './routers/grants'
import { tokensRouter } from './routers/tokens'
import { clientsRouter } from './routers/clients'
import { statsRouter } from './routers/stats'
import { auditRouter } from './routers/audit'
import { ownersRouter } from './routers/owners'
import { adminsRouter } from './routers/admins'
import { accountRouter } from './routers/account'
import { apiKeysRouter } from './routers/api-keys'
import { webhooksRouter } from './routers/webhooks'
import { tenantsRouter } from './routers/tenants'

export const appRouter = router({
  auth: authRouter,
  grants: grantsRouter,
  tokens: tokensRouter,
  clients: clientsRouter,
  stats: statsRouter,
  audit: auditRouter,
  owners: ownersRouter,
  admins: adminsRouter,
  account: accountRouter,
  apiKeys: apiKeysRouter,
  webhooks: webhooksRouter,
  tenants: tenantsRouter,
})

export type AppRouter = typeof appRouter

/** In-process callers (server components, tests): `createCaller(await createContext(…)).grants.list(…)`. */
export const createCaller = createCallerFactory(appRouter)
