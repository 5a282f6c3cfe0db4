// `pnpm docs:config`: writes docs/configuration.md from the settings' zod schemas, so the document cannot drift from
// what the server, the seed and the launcher accept (test/config-docs.test.ts fails when the file and the schemas
// differ). Each variable's type and default come from its schema; its meaning and what production requires come from
// the schema's metadata (`.meta({ description, production?, defaultText? })`). Run after `pnpm build` (the launcher's
// schema is imported from its build); `--check` only compares.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import { EnvSchema, FirstAdminEnvSchema, IGNORED_SETTINGS, PORTS_WITHOUT_LISTENER, SETTING_ALIASES } from '@gnap/domain/config'
import { launcherSettingsSchema } from '@gnap/launcher/serve'
import { invokedDirectly, readIfThere, writeOrCheck } from './generated-docs'

export const CONFIGURATION_DOC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'configuration.md')

interface VariableMeta {
  description?: string
  production?: string
  defaultText?: string
}

interface Section {
  title: string
  intro: string
  schema: z.ZodObject
}

const BOOLEAN_WORDS = ['true', 'false', '1', '0', 'yes', 'no']

/** The type a person writes in the environment, from the schema's input side. */
function typeOf(schema: z.ZodType): string {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>
  const values = json.enum as unknown[] | undefined
  if (values !== undefined) {
    if (values.length === BOOLEAN_WORDS.length && BOOLEAN_WORDS.every((w) => values.includes(w)))
      return 'boolean (`true`/`false`, `1`/`0`, `yes`/`no`)'
    const distinct = [...new Set(values.map((v) => String(v).toLowerCase()))]
    return 'one of ' + distinct.map((v) => `\`${v}\``).join(', ')
  }
  if (json.type === 'integer' || json.type === 'number') {
    const min = json.minimum ?? json.exclusiveMinimum
    const max = json.maximum
    const low = json.exclusiveMinimum !== undefined ? Number(json.exclusiveMinimum) + 1 : min
    return low !== undefined && max !== undefined ? `integer ${String(low)}–${String(max)}` : 'integer'
  }
  if (json.type === 'string') return json.format === 'uri' ? 'URL (`http:` or `https:`)' : 'string'
  // A preprocessed or transformed value: describe what comes out of the first step.
  const def = (schema as unknown as { _zod: { def: { type: string; in?: z.ZodType; out?: z.ZodType; innerType?: z.ZodType } } })._zod.def
  if (def.type === 'pipe' && def.out) return typeOf(def.in && def.in._zod.def.type !== 'transform' ? def.in : def.out)
  if ((def.type === 'optional' || def.type === 'default') && def.innerType) return typeOf(def.innerType)
  return 'string'
}

function defaultOf(schema: z.ZodType, meta: VariableMeta): string {
  if (meta.defaultText !== undefined) return meta.defaultText
  const parsed = schema.safeParse(undefined)
  if (!parsed.success) return 'required'
  const value: unknown = parsed.data
  if (value === undefined) return 'unset'
  return `\`${Array.isArray(value) ? value.join(',') : String(value)}\``
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ')

/** Where Rafiki names the setting otherwise, the meaning starts by saying so. */
function aliasNote(name: string): string {
  const alias = (SETTING_ALIASES as Record<string, string>)[name]
  return alias === undefined ? '' : `Also read as \`${alias}\`, Rafiki's name (set one of the two, or both to the same value). `
}

/** What becomes of the setting names of Rafiki's auth service that are not ours (packages/domain rafiki-settings.ts). */
function rafikiNames(): string {
  // A name the server reads (a listener built since) is documented in its own row above instead.
  const unread = (name: string) => !(name in EnvSchema.shape)
  const aliases = Object.entries(SETTING_ALIASES).map(([ours, theirs]) => `| \`${theirs}\` | read as \`${ours}\` |`)
  const ports = Object.entries(PORTS_WITHOUT_LISTENER)
    .filter(([name]) => unread(name))
    .map(([name, why]) => `| \`${name}\` | accepted and named in the start-up line, no listener: ${why} |`)
  const ignored = IGNORED_SETTINGS.filter(unread).map((name) => `| \`${name}\` | accepted and named in the start-up line, not read |`)
  return ["| Rafiki's name | here |", '|---|---|', ...aliases, ...ports, ...ignored].join('\n')
}

function table(schema: z.ZodObject): string {
  const rows = Object.entries(schema.shape).map(([name, field]) => {
    const fieldSchema = field as z.ZodType
    const meta = (fieldSchema.meta() ?? {}) as VariableMeta
    if (!meta.description) throw new Error(`${name} has no description in its schema's .meta()`)
    const meaning = aliasNote(name) + meta.description
    return `| \`${name}\` | ${cell(typeOf(fieldSchema))} | ${cell(defaultOf(fieldSchema, meta))} | ${cell(meta.production ?? '')} | ${cell(meaning)} |`
  })
  return ['| variable | type | default | production | meaning |', '|---|---|---|---|---|', ...rows].join('\n')
}

export function sections(): Section[] {
  return [
    {
      title: 'The server',
      intro:
        'Read by every worker at start-up (`apps/web/src/env.ts`, schema `EnvSchema` in `packages/domain/src/kernel/config/config.ts`); a bad value stops the server with a message that names it. "production" is what `NODE_ENV=production` requires on top.',
      schema: EnvSchema as unknown as z.ZodObject,
    },
    {
      title: 'The first administrator',
      intro: "Read by the seed that `pnpm start` runs (`prisma/seed.ts`, schema `FirstAdminEnvSchema` in the same file as the server's).",
      schema: FirstAdminEnvSchema,
    },
    {
      title: 'The launcher',
      intro: 'Read by `pnpm start` alone (`packages/launcher/src/serve.ts`, `launcherSettingsSchema`), not by the workers.',
      schema: launcherSettingsSchema(z),
    },
  ]
}

export function renderConfigurationDoc(): string {
  const parts = [
    '# Configuration',
    '',
    "<!-- Generated by `pnpm docs:config` from the settings' zod schemas: edit the schemas, not this file. -->",
    '',
    'Every setting is an environment variable. Outside `NODE_ENV=production`, `pnpm start` fills in what a local run',
    'needs and says so: `AUTH_SERVER_URL` (`http://localhost:$PORT`), `INTROSPECTION_SECRET` and',
    '`IDENTITY_SERVER_SECRET` (generated once into `data/secrets.json`, mode 0600, never printed), and loopback for',
    '`WALLET_ADDRESS_ALLOWED_NETWORKS`. With `NODE_ENV=production` nothing is filled in. An empty value counts as unset',
    "for the launcher's settings and the introspection port.",
  ]
  for (const section of sections()) parts.push('', `## ${section.title}`, '', section.intro, '', table(section.schema))
  parts.push(
    '',
    "## Rafiki's setting names",
    '',
    "The environment Rafiki's Helm chart writes for its auth service can be given as it is. Its expiry, wait and",
    'interaction-policy names, `TRUST_PROXY`, `LOG_LEVEL` and the identity-provider and introspection names are ours',
    'too, with the same meaning. Its other names are below; the settings that do nothing here are named, without their',
    'values, in one warning line when each process starts.',
    '',
    rafikiNames(),
  )
  return parts.join('\n') + '\n'
}

if (invokedDirectly(import.meta.url)) {
  const doc = { file: CONFIGURATION_DOC, name: 'docs/configuration.md', current: readIfThere(CONFIGURATION_DOC), next: renderConfigurationDoc() }
  writeOrCheck([doc], "the settings' schemas", 'pnpm docs:config')
}
