import { z } from 'zod'
import { LOOPBACK_NETWORKS, parseNetwork } from '../client/outbound-address'

// Settings of the server, with the names operators of the reference server know (docs/protocol.md §7).
// The web app's env.ts is the only reader of process.env; it parses with this schema.

const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .optional()
    .transform((v) => (v === undefined ? fallback : v === 'true' || v === '1' || v === 'yes'))

const seconds = (fallback: number) => z.coerce.number().int().positive().max(31_536_000).default(fallback)

const absoluteUrl = z.url({ protocol: /^https?$/ })

/** Shortest secret entry accepted outside production, and in production (docs/protocol.md §7). */
export const MIN_SECRET_LENGTH = 16
export const MIN_PRODUCTION_SECRET_LENGTH = 32

/**
 * A shared secret, or several separated by commas: any entry is accepted, so a new secret can be added, handed to
 * the other side, and the old one removed later (docs/protocol.md §7). Entries are trimmed; none may be empty.
 */
const secretList = (name: string) =>
  z
    .string()
    .transform((v) => v.split(',').map((s) => s.trim()))
    .pipe(z.array(z.string().min(MIN_SECRET_LENGTH, `each entry of ${name} must be at least ${MIN_SECRET_LENGTH} characters`)).min(1))

// A comma-separated list of networks in CIDR notation (or single addresses); empty means none.
const networks = z
  .string()
  .optional()
  .transform((text, ctx) => {
    if (text === undefined) return undefined
    const items = text
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '')
    for (const item of items) {
      try {
        parseNetwork(item)
      } catch {
        ctx.addIssue({ code: 'custom', message: `not a network in CIDR notation: ${item.slice(0, 60)}` })
        return z.NEVER
      }
    }
    return items
  })

export const EnvSchema = z
  .object({
    AUTH_SERVER_URL: absoluteUrl,
    PORT: z.coerce.number().int().min(1).max(65535).default(3000),
    DATABASE_URL: z.string().min(1).optional(),
    WAIT_SECONDS: seconds(5),
    ACCESS_TOKEN_EXPIRY_SECONDS: seconds(600),
    INTERACTION_EXPIRY_SECONDS: seconds(600),
    INCOMING_PAYMENT_INTERACTION: bool(false),
    QUOTE_INTERACTION: bool(false),
    LIST_ALL_ACCESS_INTERACTION: bool(true),
    IDENTITY_SERVER_URL: absoluteUrl.optional(),
    IDENTITY_SERVER_SECRET: secretList('IDENTITY_SERVER_SECRET').optional(),
    INTROSPECTION_SECRET: secretList('INTROSPECTION_SECRET'),
    // The resource servers' introspection listener (docs/protocol.md §2.6): POST / on this port of every worker,
    // bound to INTROSPECTION_HOST. Unset (or empty): no listener.
    INTROSPECTION_PORT: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(1).max(65535).optional()),
    INTROSPECTION_HOST: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(1).max(255).default('127.0.0.1')),
    ALLOW_HTTP_WALLET_ADDRESSES: bool(false),
    SIGNATURE_WINDOW_SECONDS: seconds(300),
    SIGNATURE_CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).max(600).default(30),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    // Token rows dead (expired, rotated or revoked) for longer than this are deleted; grants are kept (docs/protocol.md §7).
    ACCESS_TOKEN_DELETION_DAYS: z.coerce.number().int().positive().max(3650).default(30),
    // How long an owner's invitation or password-reset link stays usable (docs/protocol.md §7).
    OWNER_LINK_EXPIRY_DAYS: z.coerce.number().int().positive().max(365).default(7),
    // Every administrator must sign in with a second step (TOTP); one without it may only enrol (docs/protocol.md §2.17).
    ADMIN_REQUIRE_TOTP: bool(false),
    // Grant requests (POST /) per minute, fixed window; 0 switches a limit off.
    RATE_LIMIT_GRANTS_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(120),
    RATE_LIMIT_GRANTS_PER_MINUTE_PER_IP: z.coerce.number().int().min(0).max(1_000_000).default(600),
    // Calls per minute per API key (docs/protocol.md §2.18), fixed window; 0 switches the limit off.
    RATE_LIMIT_API_KEY_CALLS_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(600),
    // X-Forwarded-For names the caller only behind proxies that append to it: the entry TRUSTED_PROXY_HOPS from the
    // right is the address the outermost of our proxies saw (docs/protocol.md §7).
    TRUST_PROXY: bool(false),
    TRUSTED_PROXY_HOPS: z.coerce.number().int().min(1).max(16).default(1),
    // Networks wallet addresses may be fetched from besides public addresses (docs/protocol.md §4.3). Unset: loopback
    // outside production, none in production.
    WALLET_ADDRESS_ALLOWED_NETWORKS: networks,
    // SQLite only: FULL (the default) syncs the write-ahead log at every commit, so a commit survives a power loss or
    // an OS crash; NORMAL syncs it only at checkpoints, faster, but the last commits can be lost (docs/protocol.md §9).
    SQLITE_SYNCHRONOUS: z
      .enum(['full', 'normal', 'FULL', 'NORMAL'])
      .default('full')
      .transform((v) => v.toLowerCase() as 'full' | 'normal'),
    // On SIGTERM or SIGINT each process stops being ready at once and finishes the requests it has in flight, for at
    // most this long, then exits (docs/protocol.md §2.19). Under the launcher keep it below SHUTDOWN_TIMEOUT_SECONDS.
    SHUTDOWN_GRACE_SECONDS: z.coerce
      .number()
      .int()
      .min(0)
      .max(3600)
      .default(8)
      .describe(
        "On SIGTERM or SIGINT: /readyz answers 503 at once, requests in flight may finish for at most this many seconds, then the process exits. Keep it below the launcher's SHUTDOWN_TIMEOUT_SECONDS.",
      ),
    NODE_ENV: z.string().optional(),
  })
  .superRefine((env, ctx) => {
    if (env.INTROSPECTION_PORT !== undefined && env.INTROSPECTION_PORT === env.PORT) {
      ctx.addIssue({ code: 'custom', path: ['INTROSPECTION_PORT'], message: 'must differ from PORT: the listener is a port of its own' })
    }
    if (env.NODE_ENV !== 'production') return
    for (const name of ['INTROSPECTION_SECRET', 'IDENTITY_SERVER_SECRET'] as const) {
      if (env[name]?.some((s) => s.length < MIN_PRODUCTION_SECRET_LENGTH)) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `with NODE_ENV=production each entry of ${name} must be at least ${MIN_PRODUCTION_SECRET_LENGTH} characters`,
        })
      }
    }
  })

export type Env = z.infer<typeof EnvSchema>

export interface GnapConfig {
  /** Public base URL; the grant endpoint is its root, written with exactly one trailing slash. */
  authServerUrl: string
  waitSeconds: number
  accessTokenExpirySeconds: number
  interactionExpirySeconds: number
  incomingPaymentInteraction: boolean
  quoteInteraction: boolean
  listAllInteraction: boolean
  identityServerUrl: string | null
  /** The accepted `x-idp-secret` values (several while one is being replaced); null: the identity-provider API is off. */
  identityServerSecrets: readonly string[] | null
  /** The accepted introspection bearer secrets (several while one is being replaced). */
  introspectionSecrets: readonly string[]
  /** Where each worker also serves introspection as POST / (docs/protocol.md §2.6); null: not at all. */
  introspectionListener: { port: number; host: string } | null
  allowHttpWalletAddresses: boolean
  /** CIDR networks outbound wallet address fetches may reach besides public addresses (docs/protocol.md §4.3). */
  walletAddressAllowedNetworks: string[]
  signatureWindowSeconds: number
  signatureClockSkewSeconds: number
  accessTokenDeletionDays: number
  /** Days an invitation or password-reset link stays usable. */
  ownerLinkExpiryDays: number
  /** Administrators must enrol two-step sign-in before they may do anything else (docs/protocol.md §2.17). */
  requireAdminTotp: boolean
  /** Grant requests per minute per client wallet address; 0 = no limit. */
  grantRequestsPerMinutePerClient: number
  /** Grant requests per minute per caller IP (one shared counter without trustProxy); 0 = no limit. */
  grantRequestsPerMinutePerIp: number
  /** Console procedure calls per minute per API key; 0 = no limit. */
  apiKeyCallsPerMinute: number
  trustProxy: boolean
  /** With trustProxy: the X-Forwarded-For entry this many from the right is the caller (1 = the last). */
  trustedProxyHops: number
  /** On SIGTERM/SIGINT: how long requests in flight may take to finish before the process exits (docs/protocol.md §2.19). */
  shutdownGraceSeconds: number
}

export function configFromEnv(env: Env): GnapConfig {
  return {
    authServerUrl: grantEndpoint(env.AUTH_SERVER_URL),
    waitSeconds: env.WAIT_SECONDS,
    accessTokenExpirySeconds: env.ACCESS_TOKEN_EXPIRY_SECONDS,
    interactionExpirySeconds: env.INTERACTION_EXPIRY_SECONDS,
    incomingPaymentInteraction: env.INCOMING_PAYMENT_INTERACTION,
    quoteInteraction: env.QUOTE_INTERACTION,
    listAllInteraction: env.LIST_ALL_ACCESS_INTERACTION,
    identityServerUrl: env.IDENTITY_SERVER_URL ?? null,
    identityServerSecrets: env.IDENTITY_SERVER_SECRET ?? null,
    introspectionSecrets: env.INTROSPECTION_SECRET,
    introspectionListener: env.INTROSPECTION_PORT === undefined ? null : { port: env.INTROSPECTION_PORT, host: env.INTROSPECTION_HOST },
    allowHttpWalletAddresses: env.ALLOW_HTTP_WALLET_ADDRESSES,
    walletAddressAllowedNetworks: env.WALLET_ADDRESS_ALLOWED_NETWORKS ?? (env.NODE_ENV === 'production' ? [] : [...LOOPBACK_NETWORKS]),
    signatureWindowSeconds: env.SIGNATURE_WINDOW_SECONDS,
    signatureClockSkewSeconds: env.SIGNATURE_CLOCK_SKEW_SECONDS,
    accessTokenDeletionDays: env.ACCESS_TOKEN_DELETION_DAYS,
    ownerLinkExpiryDays: env.OWNER_LINK_EXPIRY_DAYS,
    requireAdminTotp: env.ADMIN_REQUIRE_TOTP,
    grantRequestsPerMinutePerClient: env.RATE_LIMIT_GRANTS_PER_MINUTE,
    grantRequestsPerMinutePerIp: env.RATE_LIMIT_GRANTS_PER_MINUTE_PER_IP,
    apiKeyCallsPerMinute: env.RATE_LIMIT_API_KEY_CALLS_PER_MINUTE,
    trustProxy: env.TRUST_PROXY,
    trustedProxyHops: env.TRUSTED_PROXY_HOPS,
    shutdownGraceSeconds: env.SHUTDOWN_GRACE_SECONDS,
  }
}

/** The grant endpoint URI: the base URL with exactly one trailing slash (docs/protocol.md §5, line 4 of the hash). */
export function grantEndpoint(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '') + '/'
}

/** Builds a URL under the server's base: `url(config, 'continue', id)` → `https://as.example/continue/<id>`. */
export function serverUrl(config: Pick<GnapConfig, 'authServerUrl'>, ...segments: string[]): string {
  return config.authServerUrl + segments.map(encodeURIComponent).join('/')
}
