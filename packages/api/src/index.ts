export { appRouter, createCaller, type AppRouter } from './root'
export {
  createContext,
  createFetchContext,
  adminCookie,
  readCookie,
  ADMIN_COOKIE,
  CSRF_HEADER,
  type Context,
  type CreateContextOptions,
  type SessionCookieJar,
} from './context'
export { trpcCodeForStatus } from './trpc'
