// A production start (`NODE_ENV=production pnpm start`) on a database first started outside production, which
// holds the demo accounts whose passwords are published (docs/protocol.md §7): it refuses to start, says what it
// found and how to remove it, and serves nothing. And ADMIN_EMAIL / ADMIN_PASSWORD given for a database that already
// has administrators are reported, not silently ignored.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { freePort, root } from '@gnap/test-support'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-prod-start-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const SETTINGS = {
  DATABASE_URL: `file:${path.join(dir, 'gnap.db')}`,
  WEB_CONCURRENCY: '1',
  INTROSPECTION_SECRET: 'production-introspection-secret-0123456789',
  IDENTITY_SERVER_SECRET: 'production-idp-secret-0123456789-abcdef',
}

/**
 * `pnpm start` (the launcher's compiled start.js) with `env` over PATH and HOME. With `until`, the launcher is
 * stopped (SIGTERM to its process group) once its output matches; otherwise it must exit by itself.
 */
async function start(env: Record<string, string>, until?: RegExp): Promise<{ code: number | null; output: string; port: number }> {
  const port = await freePort()
  const child = spawn(process.execPath, [path.join(root, 'packages', 'launcher', 'dist', 'start.js')], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), HOSTNAME: '127.0.0.1', ...SETTINGS, ...env } as Record<
      string,
      string | undefined
    > as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let output = ''
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const onData = (d: Buffer) => {
    output += d.toString()
    if (until?.test(output)) process.kill(-child.pid!, 'SIGTERM')
  }
  child.stdout.on('data', onData)
  child.stderr.on('data', onData)
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 80_000)
  const code = await exited
  clearTimeout(timer)
  return { code, output, port }
}

/** A production start with its first administrator given, which must refuse: stopped at once if it serves after all. */
async function refusedProductionStart(env: Record<string, string> = {}) {
  const prod = await start(
    {
      NODE_ENV: 'production',
      AUTH_SERVER_URL: 'https://auth.example.org',
      ADMIN_EMAIL: 'ops@example.org',
      ADMIN_PASSWORD: 'a long and private password',
      ...env,
    },
    /\[serve\] starting/,
  )
  expect(prod.code).not.toBe(0)
  return prod
}

describe('a production start on a database with demo state', () => {
  it('seeds the demo accounts outside production', async () => {
    const first = await start({ AUTH_SERVER_URL: 'http://127.0.0.1:3000' }, /\[serve\] starting/)
    expect(first.output).toContain('demo administrator')
    expect(first.output).toContain('demo resource owner')
  }, 90_000)

  it('reports ADMIN_EMAIL and ADMIN_PASSWORD given for a database that already has an administrator', async () => {
    const again = await start(
      { AUTH_SERVER_URL: 'http://127.0.0.1:3000', ADMIN_EMAIL: 'ops@example.org', ADMIN_PASSWORD: 'a long and private password' },
      /\[serve\] starting/,
    )
    expect(again.output).toMatch(/warning: ADMIN_EMAIL and ADMIN_PASSWORD are ignored: this database already has administrators/)
  }, 90_000)

  it('refuses to start in production, names the demo state and how to remove it, and serves nothing', async () => {
    const prod = await refusedProductionStart()
    expect(prod.output).toContain('NODE_ENV=production refuses to start')
    expect(prod.output).toContain('the demo administrator admin@example.com')
    expect(prod.output).toContain('the demo resource owner alice@example.com')
    expect(prod.output).toContain('pnpm db:remove-demo')
    expect(prod.output).not.toContain('[serve]')
    await expect(fetch(`http://127.0.0.1:${prod.port}/introspect`)).rejects.toThrow()
  }, 90_000)
})

describe('what a start says when it refuses', () => {
  it('names data/demo-client.json as the demo client key and says what to do, on a fresh database', async () => {
    const keyFile = path.join(root, 'data', 'demo-client.json')
    // Left by an earlier start outside production (the one above writes it); written here when this test runs alone.
    const written = !fs.existsSync(keyFile)
    if (written) {
      fs.mkdirSync(path.dirname(keyFile), { recursive: true })
      fs.writeFileSync(keyFile, '{}\n', { mode: 0o600 })
    }
    try {
      const prod = await refusedProductionStart({ DATABASE_URL: `file:${path.join(dir, 'fresh.db')}` })
      expect(prod.output).toContain('data/demo-client.json: the private key of the demo client (the app `pnpm demo` signs as)')
      expect(prod.output).toContain('A production server never uses it, whatever the database holds.')
      expect(prod.output).toContain('Delete data/demo-client.json (or run `pnpm db:remove-demo`, which deletes it), then start again.')
      expect(prod.output).not.toContain('[serve]')
    } finally {
      if (written) fs.rmSync(keyFile, { force: true })
    }
  }, 90_000)

  it('says why a short secret is refused on a local start that never set NODE_ENV', async () => {
    const local = await start(
      {
        DATABASE_URL: `file:${path.join(dir, 'local.db')}`,
        AUTH_SERVER_URL: 'http://127.0.0.1:3000',
        IDENTITY_SERVER_SECRET: 'short-local-secret-0123',
      },
      /\[serve\] ready/,
    )
    expect(local.code).not.toBe(0)
    expect(local.output).toContain(
      'each entry of IDENTITY_SERVER_SECRET must be at least 32 characters: the server runs with production rules (`next start`, and so `pnpm start`, sets NODE_ENV=production even on your own machine), and a shorter shared secret can be guessed.',
    )
    expect(local.output).toContain('or leave IDENTITY_SERVER_SECRET unset on a local `pnpm start` (without NODE_ENV=production)')
    expect(local.output).not.toContain('with NODE_ENV=production each entry')
  }, 90_000)
})
