// Rafiki's names for two settings `pnpm start` reads itself (docs/configuration.md): its Helm chart writes AUTH_PORT
// for the port and AUTH_DATABASE_URL for the database, which `pnpm start` migrates before the workers start. The
// server's table (packages/domain/src/kernel/config/rafiki-settings.ts) holds the same pairs, and the workers check
// them again; apps/web/test/config-docs.test.ts keeps the two tables alike.

/** Our name → Rafiki's. */
export const LAUNCHER_ALIASES = { PORT: 'AUTH_PORT', DATABASE_URL: 'AUTH_DATABASE_URL' } as const

/**
 * Puts each Rafiki name's value under ours in `env`, in place; an empty value counts as unset. Returns one message
 * per pair set to two different values (naming both, showing neither: a database URL holds a password).
 */
export function applyLauncherAliases(env: Record<string, string | undefined>): string[] {
  const conflicts: string[] = []
  for (const [ours, theirs] of Object.entries(LAUNCHER_ALIASES)) {
    const alias = env[theirs]?.trim() || undefined
    const own = env[ours]?.trim() || undefined
    if (alias === undefined || own === alias) continue
    if (own === undefined) env[ours] = alias
    else conflicts.push(`${ours} and ${theirs} (Rafiki's name for ${ours}) are set to different values: set one of them, or both to the same value`)
  }
  return conflicts
}
