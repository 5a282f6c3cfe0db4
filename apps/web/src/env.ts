// Only the settings module of the domain package (zod, no database): the proxy imports this file too.
import { EnvSchema, configFromEnv, type Env, type GnapConfig } from '@gnap/domain/config'

/** The only reader of process.env: settings validated once, with a message that names each bad variable. */
function readEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const parsed = EnvSchema.safeParse(source)
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`)
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`)
  }
  return parsed.data
}

export function readConfig(): { env: Env; config: GnapConfig } {
  const env = readEnv()
  return { env, config: configFromEnv(env) }
}

/**
 * What the security headers depend on, read without validating every setting: the proxy runs for every request,
 * and a bad setting already stops the server at start-up (instrumentation.ts).
 */
export function securitySettings(source: NodeJS.ProcessEnv = process.env): { https: boolean; dev: boolean } {
  return { https: (source.AUTH_SERVER_URL ?? '').startsWith('https:'), dev: source.NODE_ENV === 'development' }
}
