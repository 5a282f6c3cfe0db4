// The files of a local start are private to the server's user (src/private-files.ts, docs/security.md "Files"):
// `pnpm start` makes data/ 0700 and the SQLite database, its -wal and -shm and data/'s secrets files 0600 before it
// serves, whatever the umask and whatever modes they had. The start runs from source under tsx and is stopped when
// the launcher begins to serve, so no Next build is needed.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeFilesPrivate } from '../src/private-files.js'

const root = path.resolve(import.meta.dirname, '..', '..', '..')
const dataDir = path.join(root, 'data')
const tsx = path.join(root, 'node_modules', '.bin', 'tsx')
const mode = (file: string) => fs.statSync(file).mode & 0o777

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-private-files-'))
let umask: number
beforeAll(() => {
  // The usual umask, under which files are created 0644 and folders 0755.
  umask = process.umask(0o022)
})
afterAll(() => {
  process.umask(umask)
  fs.rmSync(dir, { recursive: true, force: true })
})

/** `pnpm start` from source on `dbFile`, stopped (its process group) once it starts serving; its output. */
function startUntilServing(dbFile: string): Promise<string> {
  const child = spawn(tsx, [path.join(root, 'packages', 'launcher', 'src', 'start.ts')], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: `file:${dbFile}`,
      AUTH_SERVER_URL: 'http://127.0.0.1:3999',
      PORT: '3999',
      WEB_CONCURRENCY: '1',
      INTROSPECTION_SECRET: 'local-introspection-secret-0123456789-abcdef',
      IDENTITY_SERVER_SECRET: 'local-idp-secret-0123456789-0123456789-abc',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let output = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 80_000)
    const onData = (d: Buffer) => {
      output += d.toString()
      if (output.includes('[serve]')) process.kill(-child.pid!, 'SIGKILL')
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', () => {
      clearTimeout(timer)
      if (output.includes('[serve]')) resolve(output)
      else reject(new Error(`the start did not reach serving:\n${output}`))
    })
  })
}

describe('pnpm start', () => {
  it('makes data/ 0700 and the database, its -wal and -shm, and the demo client key 0600 before it serves', async () => {
    // As an earlier start, or a checkout, may have left them.
    fs.mkdirSync(dataDir, { recursive: true })
    fs.chmodSync(dataDir, 0o755)
    const demoKey = path.join(dataDir, 'demo-client.json')
    if (fs.existsSync(demoKey)) fs.chmodSync(demoKey, 0o644)
    const dbFile = path.join(dir, 'gnap.db')

    await startUntilServing(dbFile)

    expect(mode(dataDir)).toBe(0o700)
    expect(mode(dbFile)).toBe(0o600)
    // The seed of this fresh database wrote the key if it was not there.
    expect(mode(demoKey)).toBe(0o600)
    // The server opens the database in WAL mode: what SQLite creates beside it is as private.
    const db = new DatabaseSync(dbFile)
    db.exec('PRAGMA journal_mode = WAL')
    db.exec('CREATE TABLE IF NOT EXISTS "ModeProbe" ("x" INTEGER)')
    try {
      expect(mode(`${dbFile}-wal`)).toBe(0o600)
      expect(mode(`${dbFile}-shm`)).toBe(0o600)
    } finally {
      db.close()
    }
  }, 90_000)
})

describe('makeFilesPrivate', () => {
  it('sets the modes of files an earlier run left readable by others, and creates a missing database 0600', () => {
    const data = path.join(dir, 'data')
    fs.mkdirSync(data, { mode: 0o755 })
    const dbFile = path.join(data, 'gnap.db')
    for (const file of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`, path.join(data, 'secrets.json'), path.join(data, 'demo-client.json')]) {
      fs.writeFileSync(file, '', { mode: 0o644 })
    }
    makeFilesPrivate({ dataDir: data, dbFile })
    expect(mode(data)).toBe(0o700)
    for (const name of ['gnap.db', 'gnap.db-wal', 'gnap.db-shm', 'secrets.json', 'demo-client.json']) expect(mode(path.join(data, name))).toBe(0o600)

    const fresh = path.join(dir, 'elsewhere', 'new.db')
    makeFilesPrivate({ dataDir: path.join(dir, 'no-such-folder'), dbFile: fresh })
    expect(mode(fresh)).toBe(0o600)
    expect(mode(path.dirname(fresh))).toBe(0o700)
  })
})
