import { EnvSchema, configFromEnv, type Env, type GnapConfig } from '@gnap/domain'

/** The only reader of process.env: settings validated once, with a message that names each bad variable. */
export function readEnv(source: NodeJS.ProcessEnv = process.env): Env {
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
