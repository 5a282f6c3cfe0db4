// @gnap/domain/operator: running the server (docs/protocol.md §2.12–§2.20): administrators and the console's views,
// owners, API keys, /account, password links, webhook endpoints and delivery, client blocking, audit, retention.
// Only what callers outside the package use.
export {
  accountFormIsGenuine,
  accountSession,
  type AccountSession,
  changeOwnerPassword,
  type ConnectedApp,
  findConnectedApp,
  findUnapprovedClient,
  type HistoryEntry,
  listConnectedApps,
  listUnapprovedClients,
  ownerHistory,
  revokeClientFromAccount,
  revokeFromAccount,
  type UnapprovedClient,
  type UnapprovedClientDetail,
  type UnapprovedClients,
  signOutOfAccount,
} from './account/account'
export { adminFromSession } from './admin/admin-from-session'
export { adminRevokeGrant } from './admin/admin-revoke-grant'
export { adminRevokeToken } from './admin/admin-revoke-token'
export { ADMIN_SESSION_SECONDS, type AdminIdentity } from './admin/admin-session'
export { TOKEN_STATUSES, type TokenStatus } from './admin/admin-views'
export { CONSOLE_ERROR_STATUS, consoleCodeForStatus, type ConsoleErrorCode, isConsoleError } from './admin/console-error'
export { createAdmin } from './admin/create-admin'
export { DEMO_ADMIN } from './admin/demo-admin'
export { findDemoState, removeDemoState } from './admin/demo-state'
export { ensureFirstAdmin, FirstAdminError } from './admin/ensure-first-admin'
export { ClientAddressInputSchema, getClientDetail } from './admin/get-client-detail'
export { getGrantDetail } from './admin/get-grant-detail'
export { getStats, GetStatsInputSchema } from './admin/get-stats'
export { getTokenChain } from './admin/get-token-chain'
export { getTokenDetail } from './admin/get-token-detail'
export { listClientBlocks, listClients, ListClientsInputSchema } from './admin/list-clients'
export { GRANT_PAGE_MAX, listGrants, type ListGrantsInput, ListGrantsInputSchema } from './admin/list-grants'
export {
  AdminIdInputSchema,
  type AdminStatus,
  changeAdminRole,
  ChangeAdminRoleInputSchema,
  disableAdmin,
  DisableAdminInputSchema,
  enableAdmin,
  inviteAdmin,
  InviteAdminInputSchema,
  listAdmins,
  resetAdminPassword,
  resetAdminTwoStep,
  signOutAdminEverywhere,
} from './admin/manage-admins'
export {
  changeAdminPassword,
  ChangeAdminPasswordInputSchema,
  endMyOtherSessions,
  endMySession,
  listMySessions,
  SessionHandleInputSchema,
} from './admin/my-account'
export { actorOfAdmin, ADMIN_ROLES, type AdminRole, type ConsoleActor, roleAllows } from './admin/roles'
export { type AdminSignIn, completeAdminSignIn, signInAdmin } from './admin/sign-in-admin'
export { signOutAdmin } from './admin/sign-out-admin'
export { TOTP_PERIOD_SECONDS, totpCodeAt } from './admin/totp'
export { confirmTotpEnrolment, disableTotp, getTwoStepStatus, renewRecoveryCodes, startTotpEnrolment } from './admin/two-step'
export {
  admitApiKeyCall,
  type ApiKeyCaller,
  ApiKeyIdInputSchema,
  createApiKey,
  CreateApiKeyInputSchema,
  findApiKeyCaller,
  listApiKeys,
  revokeApiKey,
} from './api-key/api-keys'
export { listTenants, type TenantView } from './tenant/list-tenants'
export { auditLogCsv } from './audit/audit-csv'
export { AUDIT_ACTIONS, type AuditAction } from './audit/audit.repo'
export { listAuditLog, ListAuditLogInputSchema } from './audit/list-audit-log'
export { blockClient, BlockClientInputSchema, unblockClient, UnblockClientInputSchema } from './client-block/block-client'
export { createOwner } from './owner/create-owner'
export { canonicaliseStoredWalletAddresses, type StoredAddressRewrite } from './owner/canonicalise-stored'
export { DEMO_OWNER } from './owner/demo-owner'
export { importOwners } from './owner/import-owners'
export { hasTenants } from './tenant-choice'
export {
  addWalletAddress,
  adminCreateOwner,
  adminDeleteOwner,
  adminIssueOwnerLink,
  CreateOwnerInputSchema,
  disableOwner,
  editOwner,
  EditOwnerInputSchema,
  enableOwner,
  IssueOwnerLinkInputSchema,
  OwnerIdInputSchema,
  removeWalletAddress,
  RemoveWalletAddressInputSchema,
  SetOwnerStatusInputSchema,
  WalletAddressInputSchema,
} from './owner/manage-owners'
export { ownerFileFormat, parseOwnerFile } from './owner/owner-import-file'
export { getOwnerDetail, listOwners, type ListOwnersInput, ListOwnersInputSchema } from './owner/owner-views'
export { PASSWORD_LENGTH, PASSWORD_RULES_TEXT } from './owner/password-rules'
export { OWNER_SESSION_SECONDS, signInOwner } from './owner/sign-in-owner'
export { signOutOwner } from './owner/sign-out-owner'
export { issueOwnerLink } from './password-link/password-link'
export type { LinkSubject } from './password-link/password-link.repo'
export { checkPasswordLink, LINK_PROBLEM_TEXT, type LinkProblem, setPasswordWithLink } from './password-link/set-password-with-link'
export { startRetentionJob } from './retention/retention'
export { SIGN_IN_LIMITS } from './sign-in/sign-in-limit'
export { startWebhookWorker } from './webhook/deliver-webhooks'
export {
  createWebhookEndpoint,
  CreateWebhookEndpointInputSchema,
  deleteWebhookEndpoint,
  DELIVERY_STATES,
  getWebhookEndpoint,
  listWebhookDeliveries,
  ListWebhookDeliveriesInputSchema,
  listWebhookEndpoints,
  replayDelivery,
  ReplayWebhookDeliveryInputSchema,
  rotateWebhookSecret,
  RotateWebhookSecretInputSchema,
  sendTestEvent,
  setWebhookEndpointEnabled,
  SetWebhookEndpointEnabledInputSchema,
  updateWebhookEndpoint,
  UpdateWebhookEndpointInputSchema,
  WebhookEndpointIdInputSchema,
} from './webhook/manage-webhooks'
export { newWebhookSecret } from './webhook/webhook-signing'
export { SET_PASSWORD_LIMITS, admitSetPasswordPost } from './sign-in/set-password-limit'
export { runDeliveryPass } from './webhook/deliver-webhooks'
export {
  AdminApiError,
  adminApiActor,
  apiAccessOf,
  apiGrant,
  apiGrants,
  apiRevokeGrant,
  apiSubjectOf,
  type ApiGrant,
  type GrantsArgs,
} from './admin-api/admin-api-grants'
export { adminApiSignatureHeader, authenticateAdminApiRequest, type AdminApiCaller, type AdminApiRefusal } from './admin-api/admin-api-signature'
export { canonicalJson } from './admin-api/canonical-json'
