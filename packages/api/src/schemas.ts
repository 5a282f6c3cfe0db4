import { z } from 'zod'
import { ACCESS_TYPES, FINALIZED_REASONS, GRANT_STATES, GRANT_STATUS_NAMES, type GrantStatusName } from '@gnap/domain/protocol'
import { ADMIN_ROLES, DELIVERY_STATES, TOKEN_STATUSES } from '@gnap/domain/operator'

// Output schemas of every procedure. Strict objects listing the fields the console may see: a field that is not
// listed (a token value, a hash, a session or CSRF hash, a password hash, an interact_ref or nonce) makes the
// procedure fail instead of reaching the browser. Each string field here is an id that appears in URLs, a
// timestamp, a URL, a name or plain words.

const id = z.string().min(1).max(64)
const date = z.date()
const url = z.string().max(4096)

/** A keyset page of rows: `nextCursor` is null on the last one. */
const pageOf = <Row extends z.ZodType>(row: Row, cursorLength = 512) =>
  z.strictObject({ items: z.array(row), nextCursor: z.string().max(cursorLength).nullable() })

/** The input of a procedure that takes none: nothing, or an empty object. */
export const NoInputSchema = z.strictObject({}).optional()

const AdminSchema = z.strictObject({ id, email: z.string().max(254), role: z.enum(ADMIN_ROLES) })

export const SessionInfoSchema = z.strictObject({
  admin: AdminSchema,
  expiresAt: date,
  /**
   * For the CSRF header of mutations. Derived one-way from the cookie's value: it proves the page was served to
   * this session and cannot be turned back into the cookie.
   */
  csrfToken: z.string().max(128),
  /** ADMIN_REQUIRE_TOTP and no two-step sign-in yet: the console shows the enrolment only (docs/protocol.md §2.17). */
  mustEnrol: z.boolean(),
})

/**
 * The answer to a right password: a session, or (two-step sign-in on) a challenge to send back with the code. The
 * challenge is short-lived and single-use, and opens nothing without a right code.
 */
export const SignInResultSchema = z.discriminatedUnion('step', [
  SessionInfoSchema.extend({ step: z.literal('signed-in') }),
  z.strictObject({ step: z.literal('code'), challenge: z.string().max(128), expiresAt: date }),
])

export const TwoStepStatusSchema = z.strictObject({
  enabled: z.boolean(),
  enabledAt: date.nullable(),
  recoveryCodesLeft: z.number().int().min(0),
  required: z.boolean(),
})

/** Shown once, while enrolment waits for its first code: the secret as text, and as a QR code of its otpauth URI. */
export const TotpEnrolmentSchema = z.strictObject({
  secret: z.string().max(128),
  uri: z.string().max(1024),
  qrCode: z.string().startsWith('data:image/svg+xml;base64,').max(100_000),
})

/** Shown once: only their hashes are kept. */
export const RecoveryCodesSchema = z.strictObject({ recoveryCodes: z.array(z.string().max(32)) })

export const MySessionsSchema = z.array(
  z.strictObject({ id: z.string().regex(/^[0-9a-f]{64}$/), createdAt: date, expiresAt: date, current: z.boolean() }),
)

export const EndedSessionsSchema = z.strictObject({ endedSessions: z.number().int().min(0) })

export const OkSchema = z.strictObject({ ok: z.literal(true) })

/** A directed identity's key thumbprint (RFC 7638: base64url SHA-256); null for a wallet address client. */
const thumbprint = z.string().max(64).nullable()
const ClientViewSchema = z.strictObject({ walletAddress: url, name: z.string().max(1024).nullable(), thumbprint })

/** The grant's tenant (docs/protocol.md §2.21); null: the implicit tenant of a server without OPERATOR_TENANT_ID. */
const tenantId = z.string().max(64).nullable()

const GrantRowSchema = z.strictObject({
  id,
  continueId: id,
  status: z.enum(GRANT_STATUS_NAMES),
  state: z.enum(GRANT_STATES),
  finalizedReason: z.enum(FINALIZED_REASONS).nullable(),
  client: ClientViewSchema,
  tenantId,
  accessTypes: z.array(z.enum(ACCESS_TYPES)),
  createdAt: date,
  updatedAt: date,
  finalizedAt: date.nullable(),
})

export const GrantPageSchema = pageOf(GrantRowSchema)

const TokenViewSchema = z.strictObject({
  managementId: id,
  status: z.enum(TOKEN_STATUSES),
  issuedAt: date,
  expiresAt: date,
  expiresInSeconds: z.number().int(),
  isExpired: z.boolean(),
  rotatedAt: date.nullable(),
  revokedAt: date.nullable(),
  replacesManagementId: id.nullable(),
  replacedByManagementId: id.nullable(),
})

const AmountSchema = z.strictObject({ value: z.string().max(20), assetCode: z.string().max(64), assetScale: z.number().int() })

const AccessItemSchema = z.strictObject({
  type: z.enum(ACCESS_TYPES),
  actions: z.array(z.string().max(32)),
  identifier: url.optional(),
  limits: z
    .strictObject({
      receiver: url.optional(),
      interval: z.string().max(256).optional(),
      debitAmount: AmountSchema.optional(),
      receiveAmount: AmountSchema.optional(),
    })
    .optional(),
})

const AccessItemViewSchema = z.strictObject({
  item: AccessItemSchema,
  description: z.strictObject({ title: z.string(), lines: z.array(z.string()) }),
})

const InteractionViewSchema = z.strictObject({
  state: z.enum(['pending', 'approved', 'denied']),
  outcome: z.enum(['awaiting decision', 'approved', 'denied', 'expired without a decision']),
  startModes: z.array(z.string().max(32)),
  finishMethod: z.string().max(32).nullable(),
  finishUri: url.nullable(),
  createdAt: date,
  expiresAt: date,
  decidedAt: date.nullable(),
  decidedBy: z.strictObject({ name: z.string(), email: z.string() }).nullable(),
  finishedAt: date.nullable(),
  refUsedAt: date.nullable(),
})

const HistoryEventSchema = z.strictObject({
  at: date,
  kind: z.enum([
    'grant-requested',
    'owner-approved',
    'owner-denied',
    'interaction-finished',
    'grant-issued',
    'grant-rejected',
    'grant-expired',
    'grant-revoked',
    'token-issued',
    'token-rotated',
    'token-expired',
    'token-revoked',
  ]),
  description: z.string(),
  managementId: id.nullable(),
})

export const GrantDetailSchema = z.strictObject({
  id,
  continueId: id,
  status: z.enum(GRANT_STATUS_NAMES),
  state: z.enum(GRANT_STATES),
  finalizedReason: z.enum(FINALIZED_REASONS).nullable(),
  revocable: z.boolean(),
  client: ClientViewSchema,
  tenantId,
  createdAt: date,
  updatedAt: date,
  finalizedAt: date.nullable(),
  interaction: InteractionViewSchema.nullable(),
  accessItems: z.array(AccessItemViewSchema),
  // The wallet addresses of a subject request (docs/protocol.md §2.1)
  subjects: z.array(z.string()),
  tokens: z.array(TokenViewSchema),
  history: z.array(HistoryEventSchema),
})

export const GrantRevokedSchema = z.strictObject({ grantId: id, revokedTokens: z.number().int().min(0) })

export const TokenChainSchema = z.strictObject({ grantId: id, tokens: z.array(TokenViewSchema) })

export const TokenDetailSchema = z.strictObject({
  token: TokenViewSchema,
  grant: z.strictObject({ id, status: z.enum(GRANT_STATUS_NAMES), client: ClientViewSchema }),
})

export const TokenRevokedSchema = z.strictObject({ managementId: id, grantId: id })

export const ClientListSchema = z.strictObject({
  items: z.array(
    z.strictObject({
      walletAddress: url,
      name: z.string().max(1024).nullable(),
      thumbprint,
      grants: z.number().int().min(0),
      lastGrantAt: date.nullable(),
      blocked: z.boolean(),
    }),
  ),
})

const reason = z.string().max(500)
const actorLabel = z.string().max(254)

export const ClientBlockListSchema = z.strictObject({
  items: z.array(z.strictObject({ walletAddress: url, reason, blockedBy: actorLabel, blockedAt: date })),
})

export const ClientDetailSchema = z.strictObject({
  walletAddress: url,
  name: z.string().max(1024).nullable(),
  thumbprint,
  block: z.strictObject({ reason, blockedBy: actorLabel, blockedAt: date }).nullable(),
  grantCounts: z.strictObject(
    Object.fromEntries(GRANT_STATUS_NAMES.map((s) => [s, z.number().int().min(0)])) as Record<GrantStatusName, z.ZodNumber>,
  ),
  grants: z.array(
    z.strictObject({ id, status: z.enum(GRANT_STATUS_NAMES), accessTypes: z.array(z.enum(ACCESS_TYPES)), createdAt: date, updatedAt: date }),
  ),
  tokens: z.array(z.strictObject({ managementId: id, grantId: id, status: z.enum(TOKEN_STATUSES), issuedAt: date, expiresAt: date })),
  lastActivityAt: date.nullable(),
  audit: z.array(z.strictObject({ id, actor: actorLabel, action: z.string().max(64), detail: z.string().max(4096).nullable(), createdAt: date })),
})

export const ClientBlockedSchema = z.strictObject({
  walletAddress: url,
  revokedGrants: z.number().int().min(0),
  revokedTokens: z.number().int().min(0),
})
export const ClientUnblockedSchema = z.strictObject({ walletAddress: url })

const count = z.number().int().min(0)

export const StatsSchema = z.strictObject({
  from: date,
  to: date,
  bucket: z.literal('day'),
  grants: z.strictObject({ total: count, pending: count, approved: count, issued: count, revoked: count, rejected: count, expired: count }),
  tokens: z.strictObject({ issued: count, rotated: count, revoked: count, expired: count }),
  series: z.array(z.strictObject({ start: date, grantsCreated: count, rotations: count })),
})

export const AuditPageSchema = pageOf(
  z.strictObject({
    id,
    actor: z.string().max(254),
    action: z.string().max(64),
    target: z.string().max(256),
    detail: z.string().max(1024).nullable(),
    /** The tenant the entry is about (docs/protocol.md §2.21); null: no one tenant's, or the operator tenant's. */
    tenantId: id.nullable(),
    at: date,
  }),
)

/** Inputs that name one row by id: a bounded string, checked against the database by the use case. */
export const GrantIdInputSchema = z.strictObject({ id: z.string().trim().min(1).max(64) })
export const GrantIdForChainInputSchema = z.strictObject({ grantId: z.string().trim().min(1).max(64) })
export const ManagementIdInputSchema = z.strictObject({ managementId: z.string().trim().min(1).max(64) })

const OwnerStatusSchema = z.enum(['active', 'disabled'])

export const OwnerPageSchema = pageOf(
  z.strictObject({
    id,
    email: z.string().max(254),
    name: z.string().max(120),
    status: OwnerStatusSchema,
    /** The owner's tenant (docs/protocol.md §2.21); null: the implicit tenant (no OPERATOR_TENANT_ID). */
    tenantId: id.nullable(),
    createdAt: date,
    matchedWalletAddress: url.nullable(),
  }),
  2048,
)

export const OwnerDetailSchema = z.strictObject({
  id,
  email: z.string().max(254),
  name: z.string().max(120),
  status: OwnerStatusSchema,
  tenantId: id.nullable(),
  /** Whether the owner has set a password: never the hash. */
  hasPassword: z.boolean(),
  createdAt: date,
  updatedAt: date,
  walletAddresses: z.array(url),
  grants: z.array(
    z.strictObject({
      id,
      status: z.enum(GRANT_STATUS_NAMES),
      client: url,
      clientName: z.string().max(1024).nullable(),
      createdAt: date,
      walletAddress: url,
      identifier: url,
    }),
  ),
  signIn: z.strictObject({
    lastSignInAt: date.nullable(),
    failuresThisWindow: z.number().int().min(0),
    windowStart: date,
    windowSeconds: z.number().int(),
  }),
  audit: z.array(
    z.strictObject({ id, actor: z.string().max(254), action: z.string().max(64), detail: z.string().max(8192).nullable(), createdAt: date }),
  ),
})

export const OwnerIdResultSchema = z.strictObject({ id })
export const OwnerChangeResultSchema = z.strictObject({ id, revokedGrants: z.number().int().min(0) })
export const OwnerLinkSchema = z.strictObject({ url: url, expiresAt: date })
export const OwnerDetailInputSchema = z.strictObject({ ownerId: id })

/** A key as the console lists it: its prefix, never the key or its hash. */
export const ApiKeyViewSchema = z.strictObject({
  id: z.string().regex(/^[0-9a-f]{16}$/),
  name: z.string().max(64),
  role: z.enum(ADMIN_ROLES),
  prefix: z.string().regex(/^gnap_ak_[0-9a-f]{16}$/),
  createdBy: z.string().max(254),
  creatorStatus: z.enum(['active', 'disabled', 'deleted']),
  actsAs: z.enum(ADMIN_ROLES).nullable(),
  createdAt: date,
  expiresAt: date.nullable(),
  lastUsedAt: date.nullable(),
  revokedAt: date.nullable(),
  status: z.enum(['active', 'expired', 'revoked']),
  /** The one tenant the key is bound to; null: every tenant. */
  tenantId,
})
export const ApiKeyListSchema = z.strictObject({ items: z.array(ApiKeyViewSchema) })
/** The console's tenants (docs/protocol.md §2.21): never a secret. */
export const TenantListSchema = z.strictObject({
  items: z.array(
    z.strictObject({
      id: z.string().max(64),
      operator: z.boolean(),
      idpConsentUrl: url.nullable(),
      createdAt: date,
      deletedAt: date.nullable(),
      grants: z.number().int().min(0),
    }),
  ),
})
/** The one answer that carries a secret: the new key, shown once (docs/protocol.md §2.18). */
export const ApiKeyCreatedSchema = z.strictObject({ key: z.string().regex(/^gnap_ak_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/), apiKey: ApiKeyViewSchema })
export const AdminListSchema = z.array(
  z.strictObject({
    id,
    email: z.string().max(254),
    role: z.enum(ADMIN_ROLES),
    status: z.enum(['active', 'invited', 'disabled']),
    twoStep: z.boolean(),
    createdAt: date,
    lastSignInAt: date.nullable(),
    liveApiKeys: z.number().int().min(0),
  }),
)
export const AdminInvitationSchema = z.strictObject({ id, email: z.string().max(254), url, expiresAt: date })
export const AdminRoleResultSchema = z.strictObject({ id, role: z.enum(ADMIN_ROLES) })
export const AdminIdResultSchema = z.strictObject({ id })
export const AdminSessionsEndedSchema = z.strictObject({ id, endedSessions: z.number().int().min(0) })
export const AdminDisabledSchema = AdminSessionsEndedSchema.extend({ revokedKeys: z.number().int().min(0) })
export const AdminResetSchema = z.strictObject({ id, url, expiresAt: date, endedSessions: z.number().int().min(0) })

const eventId = z.string().max(64)
const deliveryCount = z.number().int().min(0)

/** A webhook endpoint as the console shows it: never its signing secret (docs/webhooks.md). */
export const WebhookEndpointSchema = z.strictObject({
  id,
  url: z.string().max(2048),
  description: z.string().max(200),
  eventTypes: z.array(z.string().max(64)),
  /** The one tenant whose events it receives (docs/webhooks.md); null: every tenant's. */
  tenantId: id.nullable(),
  enabled: z.boolean(),
  createdBy: z.string().max(254),
  createdAt: date,
  updatedAt: date,
  /** While a rotated-out secret still signs deliveries: until when. */
  previousSecretUntil: date.nullable(),
  counts: z.strictObject({ pending: deliveryCount, delivered: deliveryCount, failed: deliveryCount }),
})
export const WebhookEndpointListSchema = z.strictObject({ items: z.array(WebhookEndpointSchema) })
/** The two answers that carry a signing secret, shown once: create and rotateSecret. */
export const WebhookEndpointWithSecretSchema = z.strictObject({
  endpoint: WebhookEndpointSchema,
  secret: z.string().regex(/^whsec_[A-Za-z0-9+/]{43}=$/),
})
export const WebhookEndpointDeletedSchema = z.strictObject({ id })
export const WebhookTestSentSchema = z.strictObject({ eventId })

/** One delivery of the log: its event's type and grant, attempts, last answer and next retry; never the payload. */
export const WebhookDeliverySchema = z.strictObject({
  id,
  eventId,
  eventType: z.string().max(64),
  grantId: z.string().max(64).nullable(),
  state: z.enum(DELIVERY_STATES),
  attempts: z.number().int().min(0),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().max(1024).nullable(),
  lastAttemptAt: date.nullable(),
  nextAttemptAt: date.nullable(),
  deliveredAt: date.nullable(),
  createdAt: date,
})
export const WebhookDeliveryPageSchema = pageOf(WebhookDeliverySchema)
