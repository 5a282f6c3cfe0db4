// Only the settings module of the domain package (zod, no database): the proxy imports this file too.
import { EnvSchema, configFromEnv, resolveSettingAliases, unusedRafikiSettings, type Env, type GnapConfig } from '@gnap/domain/config'

/**
 * The only reader of process.env: settings validated once, with a message that names each bad variable. Rafiki's
 * names for our settings are read too (AUTH_PORT, AUTH_DATABASE_URL: docs/configuration.md); `unused` lists the Rafiki
 * settings that do nothing here, for one line at start.
 */
export function readEnv(source: NodeJS.ProcessEnv = process.env): { env: Env; unused: string[] } {
  const { env, conflicts } = resolveSettingAliases(source)
  const parsed = EnvSchema.safeParse(env)
  const lines = [...conflicts, ...(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`))]
  if (!parsed.success || lines.length > 0) throw new Error(`Invalid configuration:\n${lines.map((line) => `  ${line}`).join('\n')}`)
  return { env: parsed.data, unused: unusedRafikiSettings(source, new Set(Object.keys(EnvSchema.shape))) }
}

export function readConfig(): { env: Env; config: GnapConfig; unused: string[] } {
  const { env, unused } = readEnv()
  return { env, config: configFromEnv(env), unused }
}

/**
 * What the security headers depend on, read without validating every setting: the proxy runs for every request,
 * and a bad setting already stops the server at start-up (instrumentation.ts).
 */
export function securitySettings(source: NodeJS.ProcessEnv = process.env): { https: boolean; dev: boolean } {
  return { https: (source.AUTH_SERVER_URL ?? '').startsWith('https:'), dev: source.NODE_ENV === 'development' }
}

/**
 * The standard OpenTelemetry settings (`OTEL_*`, docs/operating.md "Traces"): read as they are, outside the settings
 * schema, because they are the SDK's own (its exporter and resource detector read the rest of them themselves).
 */
export function otelSettings(source: NodeJS.ProcessEnv = process.env): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(source).filter(([name]) => name.startsWith('OTEL_')))
}
