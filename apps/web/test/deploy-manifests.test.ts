// The Kubernetes manifests (deploy/kubernetes, docs/deploy.md) cannot drift from the server: every setting they name
// is one the server, the seed or the launcher reads (docs/configuration.md), or Rafiki's name for one; the values
// they give pass the server's own validation with production rules; and the ports the containers and Services
// declare are the ones the settings open.
import fs from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { parseAllDocuments } from 'yaml'
import { describe, expect, it } from 'vitest'
import { EnvSchema, FirstAdminEnvSchema, IGNORED_SETTINGS, PORTS_WITHOUT_LISTENER, SETTING_ALIASES } from '@gnap/domain/config'
import { launcherSettings, launcherSettingsSchema } from '@gnap/launcher/serve'
import { root } from '@gnap/test-support'
import { readEnv } from '../src/env'

const DIR = path.join(root, 'deploy', 'kubernetes')

interface Manifest {
  file: string
  kind: string
  metadata: { name: string }
  data?: Record<string, unknown>
  stringData?: Record<string, unknown>
  spec?: Record<string, unknown>
}

interface EnvVar {
  name: string
  value?: string
}

interface Container {
  name: string
  env?: EnvVar[]
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[]
  ports?: { name: string; containerPort: number }[]
  startupProbe?: { httpGet?: { path: string; port: string } }
  livenessProbe?: { httpGet?: { path: string; port: string } }
  readinessProbe?: { httpGet?: { path: string; port: string } }
}

/** Every document of every YAML file in deploy/kubernetes. */
function manifests(): Manifest[] {
  return fs
    .readdirSync(DIR)
    .filter((f) => /\.ya?ml$/.test(f))
    .flatMap((file) =>
      parseAllDocuments(fs.readFileSync(path.join(DIR, file), 'utf8')).map((doc) => {
        if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`)
        return { ...(doc.toJS() as Omit<Manifest, 'file'>), file }
      }),
    )
}

const all = manifests()
const ofKind = (kind: string) => all.filter((m) => m.kind === kind)
const containers = (): Container[] =>
  ofKind('Deployment').flatMap((d) => ((d.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers ?? []) as Container[])

/** Each setting a manifest names, with where: ConfigMap and Secret keys, and containers' `env` entries. */
function namedSettings(): { name: string; where: string; value: string | undefined }[] {
  const fromMaps = [...ofKind('ConfigMap'), ...ofKind('Secret')].flatMap((m) =>
    Object.entries({ ...m.data, ...m.stringData }).map(([name, value]) => ({
      name,
      where: `${m.file} ${m.kind} ${m.metadata.name}`,
      value: String(value),
    })),
  )
  const fromEnv = containers().flatMap((c) => (c.env ?? []).map((e) => ({ name: e.name, where: `container ${c.name}`, value: e.value })))
  return [...fromMaps, ...fromEnv]
}

/** The settings read by the server (EnvSchema), the seed (FirstAdminEnvSchema) and the launcher, and Rafiki's names for them. */
function readSettings(): Set<string> {
  return new Set([
    ...Object.keys(EnvSchema.shape),
    ...Object.keys(FirstAdminEnvSchema.shape),
    ...Object.keys(launcherSettingsSchema(z).shape),
    ...Object.values(SETTING_ALIASES),
  ])
}

/** A name is refused unless the server reads it; Rafiki's ports without a listener yet are accepted (ADMIN_PORT, issue #30). */
function unknownSettings(names: { name: string; where: string }[], read: ReadonlySet<string>): string[] {
  return names
    .filter(({ name }) => !read.has(name) && !(name in PORTS_WITHOUT_LISTENER))
    .map(({ name, where }) => `${name} (${where})${IGNORED_SETTINGS.includes(name) ? ': a Rafiki setting that does nothing here' : ''}`)
}

/** The environment a container of the Deployment gets: its ConfigMaps and Secrets, then its own `env`. */
function containerEnv(c: Container): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {}
  for (const from of c.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef
    const kind = from.configMapRef ? 'ConfigMap' : 'Secret'
    const source = ofKind(kind).find((m) => m.metadata.name === ref?.name)
    if (!source) throw new Error(`container ${c.name}: no ${kind} named ${ref?.name} in deploy/kubernetes`)
    for (const [k, v] of Object.entries({ ...source.data, ...source.stringData })) env[k] = String(v)
  }
  for (const e of c.env ?? []) env[e.name] = e.value
  return env
}

describe('deploy/kubernetes', () => {
  it('holds a Deployment, Services, a ConfigMap and a Secret, each parsed', () => {
    for (const kind of ['Deployment', 'Service', 'ConfigMap', 'Secret']) expect(ofKind(kind).length, kind).toBeGreaterThan(0)
    expect(namedSettings().length).toBeGreaterThan(10)
  })

  it('names only settings the server, the seed or the launcher reads', () => {
    expect(unknownSettings(namedSettings(), readSettings())).toEqual([])
  })

  it('refuses a name the server does not read, and a Rafiki setting that does nothing here', () => {
    const read = readSettings()
    expect(unknownSettings([{ name: 'INTROSPECTION_SECRETS', where: 'x' }], read)).toEqual(['INTROSPECTION_SECRETS (x)'])
    expect(unknownSettings([{ name: 'REDIS_URL', where: 'x' }], read)).toEqual(['REDIS_URL (x): a Rafiki setting that does nothing here'])
    expect(unknownSettings([{ name: 'AUTH_PORT', where: 'x' }], read)).toEqual([])
  })

  it('gives values the server and the launcher accept with production rules, and no Rafiki name twice', () => {
    for (const c of containers()) {
      const env = { NODE_ENV: 'production', ...containerEnv(c) }
      expect(() => readEnv(env as NodeJS.ProcessEnv), c.name).not.toThrow()
      expect(() => launcherSettings(env), c.name).not.toThrow()
    }
  })

  it('declares the ports the settings open, and the Services reach them by name', () => {
    for (const c of containers()) {
      const env = containerEnv(c)
      const port = (name: string) => c.ports?.find((p) => p.name === name)?.containerPort
      expect(port('http')).toBe(Number(env.PORT ?? 3000))
      expect(port('introspection')).toBe(Number(env.INTROSPECTION_PORT))
      expect(port('service-api')).toBe(Number(env.SERVICE_API_PORT))
      expect(port('admin')).toBe(Number(env.ADMIN_PORT))
      // The private listeners answer other pods only when bound to every interface of the pod.
      expect([env.INTROSPECTION_HOST, env.SERVICE_API_HOST, env.HOSTNAME]).toEqual(['0.0.0.0', '0.0.0.0', '0.0.0.0'])
    }
    const declared = new Set(containers().flatMap((c) => (c.ports ?? []).map((p) => p.name)))
    for (const s of ofKind('Service')) {
      for (const p of (s.spec as { ports: { name: string; targetPort: string }[] }).ports)
        expect(declared, `${s.metadata.name} ${p.name}`).toContain(p.targetPort)
    }
  })

  it('probes /healthz for liveness and start-up and /readyz for readiness, on the public port', () => {
    for (const c of containers()) {
      expect(c.startupProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' })
      expect(c.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' })
      expect(c.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' })
    }
  })

  it('runs on PostgreSQL', () => {
    for (const c of containers()) expect(containerEnv(c).DATABASE_URL).toMatch(/^postgresql:\/\//)
  })
})
