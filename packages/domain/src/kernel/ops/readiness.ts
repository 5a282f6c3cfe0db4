import type { SqlRunner } from '../db/sql'

// Readiness (docs/protocol.md §2.19): the server may take traffic when its database answers and every migration
// shipped with this version is applied to it. Nothing here reads a secret.

export type Readiness = { ready: true } | { ready: false; reason: string }

/**
 * Whether the database behind `sql` answers and carries every migration in `shipped` (the migration folder names of
 * this version, for its provider), as Prisma records them in `_prisma_migrations` (applied: finished, not rolled
 * back). A database that does not answer, or has no migration table, is not ready; the reason says which.
 */
export async function checkReadiness(sql: SqlRunner, shipped: readonly string[]): Promise<Readiness> {
  let applied: Set<string>
  try {
    const rows = await sql.all<{ migration_name: string }>(
      'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    )
    applied = new Set(rows.map((r) => r.migration_name))
  } catch (e) {
    const text = e instanceof Error ? e.message : String(e)
    // SQLite "no such table", PostgreSQL 42P01 "relation … does not exist": the database answers but was never migrated.
    if (/no such table|does not exist/i.test(text) && /_prisma_migrations/.test(text)) {
      return { ready: false, reason: 'the database has no migrations applied: run `pnpm db:migrate`' }
    }
    return { ready: false, reason: 'the database does not answer' }
  }
  const missing = shipped.filter((name) => !applied.has(name))
  if (missing.length > 0) {
    const names = missing.slice(0, 5).join(', ') + (missing.length > 5 ? `, and ${missing.length - 5} more` : '')
    return { ready: false, reason: `${missing.length} migration(s) not applied: ${names}; run \`pnpm db:migrate\`` }
  }
  return { ready: true }
}
