/**
 * A unique-constraint failure, whichever layer raised it: better-sqlite3 (`SQLITE_CONSTRAINT_UNIQUE`, or
 * `_PRIMARYKEY`), pg (SQLSTATE 23505) or Prisma (P2002).
 */
export function isUniqueViolation(e: unknown): boolean {
  const code = typeof e === 'object' && e !== null && 'code' in e ? (e as { code: unknown }).code : undefined
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505' || code === 'P2002'
}

/** Codes that say the database cannot be reached or is going away, not that a statement is wrong. */
const UNAVAILABLE_CODES = new Set([
  // the socket (node, pg): nobody listens, the connection was cut, the host is unreachable
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  // PostgreSQL SQLSTATE: admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections
  '57P01',
  '57P02',
  '57P03',
  '53300',
  // Prisma: server unreachable, timed out, connection closed, too many connections
  'P1001',
  'P1002',
  'P1008',
  'P1017',
  'P2037',
  // SQLite: the write lock was not free within the busy timeout
  'SQLITE_BUSY',
])
/** Prisma's driver-adapter error kinds for the same cases. */
const UNAVAILABLE_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections'])
/** pg's own errors for a cut or timed-out connection carry no code, only these messages. */
const UNAVAILABLE_MESSAGE = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/

/**
 * Whether an error means the database is unreachable for now (docs/protocol.md §9), whichever layer raised it
 * (node's socket, pg, Prisma or its driver adapter, better-sqlite3), following `cause` chains: the request may
 * succeed when tried again later, so it is answered 503, never 500.
 */
export function isDatabaseUnavailable(e: unknown): boolean {
  for (let err = e, depth = 0; typeof err === 'object' && err !== null && depth < 5; depth++) {
    const { code, kind, message } = err as { code?: unknown; kind?: unknown; message?: unknown }
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true
    if (typeof kind === 'string' && UNAVAILABLE_KINDS.has(kind)) return true
    if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true
    err = (err as { cause?: unknown }).cause
  }
  return false
}
