import { z } from 'zod'
import { GnapError, badClient, outboundFetchesBusy } from '../../kernel/errors'
import { readCapped } from '../../kernel/read-capped'
import { canonicalWalletAddress } from '../owner/canonical-wallet-address'
import type { GnapConfig } from '../../kernel/config/config'
import type { Logger } from 'pino'
import { RefusedAddressError, createGuardedFetch } from '../../kernel/net/guarded-fetch'
import type { Metrics, OutboundFetchKind, OutboundFetchOutcome } from '../../kernel/metrics'

// Outbound fetches of client wallet addresses and their keys (docs/protocol.md §4.3). The URLs are chosen by clients,
// so every fetch is guarded against SSRF (RFC 9635 §11): https only (loopback or an explicit setting excepted),
// connections only to public addresses or allowed networks (guarded-fetch.ts), no redirects followed, a short
// timeout and a size cap, a bound on fetches at once, and a failed wallet address is not fetched again for a while.

const httpUrl = z.url({ protocol: /^https?$/ })

// wallet-address-server.yaml get-wallet-address: additionalProperties true.
const WalletAddressDocumentSchema = z.looseObject({
  id: httpUrl,
  publicName: z.string().optional(),
  assetCode: z.string().min(1),
  assetScale: z.number().int().min(0).max(255),
  authServer: httpUrl,
  resourceServer: httpUrl,
})

export type WalletAddressDocument = z.infer<typeof WalletAddressDocumentSchema>

/**
 * A published Ed25519 public key (wallet-address-server.yaml json-web-key). A type alias, not an interface, so it
 * is assignable to both the DOM and the node:crypto `JsonWebKey`.
 */
export type Ed25519Jwk = {
  kid: string
  kty: 'OKP'
  crv: 'Ed25519'
  x: string
  alg: 'EdDSA'
  use?: 'sig'
}

export interface WalletAddressResolverOptions {
  /** Replaces the guarded fetch (tests): no address is then checked. */
  fetch?: typeof fetch
  /** ALLOW_HTTP_WALLET_ADDRESSES: plain http to any host. Loopback http always passes the URL check (its address may not). */
  allowHttp: boolean
  /**
   * Networks (CIDR) that may be fetched from besides public addresses: WALLET_ADDRESS_ALLOWED_NETWORKS, which
   * includes loopback outside production. Default: none.
   */
  allowedNetworks?: readonly string[]
  /** Fetches running at once; more wait in a queue of `maxQueuedFetches`, and past it are refused (503). */
  maxConcurrentFetches?: number
  maxQueuedFetches?: number
  /** A wallet address whose fetch failed is answered from this memory, without a fetch, for this long. */
  failureTtlMs?: number
  /** Told when an address is refused, so an operator can see why a client's wallet address cannot be fetched. */
  log?: Pick<Logger, 'warn'>
  ttlMs?: number
  timeoutMs?: number
  maxBytes?: number
  now?: () => number
  /** Wallet addresses remembered per cache; the oldest is dropped beyond this. */
  maxEntries?: number
  /** Told how each fetch ended and how long it took. */
  metrics?: Pick<Metrics, 'outboundFetch'>
}

export interface WalletAddressResolver {
  /**
   * The published Ed25519 key of the wallet address with this `kid`, or null when none.
   * @throws GnapError invalid_client 400 "could not fetch client keys"
   */
  getKey(walletAddress: string, kid: string): Promise<Ed25519Jwk | null>
  /** @throws GnapError invalid_client 400 "could not fetch client wallet address" */
  getWalletAddress(walletAddress: string): Promise<WalletAddressDocument>
}

const KEYS_FAILURE = 'could not fetch client keys'
const DOCUMENT_FAILURE = 'could not fetch client wallet address'
const ID_MISMATCH = 'the client wallet address document names another id'
/** An unknown kid triggers at most one JWKS refetch per wallet address in this interval. */
const UNKNOWN_KID_REFETCH_MS = 5_000

/**
 * Absolute http(s) URL without credentials, query or fragment; https unless the host is loopback or `allowHttp`.
 */
export function isAllowedWalletAddressUrl(url: string, allowHttp: boolean): boolean {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  if (parsed.username !== '' || parsed.password !== '') return false
  // An empty "?" or "#" leaves search/hash empty, so look at the text too.
  if (parsed.hash !== '' || parsed.search !== '' || url.includes('#') || url.includes('?')) return false
  if (parsed.protocol === 'https:') return true
  if (parsed.protocol === 'http:') return allowHttp || isLoopbackHost(parsed.hostname)
  return false
}

/** A WHATWG URL `hostname` naming this machine: `localhost`, 127.0.0.0/8 or [::1]. */
export function isLoopbackHost(hostname: string): boolean {
  // WHATWG URL parsing already normalises IPv4 shorthands (127.1) and brackets IPv6 hosts.
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
}

interface CacheEntry<T> {
  value: T
  fetchedAt: number
}

export function createWalletAddressResolver(opts: WalletAddressResolverOptions): WalletAddressResolver {
  const doFetch = opts.fetch ?? createGuardedFetch(opts.allowedNetworks ?? [])
  const ttlMs = opts.ttlMs ?? 60_000
  const timeoutMs = opts.timeoutMs ?? 5_000
  const maxBytes = opts.maxBytes ?? 64 * 1024
  const now = opts.now ?? Date.now
  const maxEntries = opts.maxEntries ?? 1_000
  const failureTtlMs = opts.failureTtlMs ?? 30_000
  const slots = createSlots(opts.maxConcurrentFetches ?? 16, opts.maxQueuedFetches ?? 64)

  const keySets = createCache<Ed25519Jwk[]>(maxEntries, failureTtlMs, now)
  const documents = createCache<WalletAddressDocument>(maxEntries, failureTtlMs, now)

  /**
   * Fetches `url`'s JSON and reads it with `read` (which throws a GnapError for a body of the wrong shape); the
   * outcome and the time taken go to the metrics.
   */
  async function fetchJson<T>(url: string, failure: string, kind: OutboundFetchKind, read: (body: unknown) => T): Promise<T> {
    const started = performance.now()
    const outcome: { value: OutboundFetchOutcome } = { value: 'busy' }
    try {
      await slots.acquire()
      try {
        outcome.value = 'bad_response'
        const value = read(await fetchJsonNow(url, failure, outcome))
        outcome.value = 'ok'
        return value
      } finally {
        slots.release()
      }
    } finally {
      opts.metrics?.outboundFetch(kind, outcome.value, (performance.now() - started) / 1000)
    }
  }

  async function fetchJsonNow(url: string, failure: string, outcome: { value: OutboundFetchOutcome }): Promise<unknown> {
    let response: Response
    try {
      response = await doFetch(url, {
        method: 'GET',
        headers: { Accept: 'application/json' },
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      })
    } catch (e) {
      outcome.value = 'failed'
      if (e instanceof RefusedAddressError || (e instanceof Error && e.cause instanceof RefusedAddressError)) {
        outcome.value = 'refused_address'
        opts.log?.warn({ url: url.slice(0, 200) }, 'wallet address fetch refused: not a public address (WALLET_ADDRESS_ALLOWED_NETWORKS)')
      }
      throw badClient(failure)
    }
    try {
      // A redirect is a failure: following it could reach hosts the URL check never saw.
      if (response.status !== 200 || response.redirected || response.type === 'opaqueredirect') {
        throw new Error('unexpected response')
      }
      const declared = Number(response.headers.get('content-length') ?? '0')
      if (declared > maxBytes) throw new Error('response too large')
      const bytes = await readCapped(response.body, maxBytes)
      if (bytes === null) throw new Error('response too large')
      return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown
    } catch {
      await response.body?.cancel().catch(() => undefined)
      throw badClient(failure)
    }
  }

  async function loadKeys(walletAddress: URL): Promise<CacheEntry<Ed25519Jwk[]>> {
    const jwksUrl = new URL(walletAddress.href)
    jwksUrl.pathname = jwksUrl.pathname.replace(/\/+$/, '') + '/jwks.json'
    return keySets.load(walletAddress.href, async () => {
      const keys = await fetchJson(jwksUrl.href, KEYS_FAILURE, 'jwks', (body) => {
        const parsed = JwksSchema.safeParse(body)
        if (!parsed.success) throw badClient(KEYS_FAILURE)
        return parsed.data.keys.flatMap(toEd25519Jwk)
      })
      return { value: keys, fetchedAt: now() }
    })
  }

  return {
    async getKey(walletAddress, kid) {
      const url = checkedUrl(walletAddress, opts.allowHttp, KEYS_FAILURE)
      let entry = keySets.get(url.href)
      if (entry === undefined || now() - entry.fetchedAt >= ttlMs) {
        entry = await loadKeys(url)
        return findKey(entry.value, kid)
      }
      const cached = findKey(entry.value, kid)
      if (cached !== null) return cached
      // docs/protocol.md §4.3: an unknown kid may be a freshly published key; refetch, but rate-limited.
      if (now() - entry.fetchedAt < UNKNOWN_KID_REFETCH_MS) return null
      entry = await loadKeys(url)
      return findKey(entry.value, kid)
    },

    async getWalletAddress(walletAddress) {
      const url = checkedUrl(walletAddress, opts.allowHttp, DOCUMENT_FAILURE)
      const entry = documents.get(url.href)
      if (entry !== undefined && now() - entry.fetchedAt < ttlMs) return entry.value
      const loaded = await documents.load(url.href, async () => {
        const document = await fetchJson(url.href, DOCUMENT_FAILURE, 'wallet_address', (body) => {
          const parsed = WalletAddressDocumentSchema.safeParse(body)
          if (!parsed.success) throw badClient(DOCUMENT_FAILURE)
          // docs/protocol.md §4.3: a document is the wallet address's own only when its id is the URL fetched.
          if (!sameUrl(parsed.data.id, url.href)) throw badClient(ID_MISMATCH)
          return parsed.data
        })
        return { value: document, fetchedAt: now() }
      })
      return loaded.value
    },
  }
}

/** The process's resolver, from its settings (ALLOW_HTTP_WALLET_ADDRESSES, WALLET_ADDRESS_ALLOWED_NETWORKS). */
export function walletAddressResolverFor(
  config: Pick<GnapConfig, 'allowHttpWalletAddresses' | 'walletAddressAllowedNetworks'>,
  log?: Pick<Logger, 'warn'>,
  metrics?: Pick<Metrics, 'outboundFetch'>,
): WalletAddressResolver {
  return createWalletAddressResolver({
    allowHttp: config.allowHttpWalletAddresses,
    allowedNetworks: config.walletAddressAllowedNetworks,
    ...(log !== undefined ? { log } : {}),
    ...(metrics !== undefined ? { metrics } : {}),
  })
}

/**
 * Whether two URLs name the same wallet address: equal in the canonical form (docs/protocol.md §6), so a document
 * whose `id` keeps a trailing slash or an encoded letter still names the address the client gave in canonical form.
 */
function sameUrl(a: string, b: string): boolean {
  const canonicalA = canonicalWalletAddress(a)
  return canonicalA !== null && canonicalA === canonicalWalletAddress(b)
}

function checkedUrl(walletAddress: string, allowHttp: boolean, failure: string): URL {
  if (!isAllowedWalletAddressUrl(walletAddress, allowHttp)) throw badClient(failure)
  return new URL(walletAddress)
}

// wallet-address-server.yaml json-web-key-set; members are checked one by one so one odd key does not hide the rest.
const JwksSchema = z.object({ keys: z.array(z.unknown()) })

const Ed25519JwkSchema = z.object({
  kid: z.string().min(1),
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: z.string().regex(/^[A-Za-z0-9_-]+$/),
  alg: z.literal('EdDSA').optional(),
  use: z.literal('sig').optional(),
})

function toEd25519Jwk(candidate: unknown): Ed25519Jwk[] {
  const parsed = Ed25519JwkSchema.safeParse(candidate)
  if (!parsed.success) return []
  const { kid, kty, crv, x, alg, use } = parsed.data
  // Only public members are kept: whatever else a JWKS carries never reaches the verifier.
  return [{ kid, kty, crv, x, alg: alg ?? 'EdDSA', ...(use !== undefined ? { use } : {}) }]
}

function findKey(keys: Ed25519Jwk[], kid: string): Ed25519Jwk | null {
  return keys.find((k) => k.kid === kid) ?? null
}

/**
 * A small TTL-less store (callers judge freshness) with shared in-flight loads and a size bound. A load that failed
 * with the client's fault (invalid_client) is remembered for `failureTtlMs`: loads of that key fail the same way
 * without running the loader, so one client URL cannot make the server fetch it on every request.
 */
function createCache<T>(maxEntries: number, failureTtlMs: number, now: () => number) {
  const entries = new Map<string, CacheEntry<T>>()
  const failures = new Map<string, { error: GnapError; at: number }>()
  const inFlight = new Map<string, Promise<CacheEntry<T>>>()
  const remember = <V>(map: Map<string, V>, key: string, value: V) => {
    map.delete(key)
    map.set(key, value)
    if (map.size > maxEntries) {
      const oldest = map.keys().next()
      if (oldest.done !== true) map.delete(oldest.value)
    }
  }
  return {
    get(key: string): CacheEntry<T> | undefined {
      return entries.get(key)
    },
    load(key: string, loader: () => Promise<CacheEntry<T>>): Promise<CacheEntry<T>> {
      const pending = inFlight.get(key)
      if (pending !== undefined) return pending
      const failed = failures.get(key)
      if (failed !== undefined && now() - failed.at < failureTtlMs) return Promise.reject(failed.error)
      const promise = loader()
        .then((entry) => {
          failures.delete(key)
          remember(entries, key, entry)
          return entry
        })
        .catch((e: unknown) => {
          if (e instanceof GnapError && e.code === 'invalid_client') remember(failures, key, { error: e, at: now() })
          throw e
        })
        .finally(() => inFlight.delete(key))
      inFlight.set(key, promise)
      return promise
    },
  }
}

/**
 * At most `max` fetches at once in this process; up to `maxQueued` more wait for a turn, in order, and any beyond
 * that are refused at once (503 request_denied), so a burst of grant requests naming slow hosts cannot pile up
 * sockets and memory (docs/protocol.md §4.3).
 */
function createSlots(max: number, maxQueued: number) {
  let running = 0
  const waiting: (() => void)[] = []
  return {
    acquire(): Promise<void> {
      if (running < max) {
        running++
        return Promise.resolve()
      }
      if (waiting.length >= maxQueued) return Promise.reject(outboundFetchesBusy())
      return new Promise<void>((resolve) => waiting.push(resolve))
    },
    release(): void {
      const next = waiting.shift()
      // The slot passes straight to the next waiter, so `running` stays the same.
      if (next !== undefined) next()
      else running--
    },
  }
}
