import { AsyncLocalStorage } from 'node:async_hooks'
import { randomUUID } from 'node:crypto'

// The id of the request being served (docs/protocol.md §2.19): set once at the edge for the whole of a request's
// asynchronous work, read by the logger so that every line written while serving it, the domain's included,
// carries it. It is no secret and never goes into an error body.

interface RequestScope {
  readonly requestId: string
}

// One store per process, even when a bundler loads this module more than once.
const KEY = Symbol.for('gnap.requestScope')
const scopes: AsyncLocalStorage<RequestScope> =
  ((globalThis as Record<symbol, unknown>)[KEY] as AsyncLocalStorage<RequestScope> | undefined) ??
  ((globalThis as Record<symbol, unknown>)[KEY] = new AsyncLocalStorage<RequestScope>())

/** Runs `fn` (and everything it starts) as the work of the request `requestId`. */
export function runWithRequestId<T>(requestId: string, fn: () => T): T {
  return scopes.run({ requestId }, fn)
}

/** The id of the request whose work is running, if any. */
export function currentRequestId(): string | undefined {
  return scopes.getStore()?.requestId
}

/** What an `X-Request-Id` from a trusted proxy may be: 1–128 visible characters of a conservative set. */
const REQUEST_ID = /^[A-Za-z0-9._:@+=/-]{1,128}$/

/**
 * The id of a request: the `X-Request-Id` a trusted proxy sent (docs/protocol.md §7, TRUST_PROXY) when it has an
 * acceptable shape, else a fresh random one. A caller not behind a trusted proxy cannot choose the id, so it cannot
 * make its lines look like another request's.
 */
export function requestIdFor(header: string | null | undefined, trustProxy: boolean): string {
  const sent = header?.trim()
  return trustProxy && sent && REQUEST_ID.test(sent) ? sent : randomUUID()
}
