// The setting names of Rafiki's auth service, as its Helm chart writes them (docs/rafiki.md, docs/protocol.md §7), so
// an operator can point the same environment at this server. Three kinds: another name for one of our settings (an
// alias), a port of Rafiki's for which this server has no listener, and a setting that means nothing here. Our own
// names that Rafiki shares (WAIT_SECONDS, the expiry and interaction-policy names, TRUST_PROXY, …) need nothing.
// Pure: no zod, no I/O; the web app's env.ts applies it before the schema parses.

/** Our settings that Rafiki names otherwise: our name → Rafiki's. */
export const SETTING_ALIASES = {
  PORT: 'AUTH_PORT',
  DATABASE_URL: 'AUTH_DATABASE_URL',
} as const satisfies Record<string, string>

/** Rafiki's ports this server opens no listener for, with where their routes are here. */
export const PORTS_WITHOUT_LISTENER: Readonly<Record<string, string>> = {
  INTERACTION_PORT: 'the interaction and identity-provider routes are served on `PORT`',
}

/** Rafiki's settings with no meaning here: accepted and reported, never read (their values are never shown). */
export const IGNORED_SETTINGS: readonly string[] = [
  'REDIS_URL',
  'REDIS_TLS_CA_FILE_PATH',
  'REDIS_TLS_KEY_FILE_PATH',
  'REDIS_TLS_CERT_FILE_PATH',
  'COOKIE_KEY',
  'INTERACTION_COOKIE_SAME_SITE',
  'DATABASE_CLEANUP_WORKERS',
  'ENABLE_MANUAL_MIGRATIONS',
  'ENV_FILE',
]

type Source = Readonly<Record<string, string | undefined>>

/** A value as Rafiki reads it: an empty one counts as unset. */
const valueOf = (source: Source, name: string): string | undefined => {
  const v = source[name]?.trim()
  return v === undefined || v === '' ? undefined : v
}

/**
 * The environment with each alias's value under our name: a copy, never `source` itself. Both names set to different
 * values is refused, naming both and neither value (a database URL holds a password).
 * @returns the environment, and one message per conflict (empty when none)
 */
export function resolveSettingAliases(source: Source): { env: Record<string, string | undefined>; conflicts: string[] } {
  const env: Record<string, string | undefined> = { ...source }
  const conflicts: string[] = []
  for (const [ours, theirs] of Object.entries(SETTING_ALIASES)) {
    const alias = valueOf(source, theirs)
    if (alias === undefined) continue
    const own = valueOf(source, ours)
    if (own === undefined) env[ours] = alias
    else if (own !== alias) {
      conflicts.push(`${ours} and ${theirs} (Rafiki's name for ${ours}) are set to different values: set one of them, or both to the same value`)
    }
  }
  return { env, conflicts }
}

/**
 * The Rafiki settings in `source` that do nothing here, for one line at start: ignored names, and ports without a
 * listener (`INTERACTION_PORT (…)`). A name the server's schema reads (`known`) is never reported: once a listener
 * exists for a port, its setting leaves this list by itself.
 */
export function unusedRafikiSettings(source: Source, known: ReadonlySet<string>): string[] {
  const ports = Object.entries(PORTS_WITHOUT_LISTENER)
    .filter(([name]) => !known.has(name) && valueOf(source, name) !== undefined)
    .map(([name, why]) => `${name} (${why})`)
  return [...ports, ...IGNORED_SETTINGS.filter((name) => !known.has(name) && valueOf(source, name) !== undefined)]
}
