import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { migrateFile } from '@gnap/domain/testing'
import { freePort, root } from './instances'

const webDir = path.join(root, 'apps', 'web')

export const INTROSPECTION_SECRET = 'test-introspection-secret-0123456789'
export const IDP_SECRET = 'test-idp-secret-0123456789-abcdefghij'

/** The settings every test server runs with (production build, the test secrets), under `overrides`. */
export function testServerEnv(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    INTROSPECTION_SECRET,
    IDENTITY_SERVER_URL: 'https://idp.example/consent',
    IDENTITY_SERVER_SECRET: IDP_SECRET,
    WAIT_SECONDS: '1',
    LOG_LEVEL: 'info',
    // The tests' wallet address servers listen on loopback, which production refuses by default.
    WALLET_ADDRESS_ALLOWED_NETWORKS: '127.0.0.0/8,::1/128',
    ...overrides,
  }
}

export interface RunningServer {
  /** Base URL, with one trailing slash: what wallet addresses advertise as authServer. */
  url: string
  port: number
  dbFile: string
  /** The `next start` process (the benchmark samples its memory). */
  pid: number
  /** Everything the server wrote to stdout and stderr so far. */
  logs(): string
  /** Sends `signal` to the server process and waits until it exited; the database file is kept. */
  kill(signal: NodeJS.Signals): Promise<void>
  stop(): Promise<void>
}

export interface StartOptions {
  /** An existing, migrated SQLite file to serve (a restart after a crash); kept on stop. Default: a fresh one. */
  dbFile?: string
  /** Node options NODE_OPTIONS refuses, e.g. `--cpu-prof` (the benchmark's profile), given to node on its command line. */
  nodeArgs?: string[]
}

/**
 * Starts `next start` (the production build) on a fresh, migrated SQLite file. `env` overrides the defaults; a
 * value of `undefined` removes the setting (e.g. `IDENTITY_SERVER_URL: undefined` serves the built-in consent
 * screen, since an empty string is not a valid URL). With `options.dbFile` it serves that existing file instead.
 */
export async function startServer(env: Record<string, string | undefined> = {}, options: StartOptions = {}): Promise<RunningServer> {
  if (!fs.existsSync(path.join(webDir, '.next', 'BUILD_ID'))) throw new Error('no production build: run `pnpm build` first')
  const port = await freePort()
  const dir = options.dbFile ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-e2e-'))
  const dbFile = options.dbFile ?? path.join(dir!, 'e2e.db')
  if (dir) migrateFile(dbFile)
  const url = `http://127.0.0.1:${port}/`
  let output = ''
  const settings: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...testServerEnv({ AUTH_SERVER_URL: url, DATABASE_URL: `file:${dbFile}` }),
    ...env,
  }
  for (const key of Object.keys(settings)) if (settings[key] === undefined) delete settings[key]
  const args = ['start', '-p', String(port), '-H', '127.0.0.1']
  // On this very node (the test runner's), whatever `node` PATH finds first.
  const commandArgs = [...(options.nodeArgs ?? []), path.join(webDir, 'node_modules/next/dist/bin/next'), ...args]
  const child: ChildProcess = spawn(process.execPath, commandArgs, {
    cwd: webDir,
    env: settings as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))

  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited during start-up:\n${output}`)
    try {
      // Any answer means it listens: GET on the introspection endpoint is a 405.
      await fetch(`${url}introspect`)
      break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`server did not start within 60 s:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 150))
  }
  return {
    url,
    port,
    dbFile,
    pid: child.pid ?? 0,
    logs: () => output,
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      await exited
    },
    stop: async () => {
      child.kill('SIGTERM')
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
      if (child.exitCode === null) child.kill('SIGKILL')
      if (dir) fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}
