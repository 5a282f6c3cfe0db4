import { z } from 'zod'
import { ACCESS_TYPES, ADMIN_ROLES, FINALIZED_REASONS, GRANT_STATES, GRANT_STATUS_NAMES, TOKEN_STATUSES } from '@gnap/domain'

// Output schemas of every procedure. Strict objects listing the fields the console may see: a field that is not
// listed (a token value, a hash, a session or CSRF hash, a password hash, an interact_ref or nonce) makes the
// procedure fail instead of reaching the browser. Each string field here is an id that appears in URLs, a
// timestamp, a URL, a name or plain words.

const id = z.string().min(1).max(64)
const date = z.date()
const url = z.string().max(4096)

const AdminSchema = z.strictObject({ id, email: z.string().max(254), role: z.enum(ADMIN_ROLES) })

export const SessionInfoSchema = z.strictObject({
  admin: AdminSchema,
  expiresAt: date,
  /**
   * For the CSRF header of mutations. Derived one-way from the cookie's value: it proves the page was served to
   * this session and cannot be turned back into the cookie.
   */
  csrfToken: z.string().max(128),
})

export const OkSchema = z.strictObject({ ok: z.literal(true) })

const ClientViewSchema = z.strictObject({ walletAddress: url, name: z.string().max(1024).nullable() })

const GrantRowSchema = z.strictObject({
  id,
  continueId: id,
  status: z.enum(GRANT_STATUS_NAMES),
  state: z.enum(GRANT_STATES),
  finalizedReason: z.enum(FINALIZED_REASONS).nullable(),
  client: ClientViewSchema,
  accessTypes: z.array(z.enum(ACCESS_TYPES)),
  createdAt: date,
  updatedAt: date,
  finalizedAt: date.nullable(),
})

export const GrantPageSchema = z.strictObject({ items: z.array(GrantRowSchema), nextCursor: z.string().max(512).nullable() })

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
  createdAt: date,
  updatedAt: date,
  finalizedAt: date.nullable(),
  interaction: InteractionViewSchema.nullable(),
  accessItems: z.array(AccessItemViewSchema),
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
    z.strictObject({ walletAddress: url, name: z.string().max(1024).nullable(), grants: z.number().int().min(0), lastGrantAt: date.nullable() }),
  ),
})

const count = z.number().int().min(0)

export const StatsSchema = z.strictObject({
  from: date,
  to: date,
  bucket: z.literal('day'),
  grants: z.strictObject({ total: count, pending: count, approved: count, issued: count, revoked: count, rejected: count }),
  tokens: z.strictObject({ issued: count, rotated: count, revoked: count, expired: count }),
  series: z.array(z.strictObject({ start: date, grantsCreated: count, rotations: count })),
})

export const AuditPageSchema = z.strictObject({
  items: z.array(
    z.strictObject({
      id,
      actor: z.string().max(254),
      action: z.string().max(64),
      target: z.string().max(256),
      detail: z.string().max(1024).nullable(),
      at: date,
    }),
  ),
  nextCursor: z.string().max(512).nullable(),
})

/** Inputs that name one row by id: a bounded string, checked against the database by the use case. */
export const GrantIdInputSchema = z.strictObject({ id: z.string().trim().min(1).max(64) })
export const GrantIdForChainInputSchema = z.strictObject({ grantId: z.string().trim().min(1).max(64) })
export const ManagementIdInputSchema = z.strictObject({ managementId: z.string().trim().min(1).max(64) })

const OwnerStatusSchema = z.enum(['active', 'disabled'])

export const OwnerPageSchema = z.strictObject({
  items: z.array(
    z.strictObject({
      id,
      email: z.string().max(254),
      name: z.string().max(120),
      status: OwnerStatusSchema,
      createdAt: date,
      matchedWalletAddress: url.nullable(),
    }),
  ),
  nextCursor: z.string().max(2048).nullable(),
})

export const OwnerDetailSchema = z.strictObject({
  id,
  email: z.string().max(254),
  name: z.string().max(120),
  status: OwnerStatusSchema,
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

export const AdminListSchema = z.array(
  z.strictObject({
    id,
    email: z.string().max(254),
    role: z.enum(ADMIN_ROLES),
    status: z.enum(['active', 'invited', 'disabled']),
    createdAt: date,
    lastSignInAt: date.nullable(),
  }),
)
export const AdminInvitationSchema = z.strictObject({ id, email: z.string().max(254), url, expiresAt: date })
export const AdminRoleResultSchema = z.strictObject({ id, role: z.enum(ADMIN_ROLES) })
export const AdminIdResultSchema = z.strictObject({ id })
export const AdminSessionsEndedSchema = z.strictObject({ id, endedSessions: z.number().int().min(0) })
export const AdminResetSchema = z.strictObject({ id, url, expiresAt: date, endedSessions: z.number().int().min(0) })
