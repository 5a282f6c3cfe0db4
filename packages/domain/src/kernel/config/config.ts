import { z } from 'zod'
import { LOOPBACK_NETWORKS, parseNetwork } from '../net/outbound-address'

export { IGNORED_SETTINGS, PORTS_WITHOUT_LISTENER, SETTING_ALIASES, resolveSettingAliases, unusedRafikiSettings } from './rafiki-settings'

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

// A tenant id (docs/protocol.md §2.21): a UUID in lower case, as the Rafiki backend stores and advertises it.
const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

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
    AUTH_SERVER_URL: absoluteUrl.meta({
      description:
        'Public base URL of the server; the grant endpoint is its root. `pnpm start` fills in `http://localhost:$PORT` outside production.',
      defaultText: 'required (`pnpm start` fills it in outside production)',
      production: 'required',
    }),
    PORT: z.coerce.number().int().min(1).max(65535).default(3000).meta({ description: 'Port the server listens on.' }),
    DATABASE_URL: z.string().min(1).optional().meta({
      description: '`file:<path>` for SQLite, `postgresql://…` for PostgreSQL (docs/postgresql.md).',
      defaultText: '`file:<repository>/data/gnap.db` (set by `pnpm start`)',
    }),
    WAIT_SECONDS: seconds(5).meta({ description: '`continue.wait` in grant answers; continuing earlier answers `too_fast`.' }),
    ACCESS_TOKEN_EXPIRY_SECONDS: seconds(600).meta({ description: '`expires_in` of every issued or rotated access token.' }),
    INTERACTION_EXPIRY_SECONDS: seconds(600).meta({
      description: "Lifetime of an interaction (the owner's consent) and of its browser session cookie.",
    }),
    INCOMING_PAYMENT_INTERACTION: bool(false).meta({ description: "Incoming-payment grants need the owner's consent." }),
    QUOTE_INTERACTION: bool(false).meta({ description: "Quote grants need the owner's consent." }),
    LIST_ALL_ACCESS_INTERACTION: bool(true).meta({ description: "Grants with the `list-all` action need the owner's consent." }),
    IDENTITY_SERVER_URL: absoluteUrl
      .optional()
      .meta({ description: 'An external identity provider owners are sent to; unset: the built-in consent screen.' }),
    IDENTITY_SERVER_SECRET: secretList('IDENTITY_SERVER_SECRET').optional().meta({
      description:
        'The `x-idp-secret` of the identity-provider API; a comma-separated list is accepted (any entry matches), for rotating it; unset: that API is off. Each entry at least 16 characters.',
      production: 'each entry at least 32 characters',
    }),
    INTROSPECTION_SECRET: secretList('INTROSPECTION_SECRET').meta({
      description:
        'Bearer secret of resource servers for introspection; a comma-separated list is accepted (any entry matches), for rotating it. Each entry at least 16 characters. `pnpm start` generates one into `data/secrets.json` outside production.',
      defaultText: 'required (`pnpm start` generates one outside production)',
      production: 'required; each entry at least 32 characters',
    }),
    // The resource servers' introspection listener (docs/protocol.md §2.6): POST / on this port of every worker,
    // bound to INTROSPECTION_HOST. Unset (or empty): no listener.
    INTROSPECTION_PORT: z
      .preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(1).max(65535).optional())
      .meta({
        description:
          'Every worker also serves introspection (`POST /`) on this port (docs/operating.md); must differ from `PORT`. Unset: nothing listens.',
      }),
    INTROSPECTION_HOST: z
      .preprocess((v) => (v === '' ? undefined : v), z.string().min(1).max(255).default('127.0.0.1'))
      .meta({ description: 'Address the introspection port binds to: a private interface, or `0.0.0.0` / `::` for all.' }),
    // The wrong-secret limit counts the listener's callers by their socket address unless proxies in front of the
    // listener append to X-Forwarded-For (TRUSTED_PROXY_HOPS of them, as on the public port): docs/protocol.md §2.6.
    INTROSPECTION_TRUST_PROXY: bool(false).meta({
      description:
        "Take the introspection port's caller IP from `X-Forwarded-For` (`TRUSTED_PROXY_HOPS` from the right); only when every request to that port comes through proxies that append to it. Unset: the connection's address, whatever `TRUST_PROXY` says.",
    }),
    // Tenants (docs/protocol.md §2.21): the operator tenant, created at start, and the service API a Rafiki backend
    // calls to create, update and delete the others.
    OPERATOR_TENANT_ID: z
      .preprocess((v) => (v === '' ? undefined : v), z.string().regex(TENANT_ID, 'must be a UUID in lower case').optional())
      .meta({
        description:
          "The operator tenant's id (a UUID, the Rafiki backend's `OPERATOR_TENANT_ID`): created at start; `POST /` and `POST /<id>` take its grant requests, and `IDENTITY_SERVER_URL` / `IDENTITY_SERVER_SECRET` are its identity provider. Unset: one implicit tenant, as without tenants.",
      }),
    ADMIN_API_SECRET: z
      .preprocess((v) => (v === '' ? undefined : v), z.string().min(MIN_SECRET_LENGTH).max(512).optional())
      .meta({
        description:
          "The operator tenant's API secret (the backend's `ADMIN_API_SECRET`), written again at every start; required with `OPERATOR_TENANT_ID`.",
      }),
    SERVICE_API_PORT: z
      .preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(1).max(65535).optional())
      .meta({
        description:
          'Every worker also serves the service API (`POST /tenant`, `PATCH` and `DELETE /tenant/<id>`, `GET /healthz`) on this port, for a Rafiki backend (docs/protocol.md §2.21); must differ from the other ports. Unset: nothing listens.',
      }),
    SERVICE_API_HOST: z
      .preprocess((v) => (v === '' ? undefined : v), z.string().min(1).max(255).default('127.0.0.1'))
      .meta({ description: 'Address the service API port binds to: a private interface, or `0.0.0.0` / `::` for all.' }),
    SERVICE_API_SECRET: secretList('SERVICE_API_SECRET').optional().meta({
      description:
        "A bearer secret the service API then asks for (`Authorization: Bearer <secret>`); a comma-separated list is accepted while one is replaced. Unset: no credentials, as Rafiki's backend sends none: keep the port on a private network.",
      production: 'each entry at least 32 characters',
    }),
    // Rafiki's auth Admin API (docs/admin-api.md): POST /graphql on a port of its own, each request signed with a
    // tenant's API secret (HMAC, within the TTL, once).
    ADMIN_PORT: z
      .preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(1).max(65535).optional())
      .meta({
        description:
          "Every worker also serves Rafiki's auth Admin API (`POST /graphql`: list, read and revoke grants, signed per tenant; `GET /healthz`) on this port (docs/admin-api.md); must differ from the other ports. Unset: nothing listens.",
      }),
    ADMIN_HOST: z
      .preprocess((v) => (v === '' ? undefined : v), z.string().min(1).max(255).default('127.0.0.1'))
      .meta({ description: 'Address the Admin API port binds to: a private interface, or `0.0.0.0` / `::` for all.' }),
    ADMIN_API_SIGNATURE_VERSION: z
      .preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(1).max(999_999).default(1))
      .meta({ description: 'The signature version the Admin API accepts (`v<N>=` in the `signature` header), as the backend sends it.' }),
    ADMIN_API_SIGNATURE_TTL_SECONDS: z
      .preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(1).max(3600).default(30))
      .meta({
        description:
          "Seconds either side of now within which an Admin API request's signature timestamp is accepted; each signature is accepted once.",
      }),
    // Rafiki's backend introspects without credentials, on a private port (docs/protocol.md §2.6): `none` lets the
    // listener answer so. POST /introspect on the public port keeps its secret whatever this says.
    INTROSPECTION_PORT_AUTH: z.enum(['secret', 'none']).default('secret').meta({
      description:
        "`none`: the introspection port answers without credentials, as Rafiki's backend calls it (keep that port on a private network); `secret`: it requires `INTROSPECTION_SECRET`. `POST /introspect` on the public port always requires the secret.",
    }),
    // token-introspection.yaml `client`: an object for Rafiki's backend from v2.4 on, the wallet address before.
    INTROSPECTION_CLIENT_FORMAT: z.enum(['object', 'string']).default('object').meta({
      description:
        "`client` in introspection answers: `object` (`{walletAddress}` or `{jwk}`, as Rafiki's backend reads it from v2.4 on) or `string` (the client's wallet address, for backends up to v2.3; a directed identity's token then introspects as inactive).",
    }),
    // Prometheus metrics (GET /metrics). Either or both; neither: metrics are off and /metrics answers 404.
    METRICS_SECRET: secretList('METRICS_SECRET').optional().meta({
      description:
        'Bearer secret for `GET /metrics` on the public port (`Authorization: Bearer <secret>`); a comma-separated list is accepted while one is replaced. Each entry at least 16 characters. Unset: `/metrics` on the public port answers 404 (docs/operating.md).',
      production: 'each entry at least 32 characters',
    }),
    METRICS_PORT: z
      .preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(1).max(65535).optional())
      .meta({
        description:
          'A port on 127.0.0.1 where `GET /metrics` is served without a secret, for a Prometheus agent on the same machine (under the launcher its primary process serves it, summed over the workers); must differ from `PORT` and `INTROSPECTION_PORT`. Unset: no such port.',
      }),
    ALLOW_HTTP_WALLET_ADDRESSES: bool(false).meta({ description: 'Accept `http:` wallet addresses off loopback.' }),
    SIGNATURE_WINDOW_SECONDS: seconds(300).meta({ description: 'Oldest accepted `created` of an HTTP message signature.' }),
    SIGNATURE_CLOCK_SKEW_SECONDS: z.coerce
      .number()
      .int()
      .min(0)
      .max(600)
      .default(30)
      .meta({ description: "How far in the future a signature's `created` may be." }),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').meta({ description: 'pino log level.' }),
    // Token rows dead (expired, rotated or revoked) for longer than this are deleted; grants are kept (docs/protocol.md §7).
    ACCESS_TOKEN_DELETION_DAYS: z.coerce
      .number()
      .int()
      .positive()
      .max(3650)
      .default(30)
      .meta({ description: 'Token rows expired, rotated or revoked for longer than this are deleted (grants never are).' }),
    // How long an owner's invitation or password-reset link stays usable (docs/protocol.md §7).
    OWNER_LINK_EXPIRY_DAYS: z.coerce
      .number()
      .int()
      .positive()
      .max(365)
      .default(7)
      .meta({ description: "How long an owner's invitation or password-reset link stays usable." }),
    // Every administrator must sign in with a second step (TOTP); one without it may only enrol (docs/protocol.md §2.17).
    ADMIN_REQUIRE_TOTP: bool(false).meta({
      description: 'Every administrator must turn on two-step sign-in before doing anything else in the console.',
    }),
    // Grant requests (POST /) per minute, fixed window; 0 switches a limit off.
    RATE_LIMIT_GRANTS_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(0)
      .max(1_000_000)
      .default(120)
      .meta({ description: 'Grant requests (`POST /`) per client wallet address per minute; 0 = no limit.' }),
    RATE_LIMIT_GRANTS_PER_MINUTE_PER_IP: z.coerce.number().int().min(0).max(1_000_000).default(600).meta({
      description:
        'Grant requests per caller IP per minute; 0 = no limit. Without `TRUST_PROXY` only the per-client limit applies, except that directed identities (`client.jwk`) share this allowance and each socket address may spend at most a quarter of it.',
    }),
    // Calls per minute per API key (docs/protocol.md §2.18), fixed window; 0 switches the limit off.
    RATE_LIMIT_API_KEY_CALLS_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(0)
      .max(1_000_000)
      .default(600)
      .meta({ description: 'Console API calls per API key per minute, shared by every instance; 0 = no limit.' }),
    // X-Forwarded-For names the caller only behind proxies that append to it: the entry TRUSTED_PROXY_HOPS from the
    // right is the address the outermost of our proxies saw (docs/protocol.md §7).
    TRUST_PROXY: bool(false).meta({
      description: "Take the caller's IP from `X-Forwarded-For`; only when every request comes through proxies that append to it.",
    }),
    TRUSTED_PROXY_HOPS: z.coerce.number().int().min(1).max(16).default(1).meta({
      description: 'With `TRUST_PROXY`: how many proxies in front append to `X-Forwarded-For`; the entry this many from the right is the caller.',
    }),
    // Networks wallet addresses may be fetched from besides public addresses (docs/protocol.md §4.3). Unset: loopback
    // outside production, none in production.
    WALLET_ADDRESS_ALLOWED_NETWORKS: networks.meta({
      description:
        'Comma-separated networks (CIDR) that wallet address and key fetches may reach besides public addresses, e.g. `10.0.0.0/8,fd00::/8`; empty means none (docs/security.md).',
      defaultText: 'loopback outside production',
      production: 'default: none',
    }),
    // Webhooks (docs/webhooks.md): how long delivered and failed deliveries are kept, and where endpoints may be.
    WEBHOOK_RETENTION_DAYS: z.coerce.number().int().positive().max(3650).default(7).meta({
      description: 'Events whose every delivery succeeded (or that no endpoint subscribed to) are deleted this many days after they happened.',
    }),
    WEBHOOK_FAILED_RETENTION_DAYS: z.coerce.number().int().positive().max(3650).default(30).meta({
      description:
        "A delivery that failed (retried for about 24 hours without a 2xx) is kept this many days after its last attempt, for the console's log and a replay; then deleted.",
    }),
    ALLOW_HTTP_WEBHOOKS: bool(false).meta({
      description:
        'Accept `http:` webhook endpoints off loopback (a receiver on a private network without TLS). Loopback endpoints may always use `http:`.',
    }),
    WEBHOOK_ALLOWED_NETWORKS: networks.meta({
      description:
        'Comma-separated networks (CIDR) webhook endpoints may be in besides public addresses, e.g. `10.0.0.0/8`; empty means none. Checked when an endpoint is saved and at every delivery (docs/webhooks.md).',
      defaultText: 'loopback outside production',
      production: 'default: none',
    }),
    // SQLite only: FULL (the default) syncs the write-ahead log at every commit, so a commit survives a power loss or
    // an OS crash; NORMAL syncs it only at checkpoints, faster, but the last commits can be lost (docs/protocol.md §9).
    SQLITE_SYNCHRONOUS: z
      .enum(['full', 'normal', 'FULL', 'NORMAL'])
      .default('full')
      .transform((v) => v.toLowerCase() as 'full' | 'normal')
      .meta({
        description:
          'SQLite only: `full` puts every commit on disk before it is answered; `normal` is faster, but a power loss can undo the last commits (docs/operating.md, Storage).',
      }),
    // Group commit (docs/operating.md, Storage): write transactions that arrive together share one commit and one
    // flush, each in a savepoint of its own.
    SQLITE_GROUP_COMMIT_MAX: z.coerce.number().int().min(1).max(1000).default(64).meta({
      description:
        'SQLite only: the most write transactions that share one commit (group commit, each in a savepoint of its own); `1` commits each alone (docs/operating.md, Storage).',
    }),
    SQLITE_GROUP_COMMIT_WAIT_MS: z.coerce.number().int().min(0).max(50).default(0).meta({
      description:
        'SQLite only: how long a batch of writes waits for more after its first one; `0` closes it at the next turn of the event loop (docs/operating.md, Storage).',
    }),
    // On SIGTERM or SIGINT each process stops being ready at once and finishes the requests it has in flight, for at
    // most this long, then exits (docs/protocol.md §2.19). Under the launcher keep it below SHUTDOWN_TIMEOUT_SECONDS.
    SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(8).meta({
      description:
        "On SIGTERM or SIGINT `/readyz` answers 503 at once; requests in flight may finish for at most this many seconds, then the process exits 0. Keep it below the launcher's `SHUTDOWN_TIMEOUT_SECONDS`.",
    }),
    SHUTDOWN_DELAY_SECONDS: z.coerce.number().int().min(0).max(600).default(0).meta({
      description:
        "On SIGTERM or SIGINT, how long the process keeps serving as before (with `/readyz` at 503) before it waits for the requests in flight: long enough for your load balancer's readiness checks to take it out, so no new request finds the port closed (e.g. period × failure threshold). The launcher's `SHUTDOWN_TIMEOUT_SECONDS` must exceed this plus `SHUTDOWN_GRACE_SECONDS`.",
    }),
    NODE_ENV: z
      .string()
      .optional()
      .meta({ description: '`production` turns on the production rules in this column. `next start` workers always run as production.' }),
  })
  .superRefine((env, ctx) => {
    if (env.INTROSPECTION_PORT !== undefined && env.INTROSPECTION_PORT === env.PORT) {
      ctx.addIssue({ code: 'custom', path: ['INTROSPECTION_PORT'], message: 'must differ from PORT: the listener is a port of its own' })
    }
    if (env.INTROSPECTION_PORT_AUTH === 'none' && env.INTROSPECTION_PORT === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['INTROSPECTION_PORT_AUTH'],
        message: 'applies to the introspection port alone: set INTROSPECTION_PORT (POST /introspect always requires INTROSPECTION_SECRET)',
      })
    }
    if (env.METRICS_PORT !== undefined && (env.METRICS_PORT === env.PORT || env.METRICS_PORT === env.INTROSPECTION_PORT)) {
      ctx.addIssue({
        code: 'custom',
        path: ['METRICS_PORT'],
        message: 'must differ from PORT and INTROSPECTION_PORT: the metrics are a port of their own',
      })
    }
    if (env.SERVICE_API_PORT !== undefined && [env.PORT, env.INTROSPECTION_PORT, env.METRICS_PORT].includes(env.SERVICE_API_PORT)) {
      ctx.addIssue({ code: 'custom', path: ['SERVICE_API_PORT'], message: 'must differ from PORT, INTROSPECTION_PORT and METRICS_PORT' })
    }
    if (env.ADMIN_PORT !== undefined && [env.PORT, env.INTROSPECTION_PORT, env.METRICS_PORT, env.SERVICE_API_PORT].includes(env.ADMIN_PORT)) {
      ctx.addIssue({ code: 'custom', path: ['ADMIN_PORT'], message: 'must differ from PORT, INTROSPECTION_PORT, METRICS_PORT and SERVICE_API_PORT' })
    }
    if (env.OPERATOR_TENANT_ID !== undefined && env.ADMIN_API_SECRET === undefined) {
      ctx.addIssue({ code: 'custom', path: ['ADMIN_API_SECRET'], message: "required with OPERATOR_TENANT_ID: the operator tenant's API secret" })
    }
    if (env.NODE_ENV !== 'production') return
    for (const name of ['INTROSPECTION_SECRET', 'IDENTITY_SERVER_SECRET', 'METRICS_SECRET', 'SERVICE_API_SECRET'] as const) {
      if (env[name]?.some((s) => s.length < MIN_PRODUCTION_SECRET_LENGTH)) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message:
            `each entry of ${name} must be at least ${MIN_PRODUCTION_SECRET_LENGTH} characters: the server runs with production rules ` +
            '(`next start`, and so `pnpm start`, sets NODE_ENV=production even on your own machine), and a shorter shared secret ' +
            'can be guessed. Set a longer one (e.g. `openssl rand -base64 32`)' +
            (name === 'METRICS_SECRET' || name === 'SERVICE_API_SECRET'
              ? ''
              : `, or leave ${name} unset on a local \`pnpm start\` (without NODE_ENV=production): it then uses a long one it generated in data/secrets.json`),
        })
      }
    }
  })

/**
 * The settings that create the first administrator, read by the start command's seed (not by the server): checked
 * further by ensureFirstAdmin (docs/protocol.md §2.14).
 */
export const FirstAdminEnvSchema = z.object({
  ADMIN_EMAIL: z.string().optional().meta({
    description: 'Email of the first administrator, created by `pnpm start` on an empty Admin table; ignored (with a warning) once one exists.',
    defaultText: 'the demo administrator',
    production: 'required on an empty database',
  }),
  ADMIN_PASSWORD: z.string().optional().meta({
    description: 'Password of that first administrator, at least 12 characters; never printed.',
    defaultText: 'the demo password',
    production: 'required on an empty database; not the demo password',
  }),
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
  introspectionListener: { port: number; host: string; trustProxy: boolean } | null
  /** The operator tenant (docs/protocol.md §2.21); null: one implicit tenant. */
  operatorTenant: { id: string; apiSecret: string } | null
  /** Where each worker serves the service API (docs/protocol.md §2.21), and its bearer secrets (null: none asked); null: not served. */
  serviceApi: { port: number; host: string; secrets: readonly string[] | null } | null
  /** Where each worker serves the Admin API (docs/admin-api.md), and the signatures it accepts; null: not served. */
  adminApi: { port: number; host: string; signatureVersion: number; signatureTtlSeconds: number } | null
  /** Whether the introspection listener asks for INTROSPECTION_SECRET (`none`: Rafiki's backend, docs/protocol.md §2.6). */
  introspectionPortAuth: 'secret' | 'none'
  /** `client` in introspection answers: the contract's object, or the wallet address string of backends up to v2.3. */
  introspectionClientFormat: 'object' | 'string'
  /** The accepted bearer secrets of GET /metrics on the public port; null: not served there. */
  metricsSecrets: readonly string[] | null
  /** The loopback port serving GET /metrics without a secret; null: none. */
  metricsPort: number | null
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
  /** Days an event whose deliveries all succeeded is kept (docs/webhooks.md). */
  webhookRetentionDays: number
  /** Days a failed delivery is kept after its last attempt. */
  webhookFailedRetentionDays: number
  /** CIDR networks webhook endpoints may be in besides public addresses (docs/webhooks.md). */
  webhookAllowedNetworks: string[]
  /** Whether `http:` endpoints off loopback are accepted (ALLOW_HTTP_WEBHOOKS); loopback ones always are. */
  webhookAllowHttp: boolean
  /** On SIGTERM/SIGINT: how long requests in flight may take to finish before the process exits (docs/protocol.md §2.19). */
  shutdownGraceSeconds: number
  /** Seconds a stopping process keeps serving, not ready, before it drains (docs/protocol.md §2.19). */
  shutdownDelaySeconds: number
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
    introspectionListener:
      env.INTROSPECTION_PORT === undefined
        ? null
        : { port: env.INTROSPECTION_PORT, host: env.INTROSPECTION_HOST, trustProxy: env.INTROSPECTION_TRUST_PROXY },
    operatorTenant:
      env.OPERATOR_TENANT_ID !== undefined && env.ADMIN_API_SECRET !== undefined
        ? { id: env.OPERATOR_TENANT_ID, apiSecret: env.ADMIN_API_SECRET }
        : null,
    serviceApi:
      env.SERVICE_API_PORT === undefined ? null : { port: env.SERVICE_API_PORT, host: env.SERVICE_API_HOST, secrets: env.SERVICE_API_SECRET ?? null },
    adminApi:
      env.ADMIN_PORT === undefined
        ? null
        : {
            port: env.ADMIN_PORT,
            host: env.ADMIN_HOST,
            signatureVersion: env.ADMIN_API_SIGNATURE_VERSION,
            signatureTtlSeconds: env.ADMIN_API_SIGNATURE_TTL_SECONDS,
          },
    introspectionPortAuth: env.INTROSPECTION_PORT_AUTH,
    introspectionClientFormat: env.INTROSPECTION_CLIENT_FORMAT,
    metricsSecrets: env.METRICS_SECRET ?? null,
    metricsPort: env.METRICS_PORT ?? null,
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
    webhookRetentionDays: env.WEBHOOK_RETENTION_DAYS,
    webhookFailedRetentionDays: env.WEBHOOK_FAILED_RETENTION_DAYS,
    webhookAllowedNetworks: env.WEBHOOK_ALLOWED_NETWORKS ?? (env.NODE_ENV === 'production' ? [] : [...LOOPBACK_NETWORKS]),
    webhookAllowHttp: env.ALLOW_HTTP_WEBHOOKS,
    shutdownGraceSeconds: env.SHUTDOWN_GRACE_SECONDS,
    shutdownDelaySeconds: env.SHUTDOWN_DELAY_SECONDS,
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
