/**
 * A unique-constraint failure, whichever layer raised it: better-sqlite3 (`SQLITE_CONSTRAINT_UNIQUE`, or
 * `_PRIMARYKEY`), pg (SQLSTATE 23505) or Prisma (P2002).
 */
export function isUniqueViolation(e: unknown): boolean {
  const code = typeof e === 'object' && e !== null && 'code' in e ? (e as { code: unknown }).code : undefined
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505' || code === 'P2002'
}
