export * from './errors'
export * from './config/config'
export type { Deps } from './deps'
export { openDb, type Db } from './db/client'
export { createLogger } from './log'
export { hashSecret, secretsEqual } from './secrets'
export { readCapped } from './read-capped'
export { createWalletAddressResolver, type WalletAddressResolver } from './client/wallet-address'
export { readSignatureInputs, type SignedRequest } from './client/http-signature'
export { createRequestAuth, gnapToken, type RequestAuth } from './client/request-auth'
export type { AccessItem } from './access/access.wire'
export { parseGrantRequest, parseContinueRequest, type GrantRequest, type GrantResponseJson } from './grant/grant.wire'
export { requestGrant } from './grant/request-grant'
export { continueGrant } from './grant/continue-grant'
export { cancelGrant } from './grant/cancel-grant'
export { revokeGrantById } from './grant/revoke-grant'
export { rotateAccessToken } from './access-token/rotate-access-token'
export { revokeAccessToken } from './access-token/revoke-access-token'
export { introspectToken, authenticateResourceServer, type IntrospectResponse } from './access-token/introspect-token'
export { startInteraction } from './interaction/start-interaction'
export { finishInteraction } from './interaction/finish-interaction'
export { getGrantForConsent, recordConsent } from './interaction/identity-provider'
export { finishHash } from './interaction/finish-hash'
export type { FrontChannelResult } from './interaction/front-channel'
export { getConsentScreen, decideConsent, type ConsentScreen } from './consent/consent'
export { createOwner, signInOwner, ownsAccess, OWNER_SESSION_SECONDS } from './owner/owner'
export { createSession, findSession, endSession, csrfTokenFor, csrfMatches, type SessionKind } from './session/session'
export { describeAccessItem, formatAmount, describeInterval } from './access/describe-access'
export { DEMO_OWNER } from './owner/demo-owner'
export { hitRateLimit, MAX_RATE_LIMIT_WINDOW_SECONDS, type RateLimitHit } from './rate-limit/rate-limit'
export { admitGrantRequestFromIp } from './rate-limit/grant-rate-limit'
export { isId } from './secrets'
export { deleteExpiredRecords, startRetentionJob, type RetentionResult } from './retention/retention'
export { createAdmin, AdminInputSchema } from './admin/create-admin'
export { ensureFirstAdmin, FirstAdminError, type FirstAdminResult } from './admin/ensure-first-admin'
export { DEMO_ADMIN } from './admin/demo-admin'
export { ADMIN_SESSION_SECONDS, ADMIN_SIGN_IN_LIMITS, type AdminIdentity } from './admin/admin-session'
export { signInAdmin, type AdminSignIn } from './admin/sign-in-admin'
export { signOutAdmin } from './admin/sign-out-admin'
export { adminFromSession, type AdminSession } from './admin/admin-from-session'
export { listGrants, ListGrantsInputSchema, GRANT_PAGE_MAX, type ListGrantsInput, type GrantPage } from './admin/list-grants'
export { getGrantDetail, type GrantDetail, type AccessItemView } from './admin/get-grant-detail'
export { getTokenChain } from './admin/get-token-chain'
export { getTokenDetail, type TokenDetail } from './admin/get-token-detail'
export { getStats, GetStatsInputSchema, STATS_MAX_DAYS, type GetStatsInput, type Stats } from './admin/get-stats'
export { listClients, ListClientsInputSchema, type ListClientsInput, type ClientSummary } from './admin/list-clients'
export { adminRevokeGrant } from './admin/admin-revoke-grant'
export { adminRevokeToken } from './admin/admin-revoke-token'
export { listAuditLog, ListAuditLogInputSchema, type ListAuditLogInput } from './admin/list-audit-log'
export {
  GRANT_STATES,
  FINALIZED_REASONS,
  type GrantRow,
  type GrantStatusName,
  type TokenView,
  type TokenStatus,
  type ClientView,
  type InteractionView,
  type HistoryEvent,
  type HistoryEventKind,
  type AuditEntry,
} from './admin/admin-views'
export type { AuditAction } from './admin/admin.repo'
export { ACCESS_TYPES } from './access/access.wire'
