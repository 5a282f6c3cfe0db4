export { appRouter, createCaller, type AppRouter } from './root'
export { createContext, CSRF_HEADER, type Context, type CreateContextOptions, type SessionCookieJar } from './context'
export { batchOptions, MAX_BATCH_SIZE } from './batching'
export { handleRestRequest, openApiDocument, restRefusal, REST_OPERATIONS, type RestOperation, type RestRequestOptions } from './rest'
