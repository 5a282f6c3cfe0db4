// How the API takes batched calls (one HTTP request naming several procedures, `?batch=1`). A subpath of its own,
// without imports, so the browser's client can follow the same rules.

/** The most procedures one batched request may name; the console's client splits larger batches. */
export const MAX_BATCH_SIZE = 10

/**
 * Procedures that are never batched: `auth.*`. One request carrying forty sign-ins would otherwise be forty password
 * guesses for the price of one request, all in flight together.
 */
export const isUnbatchable = (path: string): boolean => path === 'auth' || path.startsWith('auth.')

/**
 * The batching options of tRPC's fetch adapter for `req`, served at `endpoint`: batches are refused (400
 * BAD_REQUEST, in tRPC's error shape, before any procedure runs) when they name an `auth.*` procedure, and capped
 * at MAX_BATCH_SIZE otherwise.
 */
export function batchOptions(req: Request, endpoint: string): { allowBatching: boolean; maxBatchSize: number } {
  const pathname = new URL(req.url).pathname
  const at = pathname.indexOf(endpoint)
  const paths = (at === -1 ? pathname : pathname.slice(at + endpoint.length)).replace(/^\/+|\/+$/g, '').split(',')
  return { allowBatching: !paths.some((p) => isUnbatchable(decoded(p).trim())), maxBatchSize: MAX_BATCH_SIZE }
}

function decoded(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}
