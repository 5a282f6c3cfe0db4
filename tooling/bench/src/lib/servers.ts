// The servers the benchmark measures: our production build (through the launcher, @gnap/launcher, with its
// workers, as `pnpm start` serves it), the floor (a bare node:http server) and the ceiling (a minimal Next app
// answering constant JSON), each in processes of its own.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { freePort, root, startInstance, startInstances, startServer, testServerEnv, type RunningServer } from '@gnap/test-support'

export { freePort, root }
const webDir = path.join(root, 'apps', 'web')
// Next's CLI, run on this very node (the benchmark's).
const nextCli = path.join(webDir, 'node_modules', 'next', 'dist', 'bin', 'next')
const ceilingDir = path.resolve(import.meta.dirname, '..', '..', 'ceiling-app')
const require = createRequire(import.meta.url)

/**
 * The node option that gives a `next start` process the launcher's fair event-loop turns: an `--import` of
 * @gnap/launcher's compiled preload (dist/fair-turns-preload.js, which plain node runs).
 */
export function fairTurnsImport(): string {
  return `--import=${pathToFileURL(require.resolve('@gnap/launcher/fair-turns-preload')).href}`
}

export interface BenchServer {
  name: string
  url: string
  pid: number
  logs(): string
  stop(): Promise<void>
}

export function requireBuild(): void {
  if (!fs.existsSync(path.join(webDir, '.next', 'BUILD_ID'))) {
    throw new Error('no production build in apps/web/.next: run `pnpm build` first (the benchmark measures the build, it does not make one)')
  }
  for (const entry of ['@gnap/launcher/serve', '@gnap/launcher/fair-turns-preload']) {
    try {
      require.resolve(entry)
    } catch {
      throw new Error(`no build of the launcher in packages/launcher/dist (${entry}): run \`pnpm build\` first`)
    }
  }
}

/** Our server on an existing migrated file, with the benchmark's settings: the launcher with `workers` workers. */
export async function startGnap(dbFile: string, env: Record<string, string | undefined>, workers: number): Promise<BenchServer> {
  const instance = await startInstance({ env: testServerEnv({ DATABASE_URL: `file:${dbFile}`, ...env }), workers })
  return { name: 'next', url: instance.url, pid: instance.pid, logs: instance.logs, stop: instance.stop }
}

/** One `next start` process on an existing migrated file, with node options the launcher does not pass (--cpu-prof). */
export async function startGnapProcess(
  dbFile: string,
  env: Record<string, string | undefined>,
  nodeArgs: string[],
): Promise<BenchServer & { server: RunningServer }> {
  const server = await startServer(env, { dbFile, nodeArgs })
  return { name: 'next', url: server.url, pid: server.pid, logs: server.logs, stop: server.stop, server }
}

/**
 * Several instances (launchers) on one PostgreSQL database, migrated first, all answering for the first one's URL
 * as behind a proxy: `url` is that public URL, `instances` each instance's own address.
 */
export async function startGnapInstances(
  databaseUrl: string,
  env: Record<string, string | undefined>,
  opts: { count: number; workers: number },
): Promise<{ url: string; pids: number[]; instances: { name: string; url: string }[]; stop(): Promise<void> }> {
  const instances = await startInstances({ databaseUrl, env: testServerEnv(env), count: opts.count, workers: opts.workers })
  return {
    url: instances[0]!.url,
    pids: instances.map((i) => i.pid),
    instances: instances.map((i) => ({ name: i.name, url: i.url })),
    stop: async () => {
      await Promise.all(instances.map((i) => i.stop()))
    },
  }
}

async function waitListening(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${url} exited during start-up:\n${output()}`)
    try {
      await fetch(url)
      return
    } catch {
      // not yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`${url} did not start within 60 s:\n${output()}`)
    }
    await new Promise((r) => setTimeout(r, 150))
  }
}

function spawned(name: string, url: string, child: ChildProcess): BenchServer & { ready(probe: string): Promise<void> } {
  let output = ''
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return {
    name,
    url,
    pid: child.pid ?? 0,
    logs: () => output,
    ready: (probe) => waitListening(probe, child, () => output),
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM')
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    },
  }
}

/** The floor server on the same SQLite file (the Next server must be stopped first: one writer at a time is fair). */
export async function startFloor(dbFile: string, introspectionSecret: string): Promise<BenchServer> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}/`
  const child = spawn(process.execPath, [path.join(import.meta.dirname, '..', 'floor-server.mjs')], {
    env: { PATH: process.env.PATH, PORT: String(port), DATABASE_FILE: dbFile, AUTH_SERVER_URL: url, INTROSPECTION_SECRET: introspectionSecret },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const server = spawned('floor', url, child)
  await server.ready(url)
  return server
}

/**
 * The ceiling app: builds it with apps/web's next when its build is missing or older than its sources, then serves
 * it with `next start`. Its node_modules are symlinks to apps/web's next, react and react-dom.
 */
export async function startCeiling(): Promise<BenchServer> {
  const modules = path.join(ceilingDir, 'node_modules')
  fs.mkdirSync(modules, { recursive: true })
  for (const pkg of ['next', 'react', 'react-dom']) {
    const link = path.join(modules, pkg)
    if (!fs.existsSync(link)) fs.symlinkSync(fs.realpathSync(path.join(webDir, 'node_modules', pkg)), link, 'dir')
  }
  const buildId = path.join(ceilingDir, '.next', 'BUILD_ID')
  const sources = [path.join(ceilingDir, 'app', 'ping', 'route.js'), path.join(ceilingDir, 'next.config.mjs')]
  const stale = !fs.existsSync(buildId) || sources.some((s) => fs.statSync(s).mtimeMs > fs.statSync(buildId).mtimeMs)
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' }
  if (stale) {
    console.log('[bench] building the ceiling app (tooling/bench/ceiling-app)…')
    const build = spawnSync(process.execPath, [nextCli, 'build'], { cwd: ceilingDir, env, encoding: 'utf8' })
    if (build.status !== 0) throw new Error(`ceiling app build failed:\n${build.stdout}\n${build.stderr}`)
  }
  const port = await freePort()
  const url = `http://127.0.0.1:${port}/`
  // With our workers' fair event-loop turns (@gnap/launcher's fair-turns), as the launcher runs `next start`.
  const startEnv = { ...env, NODE_OPTIONS: fairTurnsImport() }
  const child = spawn(process.execPath, [nextCli, 'start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: ceilingDir,
    env: startEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const server = spawned('ceiling', url, child)
  await server.ready(`${url}ping`)
  return server
}
