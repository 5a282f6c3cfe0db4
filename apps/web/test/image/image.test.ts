// The OCI image (Containerfile, docs/deploy.md), as built by `pnpm image`: run by `pnpm test:image`
// (scripts/test-image.sh), never by `pnpm test`. No container runtime runs here, so the image is run the way one
// would: its filesystem mounted (`podman image mount`, read-only), a fresh directory as its /app/data volume, /dev,
// /proc and a /tmp of its own, and its entrypoint started in it as the image's user with the image's environment plus
// the settings an operator gives. Then what an operator and a client notice: /healthz, the image's own HEALTHCHECK,
// a grant the real Open Payments client obtains, that token introspected on the introspection listener, the process
// running as the unprivileged user, the database in the volume, and a clean stop on the image's STOPSIGNAL.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createAuthenticatedClient, isFinalizedGrant } from '@interledger/open-payments'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateClientKey, startWalletAddressServer } from '@gnap/domain/testing'
import { freePort } from '@gnap/test-support'

const IMAGE = process.env.GNAP_IMAGE ?? 'gnap-auth-server:latest'
const SECRET = 'image-test-introspection-secret-0123456789'

interface ImageConfig {
  User: string
  Env: string[]
  Entrypoint: string[]
  Cmd: string[] | null
  WorkingDir: string
  StopSignal: string
  Volumes: Record<string, unknown> | null
  Healthcheck?: { Test: string[] }
}

const inspect = JSON.parse(execFileSync('podman', ['image', 'inspect', IMAGE], { encoding: 'utf8' })) as {
  Config: ImageConfig
  /** Where podman shows a docker-format image's HEALTHCHECK (docker shows it in Config). */
  Healthcheck?: { Test: string[] }
  Size: number
}[]
const config = inspect[0]!.Config
const healthcheck = (inspect[0]!.Healthcheck ?? config.Healthcheck)?.Test ?? []
const [uid, gid = uid] = config.User.split(':')

let rootfs = ''
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-image-data-'))
let server: ChildProcess
let serverLog: () => string = () => ''
let env: Record<string, string> = {}
const ports = { public: 0, introspection: 0 }

/**
 * `command` run in the mounted image as the image's user, from its working directory, with `environment` only: in a
 * mount namespace of its own, where the volume, /dev, /proc and /tmp are mounted over the read-only image.
 */
function inImage(command: string[], environment: Record<string, string>, options: { volume?: string; noNetwork?: boolean } = {}): ChildProcess {
  const script = [
    'set -e',
    // Without a network: a namespace of its own with only loopback, up.
    ...(options.noNetwork ? ['ip link set lo up'] : []),
    'mount --rbind /dev "$1/dev"',
    'mount -t proc proc "$1/proc"',
    'mount -t tmpfs tmpfs "$1/tmp"',
    'mount --bind "$2" "$1/app/data"',
    'root=$1; shift 2',
    `exec chroot --userspec=${uid}:${gid} --groups=${gid} "$root" /usr/bin/env -i -C "${config.WorkingDir}" "$@"`,
  ].join('\n')
  const assignments = Object.entries(environment).map(([k, v]) => `${k}=${v}`)
  const namespaces = ['--mount', '--propagation', 'private', ...(options.noNetwork ? ['--net'] : [])]
  return spawn('unshare', [...namespaces, 'sh', '-c', script, 'sh', rootfs, options.volume ?? dataDir, ...assignments, ...command], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** The image's entrypoint, started in the image as in `inImage`, once it says all its workers are ready. */
async function startEntrypoint(environment: Record<string, string>, options: { volume?: string; noNetwork?: boolean } = {}) {
  const child = inImage([...config.Entrypoint, ...(config.Cmd ?? [])], environment, options)
  let log = ''
  child.stdout?.on('data', (d: Buffer) => (log += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()))
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the image's entrypoint exited:\n${log}`)
    if (/\[serve\] ready/.test(log)) return { child, output: () => log }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`not ready within 120 s:\n${log}`)
    }
    await new Promise((r) => setTimeout(r, 250))
  }
}

async function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)))
}

beforeAll(async () => {
  rootfs = execFileSync('podman', ['image', 'mount', IMAGE], { encoding: 'utf8' }).trim()
  fs.chownSync(dataDir, Number(uid), Number(gid))
  fs.chmodSync(dataDir, 0o700)
  ports.public = await freePort()
  ports.introspection = await freePort()
  const imageEnv = Object.fromEntries(config.Env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]))
  // What an operator gives (docs/deploy.md), on loopback: the wallet-address server of this test is there too.
  env = {
    ...imageEnv,
    PORT: String(ports.public),
    HOSTNAME: '127.0.0.1',
    AUTH_SERVER_URL: `http://127.0.0.1:${ports.public}`,
    INTROSPECTION_SECRET: SECRET,
    INTROSPECTION_PORT: String(ports.introspection),
    WEB_CONCURRENCY: '1',
    ADMIN_EMAIL: 'ops@example.org',
    ADMIN_PASSWORD: 'a long and private password',
    WALLET_ADDRESS_ALLOWED_NETWORKS: '127.0.0.0/8',
  }
  const started = await startEntrypoint(env)
  server = started.child
  serverLog = started.output
}, 150_000)

afterAll(async () => {
  if (server && server.exitCode === null && server.signalCode === null) {
    server.kill('SIGKILL')
    await exitOf(server)
  }
  if (rootfs) spawnSync('podman', ['image', 'unmount', IMAGE])
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe('the image', () => {
  it('runs as an unprivileged user, stops on SIGTERM, and keeps its data in a volume', () => {
    expect(uid).toMatch(/^\d+$/)
    expect(Number(uid)).toBeGreaterThan(0)
    expect(config.StopSignal).toBe('SIGTERM')
    expect(Object.keys(config.Volumes ?? {})).toEqual(['/app/data'])
    expect(healthcheck.join(' ')).toContain('/healthz')
    // The running server's process: its real and effective user and group.
    const status = fs.readFileSync(`/proc/${server.pid}/status`, 'utf8')
    expect(status).toMatch(new RegExp(`^Uid:\\s+${uid}\\s+${uid}\\s+${uid}\\s+${uid}$`, 'm'))
    expect(status).toMatch(new RegExp(`^Gid:\\s+${gid}\\s+${gid}`, 'm'))
  })

  it('answers /healthz, and its HEALTHCHECK passes', async () => {
    const res = await fetch(`http://127.0.0.1:${ports.public}/healthz`)
    expect(res.status).toBe(200)
    expect(healthcheck[0]).toBe('CMD')
    const check = inImage(healthcheck.slice(1), env)
    expect(await exitOf(check)).toBe(0)
  })

  it('issues a grant to the real client, and its token introspects as active on the introspection listener', async () => {
    const wallets = await startWalletAddressServer({})
    try {
      const key = await generateClientKey('image-key')
      const walletAddress = wallets.addClient('app', { publicName: 'Image Test App', keys: [key.jwk], authServer: env.AUTH_SERVER_URL! })
      const client = await createAuthenticatedClient({ walletAddressUrl: walletAddress, privateKey: key.privateKey, keyId: key.kid })
      const grant = await client.grant.request(
        { url: env.AUTH_SERVER_URL! },
        { access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'read'] }] } },
      )
      if (!isFinalizedGrant(grant) || !grant.access_token) throw new Error(`expected an issued grant:\n${serverLog()}`)
      const res = await fetch(`http://127.0.0.1:${ports.introspection}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` },
        body: JSON.stringify({ access_token: grant.access_token.value }),
      })
      expect(res.status).toBe(200)
      expect(await res.json()).toMatchObject({ active: true, client: { walletAddress }, access: [{ type: 'incoming-payment' }] })
    } finally {
      await wallets.close()
    }
  })

  it('keeps the SQLite database in the volume, private to its user', () => {
    const db = fs.statSync(path.join(dataDir, 'gnap.db'))
    expect(db.uid).toBe(Number(uid))
    expect(db.mode & 0o777).toBe(0o600)
  })

  it('starts without any network: migrations, seed and workers on a fresh volume, with only loopback', async () => {
    const volume = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-image-offline-'))
    try {
      fs.chownSync(volume, Number(uid), Number(gid))
      const offline = await startEntrypoint(env, { volume, noNetwork: true })
      expect(offline.output()).toContain('[start] database migrated')
      offline.child.kill('SIGTERM')
      expect(await exitOf(offline.child)).toBe(0)
    } finally {
      fs.rmSync(volume, { recursive: true, force: true })
    }
  }, 150_000)

  it('stops cleanly on SIGTERM', async () => {
    server.kill('SIGTERM')
    expect(await exitOf(server)).toBe(0)
    expect(serverLog()).toContain('SIGTERM: stopping')
  }, 30_000)
})
