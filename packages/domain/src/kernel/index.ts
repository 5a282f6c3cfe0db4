// @gnap/domain/kernel: what both sides stand on: storage (the store and its SQL runner), settings, errors, log,
// metrics, secrets, sessions, the generic rate limiter and the outbound network policy. Only what callers outside the
// package use; kernel/ imports neither protocol/ nor operator/.
export { type GnapConfig, grantEndpoint, serverUrl } from './config/config'
export { isDatabaseUnavailable, isUniqueViolation } from './db/errors'
export type { SqlPressure } from './db/sql'
export { openStore, type Store } from './db/store'
export {
  bodyTooLarge,
  GnapError,
  type GnapErrorCode,
  internalError,
  isGnapError,
  methodNotAllowed,
  OWNER_TENANT_DELETED,
  pathNotFound,
  serviceUnavailable,
  UNAVAILABLE_RETRY_AFTER_SECONDS,
} from './errors'
export { createLogger, loggablePath } from './log'
export {
  type AdminApiOperation,
  type AdminApiOutcome,
  type Metrics,
  noMetrics,
  type OutboundFetchKind,
  type OutboundFetchOutcome,
  type RateLimitName,
  type SignatureCheck,
} from './metrics'
export { createGuardedFetch } from './net/guarded-fetch'
export { checkReadiness, type Readiness } from './ops/readiness'
export { requestIdFor, runWithRequestId } from './ops/request-id'
export { hitRateLimit } from './rate-limit/rate-limit'
export { readCapped } from './read-capped'
export { enableTracing, inRequestSpan, inSpan, sampledTraceId, tracingEnabled } from './tracing'
export { hashSecret, secretsInclude } from './secrets'
export { ADMIN_COOKIE, adminCookieJar, INTERACTION_COOKIE, OWNER_COOKIE, readCookie, setCookie } from './session/cookies'
export { createSession } from './session/create-session'
export { csrfMatches, csrfTokenFor } from './session/csrf'
