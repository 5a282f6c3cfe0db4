// Server instances as an operator runs them: each one the launcher (@gnap/launcher's serve, compiled) with its
// workers, on a port of its own. `startInstances` is the multi-instance set-up: one database, migrated once, and
// several instances against it that all answer for one public address (AUTH_SERVER_URL), as behind a proxy.
// `pnpm two-instances` (apps/web/scripts/two-instances.ts), the multi-instance tests and the benchmark start their
// servers through here.
import { spawn, spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import net from 'node:net'
import path from 'node:path'
import { migrateFile } from '@gnap/domain/testing'

/** The repository. */
export const root = path.resolve(import.meta.dirname, '..', '..', '..')

/** The launcher's entry as `pnpm start` runs it: its compiled dist/serve.js, which plain node runs. */
function serveScript(): string {
  try {
    return createRequire(import.meta.url).resolve('@gnap/launcher/serve')
  } catch (e) {
    throw new Error(`no build of the launcher in packages/launcher/dist: run \`pnpm build\` first (${e instanceof Error ? e.message : String(e)})`)
  }
}

export interface Instance {
  /** `a`, `b`, … */
  name: string
  /** This instance's own base URL, with one trailing slash. */
  url: string
  port: number
  /** The launcher's primary process; its workers are its children, all in one process group. */
  pid: number
  /** Everything the instance (primary and workers) wrote so far. */
  logs(): string
  /** Settles when the primary exited, with its exit code (null after a signal). */
  exited: Promise<number | null>
  /**
   * Sends `signal` and waits until the instance exited. SIGKILL goes to the whole process group (primary and
   * workers at once, as when a machine dies); other signals go to the primary, which forwards them to its workers.
   */
  kill(signal: NodeJS.Signals): Promise<void>
  /** Graceful stop (SIGTERM), then SIGKILL to the group if it is still running after 15 s. */
  stop(): Promise<void>
}

export interface InstanceOptions {
  name?: string
  /** The server's settings, over PATH and HOME only (nothing else is inherited); `undefined` removes one. */
  env: Record<string, string | undefined>
  /** Default: a free port. */
  port?: number
  /** Default 127.0.0.1. */
  host?: string
  /** WEB_CONCURRENCY of this instance. Default 1. */
  workers?: number
  /** Called with every line the instance writes (the CLI echoes them). */
  onLine?: (line: string) => void
  /** How long start-up may take before the instance is killed. Default 90 s. */
  readyTimeoutMs?: number
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.once('error', reject)
    srv.listen(0, host, () => {
      const { port } = srv.address() as net.AddressInfo
      srv.close(() => resolve(port))
    })
  })
}

/**
 * `prisma migrate deploy` on `databaseUrl` (prisma.config.ts picks the SQLite or PostgreSQL migrations); a SQLite file
 * that does not exist yet becomes a copy of the migrated template instead (@gnap/domain/testing's migrateFile).
 */
export function migrateDatabase(databaseUrl: string): void {
  if (databaseUrl.startsWith('file:')) return migrateFile(databaseUrl.slice('file:'.length))
  const run = spawnSync(path.join(root, 'node_modules', '.bin', 'prisma'), ['migrate', 'deploy'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, CHECKPOINT_DISABLE: '1' },
    encoding: 'utf8',
  })
  if (run.status !== 0) throw new Error(`prisma migrate deploy failed:\n${run.stdout}\n${run.stderr}`)
}

/** Starts one instance and resolves once every worker is ready (the launcher says so over IPC). */
export async function startInstance(options: InstanceOptions): Promise<Instance> {
  const host = options.host ?? '127.0.0.1'
  const port = options.port ?? (await freePort(host))
  const url = `http://${host}:${port}/`
  const name = options.name ?? 'a'
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    AUTH_SERVER_URL: url,
    ...options.env,
    PORT: String(port),
    HOSTNAME: host,
    WEB_CONCURRENCY: String(options.workers ?? 1),
  }
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key]
  // Its own process group, so SIGKILL can take the primary and its workers down together.
  const child = spawn(process.execPath, [serveScript()], {
    cwd: root,
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    detached: true,
  })
  const pid = child.pid ?? 0
  let output = ''
  let partial = ''
  const onData = (d: Buffer) => {
    const text = d.toString()
    output += text
    if (!options.onLine) return
    const lines = (partial + text).split('\n')
    partial = lines.pop() ?? ''
    for (const line of lines) options.onLine(line)
  }
  child.stdout?.on('data', onData)
  child.stderr?.on('data', onData)
  let exited = false
  const exit = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exited = true
      resolve(code)
    }),
  )
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal)
    } catch {
      // the group is gone
    }
  }

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      signalGroup('SIGKILL')
      reject(new Error(`instance ${name} on ${url} not ready within ${(options.readyTimeoutMs ?? 90_000) / 1000} s:\n${output}`))
    }, options.readyTimeoutMs ?? 90_000)
    child.on('message', (msg: { gnap?: string }) => {
      if (msg?.gnap !== 'ready') return
      clearTimeout(timer)
      resolve()
    })
    void exit.then(() => {
      clearTimeout(timer)
      reject(new Error(`instance ${name} on ${url} exited during start-up:\n${output}`))
    })
  })

  const kill = async (signal: NodeJS.Signals) => {
    if (!exited) {
      if (signal === 'SIGKILL') signalGroup('SIGKILL')
      else child.kill(signal)
    }
    await exit
  }
  return {
    name,
    url,
    port,
    pid,
    logs: () => output,
    exited: exit,
    kill,
    async stop() {
      if (!exited) child.kill('SIGTERM')
      const stopped = await Promise.race([exit.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 15_000))])
      if (!stopped) await kill('SIGKILL')
    },
  }
}

export interface InstancesOptions extends Omit<InstanceOptions, 'name' | 'port' | 'env' | 'onLine'> {
  /** The database every instance uses; migrated once before they start. */
  databaseUrl: string
  /** The servers' other settings. AUTH_SERVER_URL defaults to the first instance's URL (the proxy's, in production). */
  env: Record<string, string | undefined>
  /** Default 2. */
  count?: number
  /** Default: free ports. */
  ports?: number[]
  onLine?: (line: string, instance: string) => void
}

/** Migrates `databaseUrl`, then starts `count` instances against it, all answering for one AUTH_SERVER_URL. */
export async function startInstances(options: InstancesOptions): Promise<Instance[]> {
  const { onLine, databaseUrl, count: wanted, ports: given, ...common } = options
  const host = options.host ?? '127.0.0.1'
  const count = given?.length ?? wanted ?? 2
  migrateDatabase(databaseUrl)
  const ports = given ?? (await distinctFreePorts(host, count))
  const publicUrl = options.env.AUTH_SERVER_URL ?? `http://${host}:${ports[0]}/`
  const names = ports.map((_, i) => String.fromCharCode(97 + i))
  const started = await Promise.allSettled(
    ports.map((port, i) =>
      startInstance({
        ...common,
        name: names[i]!,
        port,
        host,
        env: { ...options.env, DATABASE_URL: databaseUrl, AUTH_SERVER_URL: publicUrl },
        ...(onLine ? { onLine: (line: string) => onLine(line, names[i]!) } : {}),
      }),
    ),
  )
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected')
  if (failed) {
    await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)))
    throw failed.reason
  }
  return started.map((s) => (s as PromiseFulfilledResult<Instance>).value)
}

async function distinctFreePorts(host: string, count: number): Promise<number[]> {
  const ports = new Set<number>()
  while (ports.size < count) ports.add(await freePort(host))
  return [...ports]
}
