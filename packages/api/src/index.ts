export { appRouter, createCaller, type AppRouter } from './root'
export { createContext, CSRF_HEADER, type Context, type CreateContextOptions, type SessionCookieJar } from './context'
