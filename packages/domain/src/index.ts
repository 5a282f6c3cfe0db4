export * from './errors'
export * from './config/config'
export type { Deps } from './deps'
export * from './metrics/metrics'
export { openStore, isPostgresUrl, type Store, type Provider } from './db/store'
export type { Sql, SqlRunner, SqlPressure } from './db/sql'
export type { ReadModels } from './db/read-models'
export { isDatabaseUnavailable, isUniqueViolation } from './db/errors'
export { createLogger, loggablePath } from './log'
export { currentRequestId, requestIdFor, runWithRequestId } from './ops/request-id'
export { checkReadiness, type Readiness } from './ops/readiness'
export { hashSecret, secretsEqual, secretsInclude } from './secrets'
export { readCapped } from './read-capped'
export { createWalletAddressResolver, walletAddressResolverFor, type WalletAddressResolver } from './client/wallet-address'
export { readSignatureInputs, type SignedRequest } from './client/http-signature'
export { createRequestAuth, gnapToken, type RequestAuth } from './client/request-auth'
export type { AccessItem } from './access/access.wire'
export { parseGrantRequest, parseContinueRequest, type GrantRequest, type GrantResponseJson } from './grant/grant.wire'
export { requestGrant } from './grant/request-grant'
export { continueGrant } from './grant/continue-grant'
export { cancelGrant } from './grant/cancel-grant'
export { revokeGrant } from './grant/revoke-grant'
export { rotateAccessToken } from './access-token/rotate-access-token'
export { revokeAccessToken } from './access-token/revoke-access-token'
export { introspectToken, introspectForResourceServer, authenticateResourceServer, type IntrospectionCaller } from './access-token/introspect-token'
export { parseIntrospectRequest, parseRotateRequest, type IntrospectRequest, type IntrospectResponse } from './access-token/access-token.wire'
export { startInteraction } from './interaction/start-interaction'
export { finishInteraction } from './interaction/finish-interaction'
export { getGrantForConsent } from './interaction/get-grant-for-consent'
export { recordConsent } from './interaction/record-consent'
export type { FrontChannelResult } from './interaction/front-channel'
export { getConsentScreen } from './consent/get-consent-screen'
export { decideConsent } from './consent/decide-consent'
export type { ConsentClient } from './consent/consent-checks'
export { accountDisabledPage, INTERACTION_STEPS, OWNER_PAGES, type InteractionStep } from './interaction/interaction-steps'
export { createOwner } from './owner/create-owner'
export {
  adminCreateOwner,
  editOwner,
  addWalletAddress,
  removeWalletAddress,
  disableOwner,
  enableOwner,
  adminDeleteOwner,
  adminIssueOwnerLink,
  IssueOwnerLinkInputSchema,
  OWNER_LINK_TTL_SECONDS,
  CreateOwnerInputSchema,
  EditOwnerInputSchema,
  WalletAddressInputSchema,
  RemoveWalletAddressInputSchema,
  SetOwnerStatusInputSchema,
  OwnerIdInputSchema,
} from './owner/manage-owners'
export { listOwners, getOwnerDetail, ListOwnersInputSchema, OWNER_PAGE_MAX, type OwnerDetail, type OwnerListItem } from './owner/owner-views'
export { issueOwnerLink, issuePasswordLink, SET_PASSWORD_PATH, SET_PASSWORD_PATHS } from './password-link/password-link'
export {
  setPasswordWithLink,
  checkPasswordLink,
  LINK_PROBLEM_TEXT,
  type LinkProblem,
  type SetPasswordResult,
} from './password-link/set-password-with-link'
export type { LinkSubject } from './password-link/password-link.repo'
export { passwordProblem, PASSWORD_RULES_TEXT, PASSWORD_LENGTH } from './owner/password-rules'
export { importOwners, type ImportReport, type ImportRowResult } from './owner/import-owners'
export { parseOwnerFile, ownerFileFormat, type OwnerFileRow } from './owner/owner-import-file'
export { signInOwner, OWNER_SESSION_SECONDS } from './owner/sign-in-owner'
export { signOutOwner } from './owner/sign-out-owner'
export { createSession } from './session/create-session'
export { csrfTokenFor, csrfMatches } from './session/csrf'
export { describeAccessItem, formatAmount, describeInterval } from './access/describe-access'
export { DEMO_OWNER } from './owner/demo-owner'
export { hitRateLimit, MAX_RATE_LIMIT_WINDOW_SECONDS, type RateLimitHit } from './rate-limit/rate-limit'
export { admitGrantRequestFromIp } from './rate-limit/grant-rate-limit'
export { isId } from './secrets'
export { startRetentionJob } from './retention/retention'
export { createAdmin } from './admin/create-admin'
export { ensureFirstAdmin, FirstAdminError } from './admin/ensure-first-admin'
export { DEMO_ADMIN } from './admin/demo-admin'
export { findDemoState, removeDemoState, type DemoStateItem } from './admin/demo-state'
export { ADMIN_SESSION_SECONDS, type AdminIdentity } from './admin/admin-session'
export {
  listAdmins,
  inviteAdmin,
  changeAdminRole,
  disableAdmin,
  enableAdmin,
  resetAdminPassword,
  signOutAdminEverywhere,
  resetAdminTwoStep,
  ADMIN_LINK_TTL_SECONDS,
  InviteAdminInputSchema,
  ChangeAdminRoleInputSchema,
  AdminIdInputSchema,
  type AdminListItem,
  type AdminStatus,
} from './admin/manage-admins'
export { ADMIN_ROLES, roleAllows, actorOfAdmin, type AdminRole, type ConsoleActor } from './admin/roles'
export { SIGN_IN_LIMITS } from './rate-limit/sign-in-limit'
export { admitSetPasswordPost, SET_PASSWORD_LIMITS } from './rate-limit/set-password-limit'
export { limitSecretFailures, SECRET_FAILURE_LIMITS } from './rate-limit/secret-failure-limit'
export { signInAdmin, completeAdminSignIn, SIGN_IN_CHALLENGE_SECONDS, type AdminSignIn, type AdminSignInChallenge } from './admin/sign-in-admin'
export {
  getTwoStepStatus,
  startTotpEnrolment,
  confirmTotpEnrolment,
  disableTotp,
  renewRecoveryCodes,
  TOTP_ENROLMENT_SECONDS,
  type TwoStepStatus,
} from './admin/two-step'
export { totpCodeAt, RECOVERY_CODE_COUNT, TOTP_PERIOD_SECONDS } from './admin/totp'
export {
  changeAdminPassword,
  listMySessions,
  endMySession,
  endMyOtherSessions,
  ChangeAdminPasswordInputSchema,
  SessionHandleInputSchema,
  type MySession,
} from './admin/my-account'
export { signOutAdmin } from './admin/sign-out-admin'
export { adminFromSession } from './admin/admin-from-session'
export { listGrants, ListGrantsInputSchema, GRANT_PAGE_MAX, type ListGrantsInput } from './admin/list-grants'
export { getGrantDetail } from './admin/get-grant-detail'
export { getTokenChain } from './admin/get-token-chain'
export { getTokenDetail } from './admin/get-token-detail'
export { getStats, GetStatsInputSchema } from './admin/get-stats'
export { listClients, listClientBlocks, ListClientsInputSchema, CLIENT_BLOCKS_SHOWN } from './admin/list-clients'
export { getClientDetail, ClientAddressInputSchema, type ClientDetail } from './admin/get-client-detail'
export { blockClient, unblockClient, BlockClientInputSchema, UnblockClientInputSchema } from './client/block-client'
export { adminRevokeGrant } from './admin/admin-revoke-grant'
export { adminRevokeToken } from './admin/admin-revoke-token'
export {
  listAuditLog,
  ListAuditLogInputSchema,
  AuditLogFiltersSchema,
  AUDIT_PAGE_MAX,
  type AuditLogFilters,
  type AuditPage,
  type ListAuditLogInput,
} from './admin/list-audit-log'
export { AUDIT_ACTIONS, type AuditAction } from './admin/audit.repo'
export { auditLogCsv, AUDIT_EXPORT_MAX_ROWS, csvSafeCell } from './admin/audit-csv'
export { isConsoleError, type ConsoleErrorCode } from './admin/console-error'
export { GRANT_STATES, FINALIZED_REASONS, GRANT_STATUS_NAMES, type GrantStatusName } from './grant/grant-state'
export { TOKEN_STATUSES, type TokenStatus } from './admin/admin-views'
export { ACCESS_TYPES } from './access/access.wire'
export { INTERACTION_COOKIE, OWNER_COOKIE, ADMIN_COOKIE, readCookie, setCookie, adminCookieJar } from './session/cookies'
export {
  listConnectedApps,
  findConnectedApp,
  revokeFromAccount,
  ownerHistory,
  changeOwnerPassword,
  grantEnd,
  accountSession,
  accountFormIsGenuine,
  signOutOfAccount,
  type AccountSession,
  type ConnectedApp,
  type HistoryEntry,
  type PasswordChange,
} from './account/account'
export { revokeGrantAs, auditActor, type GrantRevoker } from './admin/admin-revoke-grant'
export {
  createApiKey,
  listApiKeys,
  revokeApiKey,
  findApiKeyCaller,
  admitApiKeyCall,
  apiKeyLabel,
  CreateApiKeyInputSchema,
  ApiKeyIdInputSchema,
  API_KEY_LAST_USE_PRECISION_SECONDS,
  type ApiKeyView,
  type ApiKeyStatus,
  type ApiKeyCaller,
} from './api-key/api-keys'
export {
  WEBHOOK_EVENT_TYPES,
  TEST_EVENT_TYPE,
  WebhookEventTypeSchema,
  EVENT_DATA_SCHEMAS,
  eventBodySchema,
  type WebhookEventType,
  type AnyEventType,
  type EventActor,
} from './webhook/webhook-events'
export { startWebhookWorker, runDeliveryPass, LEASE_MS, POLL_MS, type WebhookWorker, type DeliveryOptions } from './webhook/deliver-webhooks'
export { ATTEMPT_TIMEOUT_MS, RETRY_WINDOW_MS, retryDelayMs, afterFailedAttempt } from './webhook/delivery-schedule'
export { signWebhook, newWebhookSecret } from './webhook/webhook-signing'
export { undeliveredSummary } from './webhook/outbox.repo'
export { createGuardedFetch, RefusedAddressError } from './client/guarded-fetch'
export {
  createWebhookEndpoint,
  updateWebhookEndpoint,
  setWebhookEndpointEnabled,
  rotateWebhookSecret,
  deleteWebhookEndpoint,
  sendTestEvent,
  listWebhookEndpoints,
  getWebhookEndpoint,
  listWebhookDeliveries,
  replayDelivery,
  checkWebhookUrl,
  resolveHost,
  CreateWebhookEndpointInputSchema,
  UpdateWebhookEndpointInputSchema,
  SetWebhookEndpointEnabledInputSchema,
  RotateWebhookSecretInputSchema,
  WebhookEndpointIdInputSchema,
  ListWebhookDeliveriesInputSchema,
  ReplayWebhookDeliveryInputSchema,
  DELIVERY_STATES,
  MAX_WEBHOOK_ENDPOINTS,
  MAX_WEBHOOK_URL_LENGTH,
  MAX_WEBHOOK_DESCRIPTION_LENGTH,
  MAX_SECRET_OVERLAP_HOURS,
  DEFAULT_SECRET_OVERLAP_HOURS,
  DELIVERY_PAGE_MAX,
  type HostResolver,
  type WebhookEndpointView,
  type WebhookDeliveryView,
  type WebhookDeliveryPage,
} from './webhook/manage-webhooks'
export type { DeliveryState } from './webhook/webhook-endpoint.repo'
