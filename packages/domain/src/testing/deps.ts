import type { Deps } from '../protocol/deps'
import type { PrismaClient } from '../kernel/db/store'
import type { Provider, Store } from '../kernel/db/store'
import type { Sql } from '../kernel/db/sql'
import type { GnapConfig } from '../kernel/config/config'
import { unresolvableClientKey, type GnapError, type GnapErrorCode } from '../kernel/errors'
import type { RequestAuth } from '../protocol/client/request-auth'
import type { WalletAddressDocument, WalletAddressResolver } from '../protocol/client/wallet-address'
import type { AccessItem, IncomingAccess, OutgoingAccess, QuoteAccess } from '../protocol/access/access.wire'
import type { GrantRequest } from '../protocol/grant/grant.wire'
import { createLogger } from '../kernel/log'
import { noMetrics, type Metrics } from '../kernel/metrics'
import { introspectToken } from '../protocol/access-token/introspect-token'
import { parseIntrospectRequest } from '../protocol/access-token/access-token.wire'
import { createTestDb } from './test-db'

// Deps for use-case tests: a real database of its own (SQLite, or PostgreSQL under TEST_DATABASE_URL), a fake clock, a silent logger, and stubs for what
// another layer does (HTTP signatures, wallet address fetches).

/** The client instance's wallet address in tests. */
export const TEST_CLIENT = 'https://wallet.example/test-app'
/** The resource owner's wallet address: the identifier of outgoing-payment items. */
export const TEST_OWNER = 'https://wallet.example/alice'
/** The identity provider's `x-idp-secret` in use-case tests. */
export const TEST_IDP_SECRET = 'idp-secret-123456'
export const TEST_FINISH_URI = 'https://client.example/finish'
export const TEST_CLIENT_NONCE = 'client-nonce-0001'

export function testConfig(overrides: Partial<GnapConfig> = {}): GnapConfig {
  return {
    authServerUrl: 'https://auth.example/',
    waitSeconds: 5,
    accessTokenExpirySeconds: 600,
    interactionExpirySeconds: 600,
    incomingPaymentInteraction: false,
    quoteInteraction: false,
    listAllInteraction: true,
    identityServerUrl: 'https://idp.example/consent',
    identityServerSecrets: [TEST_IDP_SECRET],
    introspectionSecrets: ['introspection-secret-123456'],
    introspectionListener: null,
    operatorTenant: null,
    serviceApi: null,
    adminApi: null,
    introspectionPortAuth: 'secret',
    introspectionClientFormat: 'object',
    metricsSecrets: null,
    metricsPort: null,
    allowHttpWalletAddresses: false,
    walletAddressAllowedNetworks: [],
    signatureWindowSeconds: 300,
    signatureClockSkewSeconds: 30,
    accessTokenDeletionDays: 30,
    ownerLinkExpiryDays: 7,
    requireAdminTotp: false,
    grantRequestsPerMinutePerClient: 120,
    grantRequestsPerMinutePerIp: 600,
    apiKeyCallsPerMinute: 600,
    trustProxy: false,
    trustedProxyHops: 1,
    shutdownGraceSeconds: 8,
    shutdownDelaySeconds: 0,
    webhookRetentionDays: 7,
    webhookFailedRetentionDays: 30,
    webhookAllowedNetworks: [],
    webhookAllowHttp: false,
    ...overrides,
  }
}

export interface FakeClock {
  /** The current instant; `deps.clock()` returns a copy of it. */
  now: Date
  advance(seconds: number): void
}

export function fakeClock(start = new Date('2025-01-15T12:00:00.000Z')): FakeClock {
  const clock: FakeClock = {
    now: new Date(start.getTime()),
    advance(seconds) {
      clock.now = new Date(clock.now.getTime() + seconds * 1000)
    },
  }
  return clock
}

export interface StubWalletAddresses extends WalletAddressResolver {
  /** Wallet address URLs whose document was asked for, in order. */
  fetched: string[]
}

/**
 * Wallet addresses without a network: every URL resolves to a document named "Test App" unless `documents`
 * gives another document (fields merged over the default) or an error to throw. Keys are never asked for
 * because use-case tests stub the signature check.
 */
export function stubWalletAddresses(documents: Record<string, Partial<WalletAddressDocument> | Error> = {}): StubWalletAddresses {
  const fetched: string[] = []
  return {
    fetched,
    getKey() {
      return Promise.resolve(null)
    },
    getWalletAddress(url) {
      fetched.push(url)
      const doc = documents[url]
      if (doc instanceof Error) return Promise.reject(doc)
      return Promise.resolve({
        id: url,
        publicName: 'Test App',
        assetCode: 'USD',
        assetScale: 2,
        authServer: 'https://auth.example',
        resourceServer: 'https://rs.example',
        ...doc,
      })
    },
  }
}

export interface TestDeps {
  deps: Deps
  /** The full Prisma client, for arranging and asserting rows; use cases never get it. */
  db: PrismaClient
  /** The same store's SQL runner (`deps.sql`). */
  sql: Sql
  provider: Provider
  clock: FakeClock
  walletAddresses: WalletAddressResolver
  cleanup: () => Promise<void>
}

export async function buildTestDeps(
  overrides: { config?: Partial<GnapConfig>; walletAddresses?: WalletAddressResolver; now?: Date; metrics?: Metrics } = {},
): Promise<TestDeps> {
  const { store, cleanup } = await createTestDb()
  const clock = fakeClock(overrides.now)
  const walletAddresses = overrides.walletAddresses ?? stubWalletAddresses()
  const deps: Deps = {
    sql: store.sql,
    reads: store.reads,
    config: testConfig(overrides.config),
    clock: () => new Date(clock.now.getTime()),
    log: createLogger('silent'),
    walletAddresses,
    metrics: overrides.metrics ?? noMetrics,
  }
  return { deps, db: store.prisma, sql: store.sql, provider: store.provider, clock, walletAddresses, cleanup }
}

export interface StubAuth extends RequestAuth {
  /** Clients (their ids: wallet address or thumbprint URI) the use case asked to verify the signature against, in order. */
  verified: string[]
}

/**
 * A request presenting `Authorization: GNAP <token>` (or none) whose signature verifies, or fails with
 * `failSignature`: an error, or `'unresolvable-key'` for a client none of whose keys can be found.
 */
export function authAs(token: string | null, opts: { failSignature?: GnapError | 'unresolvable-key' } = {}): StubAuth {
  const verified: string[] = []
  return {
    token,
    verified,
    verifySignature(client, operation) {
      verified.push(client.id)
      const failure = opts.failSignature === 'unresolvable-key' ? unresolvableClientKey(operation) : opts.failSignature
      return failure ? Promise.reject(failure) : Promise.resolve()
    },
  }
}

// Access item builders (docs/protocol.md §6). Under the default settings incoming-payment and quote skip
// interaction and outgoing-payment needs it.

export function outgoingAccess(overrides: Partial<OutgoingAccess> = {}): OutgoingAccess {
  return {
    type: 'outgoing-payment',
    actions: ['create', 'read'],
    identifier: TEST_OWNER,
    limits: { debitAmount: { value: '1000', assetCode: 'USD', assetScale: 2 }, interval: 'R12/2025-01-01T00:00:00Z/P1M' },
    ...overrides,
  }
}

export function incomingAccess(overrides: Partial<IncomingAccess> = {}): IncomingAccess {
  return { type: 'incoming-payment', actions: ['create', 'read', 'list'], ...overrides }
}

export function quoteAccess(overrides: Partial<QuoteAccess> = {}): QuoteAccess {
  return { type: 'quote', actions: ['create', 'read'], ...overrides }
}

/** A grant request as `parseGrantRequest` returns it; interactive with a redirect finish unless told otherwise. */
export function grantRequest(
  opts: { access?: AccessItem[]; client?: string | GrantRequest['client']; interact?: GrantRequest['interact'] | 'poll' } = {},
): GrantRequest {
  const interact =
    opts.interact === 'poll'
      ? { start: ['redirect'] }
      : opts.interact !== undefined
        ? opts.interact
        : { start: ['redirect'], finish: { method: 'redirect' as const, uri: TEST_FINISH_URI, nonce: TEST_CLIENT_NONCE } }
  const client = typeof opts.client === 'object' ? opts.client : { walletAddress: opts.client ?? TEST_CLIENT }
  return { access: opts.access ?? [outgoingAccess()], client, interact }
}

/**
 * Every row of every table as text, for asserting that a secret (token or session value) is stored nowhere:
 * only its hash may be.
 */
export async function databaseText(t: Pick<TestDeps, 'db' | 'provider'>): Promise<string> {
  const { db } = t
  // PostgreSQL: catalog names are cast to text (the adapter cannot read the `name` type).
  const tables = await db.$queryRawUnsafe<{ name: string }[]>(
    t.provider === 'postgresql'
      ? `SELECT table_name::text AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
      : `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`,
  )
  const dumps: string[] = []
  for (const { name } of tables) {
    const rows = await db.$queryRawUnsafe<unknown[]>(`SELECT * FROM "${name.replaceAll('"', '""')}"`)
    dumps.push(`${name}: ${JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`)
  }
  return dumps.join('\n')
}

/** Rows per table of the protocol's models: "bad input writes nothing" is all zeros after a refused request. */
export async function rowCounts(db: PrismaClient): Promise<{ grants: number; accessItems: number; tokens: number; interactions: number }> {
  const [grants, accessItems, tokens, interactions] = await Promise.all([
    db.grant.count(),
    db.accessItem.count(),
    db.accessToken.count(),
    db.interaction.count(),
  ])
  return { grants, accessItems, tokens, interactions }
}

/** What a client sees of a refused request, for `expect(...).rejects.toMatchObject(gnapError('too_fast', 400))`. */
export const gnapError = (code: GnapErrorCode, status: number) => ({ name: 'GnapError', code, status })

/**
 * Makes every later insert (or update) of `table` fail inside the database, to show that a use case whose
 * transaction fails half-way leaves nothing behind. Returns a function that removes the failure again.
 */
export async function failWrites(
  t: Pick<TestDeps, 'db' | 'provider'>,
  table: 'Grant' | 'AccessItem' | 'AccessToken' | 'Interaction' | 'GrantSubject' | 'AuditLog' | 'WebhookEvent' | 'WebhookDelivery',
  operation: 'INSERT' | 'UPDATE' = 'INSERT',
): Promise<() => Promise<void>> {
  const { db } = t
  const trigger = `fail_${operation.toLowerCase()}_${table}`
  if (t.provider === 'postgresql') {
    await db.$executeRawUnsafe(
      `CREATE OR REPLACE FUNCTION gnap_injected_failure() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$`,
    )
    await db.$executeRawUnsafe(`CREATE TRIGGER "${trigger}" BEFORE ${operation} ON "${table}" FOR EACH ROW EXECUTE FUNCTION gnap_injected_failure()`)
    return async () => {
      await db.$executeRawUnsafe(`DROP TRIGGER "${trigger}" ON "${table}"`)
    }
  }
  await db.$executeRawUnsafe(`CREATE TRIGGER "${trigger}" BEFORE ${operation} ON "${table}" BEGIN SELECT RAISE(ABORT, 'injected failure'); END`)
  return async () => {
    await db.$executeRawUnsafe(`DROP TRIGGER "${trigger}"`)
  }
}

/** POST /introspect as its route runs it: the body parsed at the edge (access-token.wire.ts), then the use case. */
export const introspect = async (deps: Deps, body: unknown) => introspectToken(deps, parseIntrospectRequest(body))
